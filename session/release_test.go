package session

import (
	"errors"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/audit"
	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/workspace"
)

func TestForceReleaseRecordsWhatItEmptied(t *testing.T) {
	root := project(t)
	a := filepath.Join(root, "a.go")
	ctx := t.Context()
	_, err := service(root, "s1", nil).Acquire(ctx, AcquireRequest{Paths: []string{a}})
	require.NoError(t, err)
	svc := service(root, "", nil)
	got, err := svc.ForceRelease(ctx, ForceRequest{Path: a, Who: "person", Action: audit.ActionForceRelease})
	require.NoError(t, err)
	require.NoError(t, got.AuditErr)
	assert.Equal(t, "s1", got.Previous.Owner)
	assert.True(t, got.StillWorking, "renewed within the timeout by a session that is not finished")
	ws, err := svc.Workspace(ctx)
	require.NoError(t, err)
	st, err := ws.Locker().IsLocked(ctx, a)
	require.NoError(t, err)
	assert.Empty(t, st.Owner)

	// Nothing held: nothing to record.
	got, err = svc.ForceRelease(ctx, ForceRequest{Path: a, Who: "person", Action: audit.ActionForceRelease})
	require.NoError(t, err)
	assert.False(t, got.StillWorking)
	entries, _, err := ws.Audit().Read()
	require.NoError(t, err)
	require.Len(t, entries, 1)
	assert.Equal(t, "person", entries[0].Who)
	assert.Equal(t, "s1", entries[0].PreviousOwner)
}

// The guard (the dashboard's) sees the lock inside the critical section,
// with the owners read before it: a refusal leaves the lock as it is.
func TestForceReleaseGuard(t *testing.T) {
	root := project(t)
	a := filepath.Join(root, "a.go")
	ctx := t.Context()
	_, err := service(root, "s1", nil).Acquire(ctx, AcquireRequest{Paths: []string{a}})
	require.NoError(t, err)
	refused := errors.New("still at work")
	guard := func(now core.State, owners workspace.Owners) error {
		if !owners.Releasable(now) {
			return refused
		}
		return nil
	}
	svc := service(root, "", nil)
	_, err = svc.ForceRelease(ctx, ForceRequest{Path: a, Who: "page", Action: audit.ActionPageRelease, If: guard})
	require.ErrorIs(t, err, refused)
	ws, err := svc.Workspace(ctx)
	require.NoError(t, err)
	st, err := ws.Locker().IsLocked(ctx, a)
	require.NoError(t, err)
	assert.Equal(t, "s1", st.Owner, "refused: untouched")

	_, err = service(root, "s1", nil).Start(ctx, StartRequest{Session: core.Session{WorkingOn: "x"}})
	require.NoError(t, err)
	_, err = service(root, "s1", nil).Finish(ctx, "")
	require.NoError(t, err)
	_, err = service(root, "s1", nil).Acquire(ctx, AcquireRequest{Paths: []string{a}})
	require.NoError(t, err)
	got, err := service(root, "", nil).ForceRelease(ctx, ForceRequest{Path: a, Who: "page", Action: audit.ActionPageRelease, If: guard})
	require.NoError(t, err, "the session is finished: releasable")
	assert.Equal(t, "s1", got.Previous.Owner)
	assert.False(t, got.StillWorking)
	entries, _, err := ws.Audit().Read()
	require.NoError(t, err)
	assert.Equal(t, audit.ActionPageRelease, entries[len(entries)-1].Action)
}
