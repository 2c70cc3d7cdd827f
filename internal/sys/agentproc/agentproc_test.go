package agentproc

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/sys/procs"
	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

func TestHarnessSkipsShellsAndAgentlock(t *testing.T) {
	chain := []procs.Process{
		{PID: 50, Name: "agentlock"}, {PID: 40, Name: "dash"}, {PID: 30, Name: "-bash"},
		{PID: 20, Name: "node"}, {PID: 10, Name: "node"}, {PID: 1, Name: "systemd"},
	}
	h, ok := Harness(chain)
	require.True(t, ok)
	assert.Equal(t, 20, h.PID, "the nearest non-shell ancestor, not the one above it")

	_, ok = Harness([]procs.Process{{PID: 9, Name: "sh"}, {PID: 1, Name: "codex"}})
	assert.False(t, ok, "PID 1 (init, or a sandbox's namespace init) is never the harness")
}

func TestRecordsAreFoundByPIDAndStartTime(t *testing.T) {
	dir := filepath.Join(t.TempDir(), DirName)
	agent := proctest.Sleeper(t)
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	_, err := Write(dir, agent, "kimi-1", "kimi", KindHook, now)
	require.NoError(t, err)

	self := procs.Process{PID: 99999999, Name: "agentlock"}
	found := Lookup(dir, []procs.Process{self, {PID: 77777777, Name: "bash"}, agent})
	assert.Equal(t, "kimi-1", found.Agent.Session)
	assert.Empty(t, found.Wrapper.Session)
	assert.Equal(t, "the agent process "+strconv.Itoa(agent.PID)+" (sleep), recorded by the session-start hook", found.Agent.Describe())

	// The same PID with another start time: an earlier process that had
	// the PID. Its record gives nothing.
	reused := agent
	reused.Start++
	assert.Empty(t, Lookup(dir, []procs.Process{self, reused}).Agent.Session)

	// PID 1 ends the walk.
	assert.Empty(t, Lookup(dir, []procs.Process{self, {PID: 1}, agent}).Agent.Session)
}

// Write keeps the records of gone processes (their sessions are finished
// from them); Exited finds them, records only, and Remove deletes one.
func TestExitedFindsTheRecordsOfGoneProcesses(t *testing.T) {
	dir := filepath.Join(t.TempDir(), DirName)
	agent := proctest.Sleeper(t)
	require.NoError(t, os.MkdirAll(dir, 0o700))
	reusedID := procs.ID{PID: agent.PID, Start: agent.Start + 1}
	ns, err := procs.Namespace()
	require.NoError(t, err)
	record := func(id procs.ID, session, ns string) string {
		path := filepath.Join(dir, id.String())
		require.NoError(t, os.WriteFile(path, []byte(`{"session_id":"`+session+`","kind":"hook","pid":`+
			strconv.Itoa(id.PID)+`,"start":`+strconv.FormatUint(id.Start, 10)+`,"pid_ns":"`+ns+`"}`), 0o600))
		return path
	}
	reused := record(reusedID, "kimi-old", ns)
	// Written in another PID namespace (a sandbox): its process is out of
	// sight here, not known to be gone.
	elsewhere := record(procs.ID{PID: agent.PID, Start: agent.Start + 2}, "kimi-sandboxed", "pid:[1]")
	// An older agentlock's record (no namespace), and one that cannot be
	// read: Exited never judges them, so Write sweeps them when their
	// process is gone.
	legacy := record(procs.ID{PID: agent.PID, Start: agent.Start + 3}, "kimi-legacy", "")
	garbage := filepath.Join(dir, procs.ID{PID: agent.PID, Start: agent.Start + 4}.String())
	require.NoError(t, os.WriteFile(garbage, []byte("{"), 0o600))
	other := filepath.Join(dir, "notes.txt")
	require.NoError(t, os.WriteFile(other, nil, 0o600))

	_, err = Write(dir, agent, "claude-1", "claude", KindHook, time.Now())
	require.NoError(t, err)
	assert.FileExists(t, reused, "Write leaves a gone process's record for its session to be finished")
	if ns != "" {
		assert.NoFileExists(t, legacy, "Write sweeps a gone process's record without a namespace")
	}
	assert.NoFileExists(t, garbage, "Write sweeps a gone process's unreadable record")
	r, ok, err := Read(dir, agent.ID())
	require.NoError(t, err)
	require.True(t, ok)
	assert.Equal(t, ns, r.PIDNamespace, "Write records its PID namespace")
	gone := Exited(dir)
	require.Len(t, gone, 1, "only the record of the gone process (PID reused) is exited")
	assert.Equal(t, reusedID, gone[0].ID)
	assert.Equal(t, "kimi-old", gone[0].Record.Session)
	require.NoError(t, Remove(dir, gone[0].ID))
	require.NoError(t, Remove(dir, gone[0].ID), "removing twice is no error")
	assert.NoFileExists(t, reused)
	assert.Empty(t, Exited(dir))
	assert.FileExists(t, other, "only records are touched")
	assert.FileExists(t, elsewhere, "a record of another PID namespace is never judged")
	assert.FileExists(t, filepath.Join(dir, agent.ID().String()))
}
