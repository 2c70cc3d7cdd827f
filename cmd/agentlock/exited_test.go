package main_test

// A harness that never fires its session-end event (kimi -p, qwen -p), or
// one killed before it could, leaves its session working with its locks:
// the next agentlock command that notices the recorded agent process is
// gone finishes it.

import (
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// sessionStatus returns the status of session id in `agentlock show
// --json`, and whether it owns a live lock in `agentlock status --json`.
func sessionStatus(t *testing.T, p *project, id string) (status string, holds bool) {
	t.Helper()
	r := p.run("show", "--json")
	requireExit(t, 0, r)
	for _, s := range jsonLines(t, r) {
		if s["session_id"] == id {
			status, _ = s["status"].(string)
		}
	}
	r = p.run("status", "--json")
	requireExit(t, 0, r)
	for _, l := range jsonLines(t, r) {
		if l["session_id"] == id && l["state"] == "locked" {
			holds = true
		}
	}
	return status, holds
}

// TestExitedAgentsSessionIsFinished runs a fake harness whose
// session-start hook recorded it, which takes a lock from its shell and
// then ends without a session-end hook: once by reaching the end of its
// work (kimi -p), once killed with SIGKILL. While it lives its session is
// working and holds the lock; once it is gone, the next command shows the
// session Finished and the lock released, and another session takes it. A
// session whose harness still runs is never finished, however many
// commands run.
func TestExitedAgentsSessionIsFinished(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a fake agent harness in real time")
	}
	fake, err := exec.LookPath("fakeagent")
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		kill bool
	}{{"exits without session-end", false}, {"killed", true}} {
		t.Run(tc.name, func(t *testing.T) {
			p := newProject(t)
			requireExit(t, 0, p.run("init"))
			p.write("src/a.go", "package a\n")
			steps := []string{
				`{"hook":"agentlock hook kimi session-start","payload":{"session_id":"k1","hook_event_name":"SessionStart","cwd":"` + p.dir + `"}}`,
				`{"shell":"agentlock acquire src/a.go > acquired.txt 2>&1"}`,
			}
			// A live bystander session, recorded the same way, that
			// must stay working throughout.
			bystander := proctest.Start(t, fake, proctest.Cmd{Env: p.env, Dir: p.dir, Stdin: strings.Join([]string{
				`{"hook":"agentlock hook kimi session-start","payload":{"session_id":"live","hook_event_name":"SessionStart","cwd":"` + p.dir + `"}}`,
				`{"shell":"agentlock acquire src/b.go"}`,
				`{"sleep":"2m"}`,
			}, "\n") + "\n"})
			waitFor(t, func() bool { s, held := sessionStatus(t, p, "kimi-live"); return s == "OnWorking" && held })

			// The agent waits, alive, for the test to check it, until
			// killed or until the sleep step's end (the time it has to
			// reach its end without session-end).
			sleep := "2m"
			if !tc.kill {
				sleep = "3s"
			}
			agent := proctest.Start(t, fake, proctest.Cmd{Env: p.env, Dir: p.dir,
				Stdin: strings.Join(append(steps, `{"sleep":"`+sleep+`"}`), "\n") + "\n"})
			waitFor(t, func() bool { s, held := sessionStatus(t, p, "kimi-k1"); return s == "OnWorking" && held })
			// The lock shows before the acquire has printed its line and
			// exited (a slow machine shows the gap): wait for the line.
			waitFor(t, func() bool { return strings.Contains(p.read("acquired.txt"), "kimi-k1") })
			inSandbox(t, p)
			if tc.kill {
				require.NoError(t, agent.Signal(syscall.SIGKILL))
			}
			res := agent.Wait(t)
			if !tc.kill {
				require.Equal(t, 0, res.Code, "the fake agent failed: %v", res)
			}

			status, holds := sessionStatus(t, p, "kimi-k1")
			assert.Equal(t, "Finished", status, "the session of the exited agent is not shown finished")
			assert.False(t, holds, "the session of the exited agent still holds its lock")
			requireExit(t, 0, p.run("acquire", "src/a.go", "--session", "other"))
			assert.Equal(t, "other", p.owner("src/a.go"))

			status, holds = sessionStatus(t, p, "kimi-live")
			assert.Equal(t, "OnWorking", status, "a session whose agent still runs was finished")
			assert.True(t, holds, "a session whose agent still runs lost its lock")
			require.NoError(t, bystander.Signal(syscall.SIGKILL))
			bystander.Wait(t)
		})
	}
}

// inSandbox runs agentlock show and status in a PID namespace of their
// own, as a command in Codex's workspace-write sandbox runs: the recorded
// agent processes are out of sight there, not gone, and no session may be
// finished. Skipped where no PID namespace can be made (not root).
func inSandbox(t *testing.T, p *project) {
	t.Helper()
	unshare, err := exec.LookPath("unshare")
	if err != nil {
		t.Log("no unshare: the PID-namespace case is not checked")
		return
	}
	probe := exec.Command(unshare, "--pid", "--fork", "--mount-proc", "true")
	if out, err := probe.CombinedOutput(); err != nil {
		t.Logf("unshare --pid cannot run here (%v: %s): the PID-namespace case is not checked", err, out)
		return
	}
	for _, args := range [][]string{{"show", "--json"}, {"status", "--json"}} {
		r := proctest.Run(t, unshare, proctest.Cmd{Args: append([]string{"--pid", "--fork", "--mount-proc", harness(t).Bin}, args...), Env: p.env, Dir: p.dir})
		requireExit(t, 0, r)
	}
	status, holds := sessionStatus(t, p, "kimi-k1")
	require.Equal(t, "OnWorking", status, "a command in a PID namespace of its own finished a session whose agent runs")
	require.True(t, holds)
}

// waitFor polls cond for a few seconds and fails the test if it never
// holds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(100 * time.Millisecond) {
		if cond() {
			return
		}
	}
	t.Fatal("condition never held")
}
