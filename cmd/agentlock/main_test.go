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
