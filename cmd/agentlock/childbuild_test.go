package main

import (
	"context"
	"os"
	"os/exec"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// buildChild builds this package as agentlock, and agentlock-mcp beside it
// (agentlock mcp runs it), into a new folder and returns the folder, for
// the tests' child processes to run instead of this test binary.
//
// testscript.Main installs the test binary itself as agentlock, and every
// child then starts a program that links the testing packages, testify and
// chromedp too: twice the size and, on a 2-core VM where a page fault
// costs about 10 us, twice the start-up of the real binary (30 against
// 14 ms a process). The tests start thousands of children. The binary is
// built as it is installed (static, cgo off) and the same on every machine
// (proctest.GoBuild: nothing of the developer's go settings, no VCS
// stamp), with the test binary's own -race and -tags, so that a
// race-detector run also watches the children and the etcd build's tests
// run the etcd build. When coverage of the children is asked for
// ($AGENTLOCK_TEST_COVERDIR, see proctest.CoverEnv), they are built with
// -cover over every package of the module (in the test binary's cover
// mode, when it has one), so that what the scripts and races run counts in
// the total .ci/run prints.
func buildChild() (string, error) {
	dir, err := os.MkdirTemp("", "agentlock-test-bin-")
	if err != nil {
		return "", err
	}
	flags := []string{"-trimpath"}
	if info, ok := debug.ReadBuildInfo(); ok {
		if os.Getenv(proctest.CoverEnv) != "" {
			flags = append(flags, "-cover", "-coverpkg="+info.Main.Path+"/...")
			if mode := testing.CoverMode(); mode != "" {
				flags = append(flags, "-covermode="+mode)
			}
		}
		for _, s := range info.Settings {
			switch {
			case s.Key == "-race" && s.Value == "true":
				flags = append(flags, "-race")
			case s.Key == "-tags" && s.Value != "":
				flags = append(flags, "-tags", s.Value)
			}
		}
	}
	// A build that hangs must not hang the tests.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := proctest.GoBuildAll(ctx, dir, proctest.Programs(), flags...); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// When the agentlock binary cannot be built (here: no go command on PATH),
// the test binary runs no test and fails, saying why, rather than running
// the children on itself; AGENTLOCK_TEST_CHILD=test-binary asks for that.
func TestChildBuildFailureFailsTheRun(t *testing.T) {
	run := func(extra ...string) (string, error) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestNothingAtAll$")
		cmd.Env = append([]string{"PATH=" + t.TempDir(), "HOME=" + t.TempDir()}, extra...)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run()
	if err == nil || !strings.Contains(out, "FAIL: the tests' agentlock binary cannot be built, so no test ran") {
		t.Fatalf("with no go command, the test binary ran: %v\n%s", err, out)
	}
	out, err = run("AGENTLOCK_TEST_CHILD=test-binary")
	if err != nil || !strings.Contains(out, "the tests' child processes run the test binary") {
		t.Fatalf("AGENTLOCK_TEST_CHILD=test-binary: %v\n%s", err, out)
	}
}
