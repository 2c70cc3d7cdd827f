package proctest

import (
	"os/exec"
	"testing"

	"github.com/agentlock/agentlock/internal/sys/procs"
)

// Sleeper starts a long-lived child process, killed when the test ends,
// and returns it as the system reads it (procs.Get): an agent process a
// test records, watches or kills. Where processes cannot be read, the test
// is Unavailable.
func Sleeper(t testing.TB) procs.Process {
	t.Helper()
	child := exec.Command("sleep", "30")
	if err := child.Start(); err != nil {
		t.Fatalf("start sleep: %v", err)
	}
	t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
	p, err := procs.Get(child.Process.Pid)
	if err != nil {
		Unavailable(t, "processes cannot be read here: %v", err)
	}
	return p
}
