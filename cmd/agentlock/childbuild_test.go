package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// buildChild builds this package as agentlock into a new folder and
// returns the folder, for the tests' child processes to run instead of
// this test binary.
//
// testscript.Main installs the test binary itself as agentlock, and every
// child then starts a program that links the testing packages, testify and
// chromedp too: twice the size and, on a 2-core VM where a page fault
// costs about 10 us, twice the start-up of the real binary (30 against
// 14 ms a process). The tests start thousands of children. The binary is
// built as it is installed (static, cgo off), with the test binary's own
// -race and -tags, so that a race-detector run also watches the children
// and the etcd build's tests run the etcd build. When coverage of the
// children is asked for ($AGENTLOCK_TEST_COVERDIR, see proctest.CoverEnv),
// they are built with -cover over every package of the module (in the
// test binary's cover mode, when it has one), so that what the scripts and
// races run counts in the total .ci/run prints.
func buildChild() (string, error) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("find the go command: %w", err)
	}
	dir, err := os.MkdirTemp("", "agentlock-test-bin-")
	if err != nil {
		return "", err
	}
	args := []string{"build", "-trimpath", "-o", filepath.Join(dir, "agentlock")}
	env := append(os.Environ(), "CGO_ENABLED=0")
	if info, ok := debug.ReadBuildInfo(); ok {
		if os.Getenv(proctest.CoverEnv) != "" {
			args = append(args, "-cover", "-coverpkg="+info.Main.Path+"/...")
			if mode := testing.CoverMode(); mode != "" {
				args = append(args, "-covermode="+mode)
			}
		}
		for _, s := range info.Settings {
			switch {
			case s.Key == "-race" && s.Value == "true":
				args = append(args, "-race")
				env = append(env, "CGO_ENABLED=1") // the race detector needs cgo
			case s.Key == "-tags" && s.Value != "":
				args = append(args, "-tags", s.Value)
			}
		}
	}
	// A build that hangs must not hang the tests.
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, goBin, append(args, ".")...)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("go %v: %w\n%s", args, err, out)
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
