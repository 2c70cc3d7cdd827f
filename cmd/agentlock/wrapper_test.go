package main_test

// The wrapper scripts (scripts/agentlock-<agent>) around a fake agent: run
// to the end, terminated by SIGTERM, and kept running while the wrapper
// renews the session's locks.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// fakeAgent is a stand-in for an agent CLI: it records its session, takes a
// lock the way an instructed model would, then exits with 7, or waits to be
// terminated when FAKE_WAIT is set. The session file, which startWrapper
// waits for, comes last and whole (renamed into place): a reader that sees
// it exist must not read it before its content is written.
const fakeAgent = `#!/bin/sh
agentlock acquire src/a.go >/dev/null || exit 9
echo "$*" > "$FAKE_STATE/args"
echo "$AGENTLOCK_SESSION" > "$FAKE_STATE/session.tmp"
mv "$FAKE_STATE/session.tmp" "$FAKE_STATE/session"
if [ -n "${FAKE_WAIT:-}" ]; then exec sleep 60; fi
exit 7
`

// wrapperProject is a project set up for codex, with a PATH holding
// agentlock and a fake codex.
func wrapperProject(t *testing.T) (*project, string) {
	t.Helper()
	p := newProject(t)
	requireExit(t, 0, p.run("init", "--agent", "codex"))
	p.write("src/a.go", "x\n")
	bin := t.TempDir()
	require.NoError(t, os.Symlink(harness(t).Bin, filepath.Join(bin, "agentlock")))
	require.NoError(t, os.WriteFile(filepath.Join(bin, "codex"), []byte(fakeAgent), 0o755))
	state := t.TempDir()
	p.env = append(p.env, "PATH="+bin+":/usr/bin:/bin", "FAKE_STATE="+state)
	return p, state
}

func (p *project) session(t *testing.T, id string) map[string]any {
	t.Helper()
	r := p.run("show", "--json")
	requireExit(t, 0, r)
	for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		var s map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &s))
		if s["session_id"] == id {
			return s
		}
	}
	t.Fatalf("session %s not in the registry: %s", id, r.Stdout)
	return nil
}

func readState(t *testing.T, dir, name string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, name))
	require.NoError(t, err)
	return strings.TrimSpace(string(data))
}

// wrapperCmd runs the codex wrapper script from the project.
func wrapperCmd(p *project, env []string, args ...string) proctest.Cmd {
	return proctest.Cmd{Args: args, Env: append(append([]string{}, p.env...), env...), Dir: p.dir}
}

func TestWrapperRegistersHoldsAndFinishesOnExit(t *testing.T) {
	p, state := wrapperProject(t)
	r := proctest.Run(t, filepath.Join(p.dir, "scripts", "agentlock-codex"), wrapperCmd(p, nil, "--model", "o3"))
	assert.Equal(t, 7, r.Code, "the agent's exit code comes through; stderr: %s", r.Stderr)

	session := readState(t, state, "session")
	assert.True(t, strings.HasPrefix(session, "codex-"), session)
	assert.Equal(t, "--model o3", readState(t, state, "args"), "arguments reach the agent")
	s := p.session(t, session)
	assert.Equal(t, "Finished", s["status"], "finished on exit")
	assert.Equal(t, "openai", s["provider"])
	assert.Empty(t, p.owner("src/a.go"), "the lock the agent took is released")
}

// runningWrapper is a wrapper script started in the background whose fake
// agent has taken its lock and is waiting to be terminated.
type runningWrapper struct {
	*proctest.Proc
	session string
}

// agentStartLimit bounds the wait for the fake agent to start.
const agentStartLimit = 20 * time.Second

func startWrapper(t *testing.T, p *project, state string, env ...string) *runningWrapper {
	t.Helper()
	w := &runningWrapper{Proc: proctest.Start(t, filepath.Join(p.dir, "scripts", "agentlock-codex"), wrapperCmd(p, append([]string{"FAKE_WAIT=1"}, env...)))}
	deadline := time.Now().Add(agentStartLimit)
	for {
		if _, err := os.Stat(filepath.Join(state, "session")); err == nil {
			break
		}
		require.True(t, time.Now().Before(deadline), "the fake agent did not start within %s; stderr: %s", agentStartLimit, w.Stderr())
		time.Sleep(20 * time.Millisecond)
	}
	w.session = readState(t, state, "session")
	return w
}

// terminate sends SIGTERM and waits, bounded, for the script's exit code.
func (w *runningWrapper) terminate(t *testing.T) int {
	t.Helper()
	require.NoError(t, w.Signal(syscall.SIGTERM))
	r := w.Wait(t)
	require.NotZero(t, r.Code, "%s", r)
	return r.Code
}

func TestWrapperFinishesOnSIGTERM(t *testing.T) {
	p, state := wrapperProject(t)
	w := startWrapper(t, p, state)
	assert.Equal(t, w.session, p.owner("src/a.go"), "the agent holds its lock while it runs")
	assert.Equal(t, "OnWorking", p.session(t, w.session)["status"])

	assert.Equal(t, 143, w.terminate(t), "stderr: %s", w.Stderr())
	assert.Equal(t, "Finished", p.session(t, w.session)["status"], "finished on SIGTERM")
	assert.Empty(t, p.owner("src/a.go"), "its locks released")
}

// While the agent runs, the wrapper keeps its locks renewed: with a 1 s
// timeout, a lock taken at the start is still fresh after 2.5 s.
func TestWrapperRenewsTheSessionLocks(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a lock timeout in real time")
	}
	p, state := wrapperProject(t)
	w := startWrapper(t, p, state, "AGENTLOCK_TIMEOUT=1", "AGENTLOCK_RENEW_EVERY=200ms")
	time.Sleep(2500 * time.Millisecond)
	r := p.runEnv([]string{"AGENTLOCK_TIMEOUT=1"}, "acquire", "src/a.go", "intruder")
	requireExit(t, 1, r)
	assert.Contains(t, r.Stdout+r.Stderr, w.session, "still held by the wrapped session")

	w.terminate(t)
	assert.Empty(t, p.owner("src/a.go"))
}

// A renewal loop that dies (here at once, on a bad interval) is not
// silent: the wrapper says on stderr that the session's locks will expire.
// A normal end says nothing of the kind.
func TestWrapperSurfacesRenewalDeath(t *testing.T) {
	p, state := wrapperProject(t)
	w := startWrapper(t, p, state, "AGENTLOCK_RENEW_EVERY=-1s")
	deadline := time.Now().Add(agentStartLimit)
	for !strings.Contains(w.Stderr(), "renewal") {
		require.True(t, time.Now().Before(deadline), "no word of the renewal loop's death within %s; stderr: %s", agentStartLimit, w.Stderr())
		time.Sleep(20 * time.Millisecond)
	}
	assert.Contains(t, w.Stderr(), "will expire")
	assert.Contains(t, w.Stderr(), w.session)
	w.terminate(t)

	p2, state2 := wrapperProject(t)
	w2 := startWrapper(t, p2, state2, "AGENTLOCK_RENEW_EVERY=100ms")
	time.Sleep(200 * time.Millisecond)
	assert.Equal(t, 143, w2.terminate(t))
	assert.NotContains(t, w2.Stderr(), "renewal", "a loop stopped by the wrapper is not reported")
}
