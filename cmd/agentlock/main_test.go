package main

import (
	"fmt"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentlock/agentlock/internal/fakeagent"
)

// TestMain puts agentlock on PATH for the tests to run as real processes —
// the package built as it is installed (see buildChild), or this test
// binary when that cannot be built — and this test binary as fakeagent, a
// stand-in for an agent harness (see package fakeagent). It is the only
// TestMain of the package: the tests themselves are black-box tests in
// package main_test, which run scripts and find agentlock on PATH.
func TestMain(m *testing.M) {
	testscript.Main(withTeamStore(m), map[string]func(){
		"agentlock": main,
		"fakeagent": func() { os.Exit(fakeagent.Main()) },
	})
}

// teamM runs the tests, and with AGENTLOCK_TEST_STORE=etcd gives the
// embedded etcd that the etcd build's tests start (teamstore_etcd_test.go)
// a temporary folder, removed when the tests end.
type teamM struct{ m *testing.M }

// withTeamStore wraps m (see teamM).
func withTeamStore(m *testing.M) teamM { return teamM{m: m} }

// Run implements testscript.TestingM.
func (t teamM) Run() int {
	// The children run the real binary (see buildChild), found first on
	// the PATH that testscript.Main set; if it cannot be built, they run
	// this test binary, as testscript.Main installed it.
	if bin, err := buildChild(); err != nil {
		fmt.Fprintf(os.Stderr, "NOTE: the tests' child processes run the test binary as agentlock (slower): %v\n", err)
	} else {
		defer os.RemoveAll(bin)
		os.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	}
	if os.Getenv("AGENTLOCK_TEST_STORE") != "etcd" {
		return t.m.Run()
	}
	dir, err := os.MkdirTemp("", "agentlock-test-etcd-")
	if err != nil {
		return t.m.Run()
	}
	defer os.RemoveAll(dir)
	os.Setenv("AGENTLOCK_TEST_ETCD_DIR", dir)
	return t.m.Run()
}
