package workspace

import (
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/internal/sys/agentproc"
	"github.com/agentlock/agentlock/internal/sys/procs"
)

// agentProcess starts a real process standing for an agent harness; stop
// ends it and waits until it is gone.
func agentProcess(t *testing.T) (p procs.Process, stop func()) {
	t.Helper()
	child := exec.Command("sleep", "30")
	require.NoError(t, child.Start())
	stopped := false
	stop = func() {
		if !stopped {
			stopped = true
			_ = child.Process.Kill()
			_ = child.Wait()
		}
	}
	t.Cleanup(stop)
	p, err := procs.Get(child.Process.Pid)
	if err != nil {
		t.Skipf("processes cannot be read here: %v", err)
	}
	return p, stop
}

// Three sessions whose agent processes are recorded: one whose process
// exits (registered, holding a lock), one never registered whose process
// exits (holding a lock), and one whose first process exits while a
// second one, recorded later (a resumed session), still runs. Exited
// names the first two; FinishExited finishes them and releases their
// locks, keeps the third working, removes the records of the gone
// processes, and does nothing more when run again.
func TestFinishExited(t *testing.T) {
	root, ws := newProject(t)
	dir := agentproc.Dir(ws.Home)
	now := time.Now()
	record := func(session string) func() {
		p, stop := agentProcess(t)
		_, err := agentproc.Write(dir, p, session, "kimi", agentproc.KindHook, now)
		require.NoError(t, err)
		return stop
	}
	file := func(name string) string { return filepath.Join(root, name) }
	for _, s := range []string{"kimi-done", "kimi-resumed"} {
		_, err := ws.StartSession(t.Context(), core.Session{SessionID: s, Provider: "moonshot"}, SessionStart{})
		require.NoError(t, err)
	}
	for s, f := range map[string]string{"kimi-done": "a.go", "kimi-ghost": "b.go", "kimi-resumed": "c.go"} {
		_, _, err := ws.Acquire(t.Context(), []string{file(f)}, s)
		require.NoError(t, err)
	}
	stopDone, stopGhost, stopFirst := record("kimi-done"), record("kimi-ghost"), record("kimi-resumed")
	_ = record("kimi-resumed") // the resumed session's live process

	assert.Empty(t, ws.Exited(), "every agent process runs")
	got, err := ws.FinishExited(t.Context())
	require.NoError(t, err)
	assert.Empty(t, got, "nothing finished while every agent process runs")

	stopDone()
	stopGhost()
	stopFirst()
	assert.Equal(t, map[string]bool{"kimi-done": true, "kimi-ghost": true}, ws.Exited())
	got, err = ws.FinishExited(t.Context())
	require.NoError(t, err)
	var ids []string
	for _, f := range got {
		ids = append(ids, f.Session.SessionID)
		require.Len(t, f.Released, 1)
	}
	assert.ElementsMatch(t, []string{"kimi-done", ""}, ids, "kimi-done finished, kimi-ghost (unregistered) released")

	doc, err := ws.Registry().Load(t.Context())
	require.NoError(t, err)
	done, _ := doc.Find("kimi-done")
	assert.Equal(t, core.StatusFinished, done.Status)
	resumed, _ := doc.Find("kimi-resumed")
	assert.Equal(t, core.StatusWorking, resumed.Status, "a session another live process runs is not finished")
	for f, owner := range map[string]string{"a.go": "", "b.go": "", "c.go": "kimi-resumed"} {
		st, err := ws.Locker().IsLocked(t.Context(), file(f))
		require.NoError(t, err)
		assert.Equal(t, owner, st.Owner, f)
	}
	assert.Empty(t, agentproc.Exited(dir), "the records of the gone processes are removed")
	assert.Len(t, agentproc.OfSession(dir, "kimi-resumed"), 1)
	got, err = ws.FinishExited(t.Context())
	require.NoError(t, err)
	assert.Empty(t, got)
}
