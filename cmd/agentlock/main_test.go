package main

import (
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentlock/agentlock/internal/fakeagent"
)

// TestMain installs this test binary as agentlock, on PATH, for the tests to
// run as real processes, and as fakeagent, a stand-in for an agent harness
// (see package fakeagent). It is the only TestMain of the package: the tests
// themselves are black-box tests in package main_test, which run scripts
// and find agentlock on PATH.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"agentlock": main,
		"fakeagent": func() { os.Exit(fakeagent.Main()) },
	})
}
