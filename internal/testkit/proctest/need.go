package proctest

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// InCI reports whether the tests run in CI: CI=true (or 1), as .ci/run and
// most CI services set it. There every need of a test is installed, so a
// test that cannot run is a failure, never a skip.
func InCI() bool {
	v := os.Getenv("CI")
	return v == "true" || v == "1"
}

// Unavailable ends a test whose need this machine does not meet (a
// program, a Python module, a browser, an embedded server that cannot
// start), saying what did not run: it skips the test, with a line starting
// "SKIPPED: ", except under CI (InCI), where .ci/run provides every such
// need, so that a skip would be a green run that tested nothing: there the
// test fails. Use it for every skip .ci/run can satisfy; skip with t.Skip
// only what no CI run can (another operating system, -short).
func Unavailable(t testing.TB, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	if InCI() {
		t.Fatalf("CI=true, and this test cannot run: %s (.ci/run must provide it; it never skips)", msg)
	}
	t.Skip("SKIPPED: " + msg)
}

// Need returns the path of program on PATH, or ends the test as
// Unavailable says when it is missing.
func Need(t testing.TB, program, why string) string {
	t.Helper()
	path, err := exec.LookPath(program)
	if err != nil {
		Unavailable(t, "%s is not on PATH; %s", program, why)
	}
	return path
}

// NeedCondition answers a testscript condition "need:PROGRAM" (used as
// "[!need:python3] skip 'reason'"): true when PROGRAM is on PATH; when it
// is not, false (the script skips) or, under CI, an error (the script
// fails), as Unavailable does for a test.
func NeedCondition(program string) (bool, error) {
	if _, err := exec.LookPath(program); err == nil {
		return true, nil
	}
	if InCI() {
		return false, fmt.Errorf("CI=true, and %s is not on PATH: .ci/run must install it (a script never skips in CI)", program)
	}
	return false, nil
}
