package main

import (
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// TestMain installs this test binary as agentlock, on PATH, for the tests to
// run as real processes. It is the only TestMain of the package: the tests
// themselves are black-box tests in package main_test, which run scripts
// and find agentlock on PATH.
func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){"agentlock": main})
}
