package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"github.com/agentlock/agentlock/internal/frontend/mcpprogram"
	"github.com/agentlock/agentlock/internal/testkit/fakeagent"
	"github.com/agentlock/agentlock/internal/testkit/proctest"
	"github.com/agentlock/agentlock/workspace"
)

// TestMain puts agentlock on PATH for the tests to run as real processes —
// the package built as it is installed (see buildChild); when that cannot
// be built, the tests fail, unless AGENTLOCK_TEST_CHILD=test-binary asks
// for this test binary instead — and this test binary as fakeagent, a
// stand-in for an agent harness (see package fakeagent); that PATH holds
// nothing else of the developer's (proctest.Isolate). It is the only
// TestMain of the package: the tests themselves are black-box tests in
// package main_test, which run scripts and find agentlock on PATH.
func TestMain(m *testing.M) {
	testscript.Main(withTeamStore(m), map[string]func(){
		"agentlock": main,
		"fakeagent": func() { os.Exit(fakeagent.Main()) },
		// agentlock mcp's server, for AGENTLOCK_TEST_CHILD=test-binary
		// (else the children's agentlock finds the one built beside it).
		workspace.MCPProgram: func() { os.Exit(mcpprogram.Main(mcpprogram.FromOS(buildStamp()))) },
		// A process that hands its command line over, as agentlock does
		// (TestHandOverRunsTheEtcdBuildInPlaceWithThePayload).
		handOverProbe: handOverProbeMain,
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
	// the PATH that testscript.Main set. If it cannot be built, nothing
	// runs: the test binary, which testscript.Main installed, is another
	// program (it links the tests, and not -cover's children), and a run
	// on it would pass for one of the real binary. Only when asked
	// (AGENTLOCK_TEST_CHILD=test-binary: no go command where the tests
	// run) do the children run the test binary.
	// testscript.Main installed its programs (fakeagent, and agentlock as
	// the test binary) in a folder of its own.
	installed, err := exec.LookPath("fakeagent")
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: testscript.Main installed no fakeagent: %v\n", err)
		return 1
	}
	dirs := []string{filepath.Dir(installed)}
	if os.Getenv("AGENTLOCK_TEST_CHILD") == "test-binary" {
		fmt.Fprintln(os.Stderr, "NOTE: AGENTLOCK_TEST_CHILD=test-binary: the tests' child processes run the test binary as agentlock")
	} else if bin, err := buildChild(); err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: the tests' agentlock binary cannot be built, so no test ran "+
			"(AGENTLOCK_TEST_CHILD=test-binary runs the children on the test binary instead): %v\n", err)
		return 1
	} else {
		defer os.RemoveAll(bin)
		dirs = append([]string{bin}, dirs...)
	}
	// The tests, the scripts and every child find agentlock there and the
	// tools they run, never a program of the developer's PATH (another
	// agentlock, an agentlock-etcd, an agent CLI doctor would ask).
	cleanup, err := proctest.Isolate(dirs...)
	if err != nil {
		fmt.Fprintf(os.Stderr, "FAIL: %v\n", err)
		return 1
	}
	defer cleanup()
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
