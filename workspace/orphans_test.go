package workspace

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/core"
)

func TestOrphanedLocksAreThoseOfGoneOwners(t *testing.T) {
	o := OwnersOf([]core.Session{
		{SessionID: "done", Status: core.StatusFinished},
		{SessionID: "busy", Status: core.StatusWorking},
		{SessionID: "crashed", Status: core.StatusWorking},
	}, map[string]bool{"crashed": true})
	for _, c := range []struct {
		st                   core.State
		orphaned, releasable bool
	}{
		{core.State{Owner: "done"}, true, true},
		{core.State{Owner: "crashed"}, true, true},
		{core.State{Owner: "busy"}, false, false},
		{core.State{Owner: "busy", Stale: true}, false, true},
		{core.State{Owner: "unregistered"}, false, false},
		{core.State{Owner: "unregistered", Stale: true}, true, true},
		{core.State{}, false, false},
	} {
		assert.Equal(t, c.orphaned, o.Orphaned(c.st), "orphaned %+v", c.st)
		assert.Equal(t, c.releasable, o.Releasable(c.st), "releasable %+v", c.st)
	}
	assert.True(t, o.Finished("crashed"), "an exited agent's working session counts as finished")
	assert.True(t, o.Working("busy"))
	assert.False(t, o.Working("crashed"))
}

func TestOwnersReadsTheRegistry(t *testing.T) {
	root, ws := newProject(t)
	start(t, ws, core.Session{SessionID: "s-1", Provider: "p", AIVersion: "m", WorkingOn: "w"})
	_, _, err := ws.Acquire(t.Context(), []string{filepath.Join(root, "a.go")}, "s-1")
	require.NoError(t, err)
	o, err := ws.Owners(t.Context())
	require.NoError(t, err)
	assert.True(t, o.Working("s-1"))
	_, err = ws.Finish(t.Context(), "s-1")
	require.NoError(t, err)
	o, err = ws.Owners(t.Context())
	require.NoError(t, err)
	assert.True(t, o.Finished("s-1"))
}
