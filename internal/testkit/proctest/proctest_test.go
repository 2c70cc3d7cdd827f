package proctest

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// deadlineT is a test with a near deadline, whose fatal failures are
// recorded instead of ending it.
type deadlineT struct {
	*testing.T
	deadline time.Time
	fatal    []string
}

func (d *deadlineT) Deadline() (time.Time, bool) { return d.deadline, true }

func (d *deadlineT) Fatalf(format string, args ...any) {
	d.fatal = append(d.fatal, fmt.Sprintf(format, args...))
}

func env(t *testing.T, extra ...string) []string {
	return Env(t.TempDir(), t.TempDir(), extra...)
}

func TestHungChildIsKilledAtItsDeadlineAndNamed(t *testing.T) {
	dt := &deadlineT{T: t, deadline: time.Now().Add(deadlineMargin + time.Second)}
	Run(dt, "sleep", Cmd{Args: []string{"30"}, Env: env(t)})
	require.Len(t, dt.fatal, 1)
	assert.Contains(t, dt.fatal[0], "sleep 30")
	assert.Contains(t, dt.fatal[0], "still running after")
}

func TestChildGetsOnlyTheEnvironmentBuilt(t *testing.T) {
	t.Setenv("AGENTLOCK_SESSION", "developer")
	r := Run(t, "env", Cmd{Env: env(t, "EXTRA=1")})
	require.Equal(t, 0, r.Code, "%s", r)
	var names []string
	for _, kv := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		name, _, _ := strings.Cut(kv, "=")
		names = append(names, name)
	}
	want := []string{"PATH", "HOME", "TMPDIR", "LANG", "GIT_CONFIG_NOSYSTEM", "GORACE", "EXTRA"}
	if os.Getenv("GOCOVERDIR") != "" {
		want = append(want, "GOCOVERDIR")
	}
	assert.ElementsMatch(t, want, names)
}

func TestExitedSaysWhetherTheProcessIsGone(t *testing.T) {
	running := Start(t, "sleep", Cmd{Args: []string{"30"}, Env: env(t)})
	assert.False(t, running.Exited())
	done := Start(t, "true", Cmd{Env: env(t)})
	done.Wait(t)
	assert.True(t, done.Exited())
}

func TestCmdWithoutEnvironmentIsRefused(t *testing.T) {
	dt := &deadlineT{T: t, deadline: time.Now().Add(time.Minute)}
	newProc(dt, "true", Cmd{}, "true")
	require.Len(t, dt.fatal, 1)
	assert.Contains(t, dt.fatal[0], "no environment")
}

func TestRaceReleasesEveryProcessAndCollectsItsResult(t *testing.T) {
	h := &Harness{Bin: "/bin/sh"}
	cmds := make([]Cmd, 8)
	for i := range cmds {
		cmds[i] = Cmd{Args: []string{"-c", fmt.Sprintf("echo %d; exit %d", i, i)}, Env: env(t)}
	}
	for i, r := range h.Race(t, cmds) {
		assert.Equal(t, i, r.Code)
		assert.Equal(t, fmt.Sprintf("%d\n", i), r.Stdout)
	}
}
