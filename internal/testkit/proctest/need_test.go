package proctest

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestUnavailableChild is run by TestUnavailable in a child test process,
// where it ends as Unavailable says; elsewhere it does nothing (a skip
// would count in .ci/run's summary).
func TestUnavailableChild(t *testing.T) {
	if os.Getenv("PROCTEST_UNAVAILABLE_CHILD") != "1" {
		return
	}
	Need(t, "no-such-program-agentlock-test", "the child's check did not run")
	t.Log("REACHED")
}

// A missing need skips a test, saying so, except under CI=true, where it
// fails it; the testscript condition answers the same way.
func TestUnavailable(t *testing.T) {
	run := func(ci string) (string, error) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestUnavailableChild$", "-test.v")
		cmd.Env = append(os.Environ(), "PROCTEST_UNAVAILABLE_CHILD=1", "CI="+ci)
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run("")
	assert.NoError(t, err, out)
	assert.Contains(t, out, "--- SKIP: TestUnavailableChild")
	assert.Contains(t, out, "SKIPPED: no-such-program-agentlock-test is not on PATH; the child's check did not run")
	assert.NotContains(t, out, "REACHED")

	out, err = run("true")
	assert.Error(t, err, out)
	assert.Contains(t, out, "--- FAIL: TestUnavailableChild")
	assert.Contains(t, out, "CI=true, and this test cannot run")
	assert.NotContains(t, out, "REACHED")

	t.Setenv("CI", "")
	ok, err := NeedCondition("no-such-program-agentlock-test")
	assert.False(t, ok)
	assert.NoError(t, err)
	ok, err = NeedCondition("sh")
	assert.True(t, ok)
	assert.NoError(t, err)
	t.Setenv("CI", "true")
	_, err = NeedCondition("no-such-program-agentlock-test")
	if assert.Error(t, err) {
		assert.True(t, strings.Contains(err.Error(), ".ci/run must install it"))
	}
}
