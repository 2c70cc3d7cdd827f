package core

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/store"
)

// idleLocker is a Locker on lock files in a new folder, with a clock the
// test moves and an idle bound of 10s for the locks hooks take.
func idleLocker(t *testing.T) (*Locker, string, *time.Time) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	now := time.Unix(1_800_000_000, 0)
	clock := func() time.Time { return now }
	return testLocker(dir, Options{Cwd: dir, Timeout: time.Minute, Now: clock, HookIdle: 10 * time.Second}), dir, &now
}

// A lock a hook took lives as long as its use: refused to others while in
// use (saying so, and how long is left), never renewed by its session's
// renewals, taken over once idle; an explicit lock is renewed and kept.
func TestHookLockLivesAsLongAsItsUse(t *testing.T) {
	l, dir, now := idleLocker(t)
	ctx := t.Context()
	hook := Claim{Session: "s1", Taken: store.TakenByHook}
	_, err := l.AcquireClaim(ctx, []string{"a.go"}, hook)
	require.NoError(t, err)
	_, err = l.Acquire(ctx, "b.go", "s1")
	require.NoError(t, err)

	*now = now.Add(6 * time.Second)
	_, err = l.AcquireClaim(ctx, []string{"a.go"}, Claim{Session: "s2", Taken: store.TakenByHook})
	var held *HeldError
	require.ErrorAs(t, err, &held)
	assert.Equal(t, store.TakenByHook, held.Taken)
	assert.Equal(t, 4*time.Second, held.Left, "the idle bound's end, before the timeout's")
	renewed, err := l.RenewSession(ctx, "s1")
	require.NoError(t, err)
	require.Len(t, renewed, 1, "only the explicit lock is renewed")
	assert.Equal(t, filepath.Join(dir, "b.go"), renewed[0].Path)

	list, _, err := l.List(ctx)
	require.NoError(t, err)
	taken := map[string]store.Taken{}
	for _, s := range list {
		taken[filepath.Base(s.Path)] = s.Taken
	}
	assert.Equal(t, map[string]store.Taken{"a.go": store.TakenByHook, "b.go": store.TakenExplicit}, taken)

	*now = now.Add(5 * time.Second) // 11s since a.go's last use
	st, err := l.IsLocked(ctx, "a.go")
	require.NoError(t, err)
	assert.True(t, st.Idle && st.Stale && !st.Locked(), "%+v", st)
	chk, err := l.CheckAndWarn(ctx, "a.go", "s2")
	require.NoError(t, err)
	assert.True(t, chk.OK)
	assert.Contains(t, chk.Warning, "idle lock of s1")
	lease, err := l.AcquireClaim(ctx, []string{"a.go"}, Claim{Session: "s2", Taken: store.TakenByHook})
	require.NoError(t, err)
	assert.Equal(t, "s1", lease[0].StaleOwner)
	_, err = l.Acquire(ctx, "b.go", "s2")
	require.ErrorAs(t, err, &held, "the explicit lock stays, renewed")
	assert.Equal(t, "s1", held.Owner)
}

// Each edit the hook lets through is a use: the bound starts again. A
// session's renewal frees its own hook locks once idle; a heartbeat of the
// one path renews it.
func TestHookLockUseAndRenewal(t *testing.T) {
	l, _, now := idleLocker(t)
	ctx := t.Context()
	hook := Claim{Session: "s1", Taken: store.TakenByHook}
	_, err := l.AcquireClaim(ctx, []string{"a.go", "c.go", "d.go"}, hook)
	require.NoError(t, err)
	*now = now.Add(8 * time.Second)
	_, err = l.AcquireClaim(ctx, []string{"a.go"}, hook) // the next edit of a.go
	require.NoError(t, err)
	_, err = l.Heartbeat(ctx, "d.go", "s1")
	require.NoError(t, err)
	*now = now.Add(8 * time.Second) // a.go and d.go used 8s ago, c.go 16s ago

	st, err := l.IsLocked(ctx, "a.go")
	require.NoError(t, err)
	assert.True(t, st.Locked())
	assert.Equal(t, now.Add(-8*time.Second), st.Used)
	require.NoError(t, l.KeepSessionAlive(ctx, "s1"))
	for path, owner := range map[string]string{"a.go": "s1", "c.go": "", "d.go": "s1"} {
		st, err := l.IsLocked(ctx, path)
		require.NoError(t, err)
		assert.Equal(t, owner, st.Owner, path)
	}
}

// Without an idle bound a hook lock lives like any other: renewed with its
// session, never idle.
func TestHookLockWithoutIdleBound(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	now := time.Unix(1_800_000_000, 0)
	l := testLocker(dir, Options{Cwd: dir, Timeout: time.Minute, Now: func() time.Time { return now }})
	ctx := t.Context()
	_, err = l.AcquireClaim(ctx, []string{"a.go"}, Claim{Session: "s1", Taken: store.TakenByHook})
	require.NoError(t, err)
	for range 3 {
		now = now.Add(40 * time.Second)
		renewed, err := l.RenewSession(ctx, "s1")
		require.NoError(t, err)
		require.Len(t, renewed, 1)
	}
	st, err := l.IsLocked(ctx, "a.go")
	require.NoError(t, err)
	assert.True(t, st.Locked() && !st.Idle)
}
