package main_test

// A renewal loop started in the background from an agent's one-shot shell
// lives only as long as the agent: killed with SIGKILL, the agent leaves a
// lock that expires, as every crashed agent's must.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// TestRenewalDiesWithTheAgent runs a fake agent harness (fakeagent, a
// long-lived process that is not a shell, leading its own process group as
// an agent started from a terminal does) whose session-start hook ran as
// its child through sh -c; it then runs bash -c 'agentlock heartbeat
// --every 1s src/a.go &' — the shell exits at once, the loop is
// re-parented. With a 2 s timeout, another session must not win the lock
// while the agent lives (the loop renews it), and must win it after the
// agent is killed with SIGKILL (the loop saw its agent die and stopped);
// the loop process must be gone too. Once with no session variable (a
// Gemini/Kimi shell: the session comes from the agent's record), once with
// Claude's CLAUDE_CODE_SESSION_ID.
func TestRenewalDiesWithTheAgent(t *testing.T) {
	if testing.Short() {
		t.Skip("waits in real time")
	}
	for _, tc := range []struct {
		name, agent, session string
		env                  []string
	}{
		{"no session variable", "kimi", "kimi-k1", nil},
		{"CLAUDE_CODE_SESSION_ID", "claude", "claude-k1", []string{"CLAUDE_CODE_SESSION_ID=k1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProject(t)
			requireExit(t, 0, p.run("init"))
			// The other session runs outside the agent: none of its
			// variables.
			otherEnv := append(append([]string{}, p.env...), "AGENTLOCK_TIMEOUT=2")
			env := append(append([]string{}, otherEnv...), tc.env...)
			fake, err := exec.LookPath("fakeagent")
			require.NoError(t, err)
			steps := strings.Join([]string{
				`{"hook":"agentlock hook ` + tc.agent + ` session-start","payload":{"session_id":"k1","hook_event_name":"SessionStart"}}`,
				`{"shell":"agentlock acquire src/a.go"}`,
				`{"shell":"agentlock heartbeat --every 1s src/a.go & echo $! > hb.pid"}`,
				`{"sleep":"2m"}`,
			}, "\n") + "\n"
			agent := proctest.Start(t, fake, proctest.Cmd{Env: env, Dir: p.dir, Stdin: steps})

			other := func() proctest.Result {
				return harness(t).Run(t, proctest.Cmd{Args: []string{"acquire", "src/a.go", "--session", "other"}, Env: otherEnv, Dir: p.dir})
			}
			// The loop is running once it wrote its PID; the lock is ours.
			pid := waitPID(t, filepath.Join(p.dir, "hb.pid"))
			assert.Equal(t, tc.session, p.owner("src/a.go"))

			// While the agent lives, past twice the timeout, the other
			// session is refused every time (exit 1: held): the loop
			// renews the lock.
			refused, tries := 0, 0
			for end := time.Now().Add(4 * time.Second); time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
				r := other()
				tries++
				if r.Code == 1 {
					refused++
				}
			}
			require.Equal(t, tries, refused, "another session was not refused the lock while the agent was alive")

			require.NoError(t, agent.Signal(syscall.SIGKILL))
			won, last := false, proctest.Result{}
			for end := time.Now().Add(20 * time.Second); !won && time.Now().Before(end); time.Sleep(200 * time.Millisecond) {
				last = other()
				won = last.Code == 0
			}
			assert.True(t, won, "the lock of the killed agent never expired; last attempt: %s", last)
			gone := false
			for end := time.Now().Add(10 * time.Second); !gone && time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
				gone = syscall.Kill(pid, 0) != nil
			}
			assert.True(t, gone, "the renewal loop %d outlived its agent", pid)
		})
	}
}

// waitPID reads a PID that a shell writes to file, waiting for it.
func waitPID(t *testing.T, file string) int {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(50 * time.Millisecond) {
		data, err := os.ReadFile(file)
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(data))); err == nil && perr == nil && pid > 0 {
			return pid
		}
	}
	t.Fatalf("no PID in %s", file)
	return 0
}
