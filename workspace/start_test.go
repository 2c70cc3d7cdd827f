package workspace

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/internal/sys/agentproc"
)

// register's start: a new entry of no known provider is a person's and
// lists the locks the session holds; a second registration changes the
// fields given and keeps the start and the locks; a wrapper's PID is
// recorded as the session's agent process.
func TestStartSessionAsRegisterDoes(t *testing.T) {
	root, ws := newProject(t)
	file := filepath.Join(root, "a.go")
	_, _, err := ws.Acquire(t.Context(), []string{file}, "demo-1")
	require.NoError(t, err)
	first, err := ws.StartSession(t.Context(), core.Session{SessionID: "demo-1", WorkingOn: "first"},
		SessionStart{Update: func(*core.Session) { t.Fatal("no entry to update") }, AgentPID: os.Getpid()})
	require.NoError(t, err)
	assert.Equal(t, HumanProvider, first.Provider)
	assert.Equal(t, UnknownVersion, first.AIVersion)
	assert.Equal(t, []string{file}, first.DoNotTouch)
	assert.NotEmpty(t, agentproc.OfSession(agentproc.Dir(ws.Home), "demo-1"), "the agent process is recorded")

	_, err = ws.Finish(t.Context(), "demo-1")
	require.NoError(t, err)
	again, err := ws.StartSession(t.Context(), core.Session{SessionID: "demo-1", WorkingOn: "second"},
		SessionStart{Update: func(s *core.Session) { s.WorkingOn = "second" }})
	require.NoError(t, err)
	assert.Equal(t, core.StatusWorking, again.Status, "a finished session registered again works")
	assert.Equal(t, "second", again.WorkingOn)
	assert.Equal(t, first.StartedAt, again.StartedAt, "the start is kept")
	doc, err := ws.Registry().Load(t.Context())
	require.NoError(t, err)
	require.Len(t, doc.Agents, 1)
	assert.Equal(t, "second", doc.Agents[0].WorkingOn)
}

// Starts of one session racing (a hook and the wrapper's register) make
// one entry: the registry is read inside the write section.
func TestStartsOfOneSessionMakeOneEntry(t *testing.T) {
	_, ws := newProject(t)
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			how := SessionStart{}
			if i%2 == 0 {
				how.Update = func(s *core.Session) { s.WorkingOn = "registered" }
			}
			_, errs[i] = ws.StartSession(t.Context(), core.Session{SessionID: "s-1", Provider: "p", WorkingOn: "hook"}, how)
		}()
	}
	wg.Wait()
	require.NoError(t, errors.Join(errs...))
	doc, err := ws.Registry().Load(t.Context())
	require.NoError(t, err)
	assert.Len(t, doc.Agents, 1)
}

func TestClaimSpaceTakesTheSpaceAsAreasAllOrNone(t *testing.T) {
	root, ws := newProject(t)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "src", "auth"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, "tests"), 0o755))
	_, _, err := ws.Acquire(t.Context(), []string{filepath.Join(root, "tests", "x_test.go")}, "other")
	require.NoError(t, err)
	s, err := ws.StartSession(t.Context(), core.Session{SessionID: "s-1", WorkingOn: "w",
		Space: []string{filepath.Join(root, "src", "auth"), filepath.Join(root, "tests")}}, SessionStart{})
	require.NoError(t, err)

	_, _, _, err = ws.ClaimSpace(t.Context(), s)
	require.ErrorIs(t, err, core.ErrLocked, "tests/ covers another session's lock")
	states, _, err := ws.Locker().List(t.Context())
	require.NoError(t, err)
	held := 0
	for _, st := range states {
		if st.Owner != "" {
			held++
		}
	}
	assert.Equal(t, 1, held, "none taken")

	_, _, err = ws.Release(t.Context(), []string{filepath.Join(root, "tests", "x_test.go")}, "other")
	require.NoError(t, err)
	claimed, leases, _, err := ws.ClaimSpace(t.Context(), s)
	require.NoError(t, err)
	assert.Len(t, leases, 2)
	assert.Equal(t, []string{filepath.Join(root, "src", "auth") + "/", filepath.Join(root, "tests") + "/"}, claimed.Space)

	_, _, _, err = ws.ClaimSpace(t.Context(), core.Session{SessionID: "s-2"})
	assert.ErrorIs(t, err, errNoSpace)
}
