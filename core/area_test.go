package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/store"
	"github.com/agentlock/agentlock/store/filestore"
)

// areaLocker is a Locker on a fresh lock folder, paths taken from a
// project folder beside it, and the project folder.
func areaLocker(t *testing.T) (*Locker, string, string) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	project, locks := filepath.Join(root, "p"), filepath.Join(root, "locks")
	require.NoError(t, os.MkdirAll(filepath.Join(project, "src/auth"), 0o755))
	l := NewLocker(&filestore.Locks{DirFor: func(string) (string, error) { return locks, nil }, ScanDir: locks}, Options{Cwd: project})
	return l, project, locks
}

func TestAreaCoversPathsBelowIt(t *testing.T) {
	l, project, _ := areaLocker(t)
	lease, err := l.Acquire(t.Context(), "src/auth", "s1") // an existing folder: an area
	require.NoError(t, err)
	area := filepath.Join(project, "src/auth") + "/"
	assert.Equal(t, area, lease.Path)

	_, err = l.Acquire(t.Context(), "src/auth/deep/f.go", "s2")
	var held *HeldError
	require.ErrorAs(t, err, &held)
	assert.Equal(t, area, held.Via)
	assert.Equal(t, "s1", held.Owner)
	assert.Contains(t, err.Error(), "inside area "+area+" held by s1")

	s, err := l.IsLocked(t.Context(), "src/auth/deep/f.go")
	require.NoError(t, err)
	assert.True(t, s.Locked())
	assert.Equal(t, "s1", s.Owner)
	assert.Equal(t, area, s.Via)

	_, err = l.Acquire(t.Context(), "src/auth/deep/f.go", "s1")
	require.NoError(t, err, "inside its own area")
	_, err = l.Acquire(t.Context(), "src/", "s2")
	require.ErrorAs(t, err, &held)
	assert.Equal(t, filepath.Join(project, "src")+"/", held.Path)

	_, err = l.Acquire(t.Context(), "src/main.go", "s2")
	require.NoError(t, err, "beside the area")

	_, err = l.Release(t.Context(), "src/auth/", "s1")
	require.NoError(t, err)
	_, err = l.Acquire(t.Context(), "src/auth/other.go", "s2")
	require.NoError(t, err, "a released area covers nothing")
}

func TestAreaTakesOverStaleLocksBelowIt(t *testing.T) {
	l, project, locks := areaLocker(t)
	below := filepath.Join(project, "src/auth/f.go")
	stamp := float64(time.Now().Add(-time.Hour).UnixMicro()) / 1e6
	require.NoError(t, os.MkdirAll(locks, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(locks, filestore.LockFileName(below)), fmt.Appendf(nil, "crashed|%.6f|%s", stamp, below), 0o644))
	_, err := l.Acquire(t.Context(), "src/auth/", "s1")
	require.NoError(t, err)
	s, err := l.IsLocked(t.Context(), below)
	require.NoError(t, err)
	assert.Equal(t, "s1", s.Owner, "the stale lock below was freed; the area covers the path")
	assert.NotEmpty(t, s.Via)
	// Its owner cannot renew it any more.
	_, err = l.Heartbeat(t.Context(), below, "crashed")
	assert.ErrorIs(t, err, ErrNoLock)
}

// noAreas is a lock store that cannot hold areas.
type noAreas struct{ store.Locks }

func TestAreaRefusedByAStoreWithoutAreas(t *testing.T) {
	l, _, locks := areaLocker(t)
	plain := NewLocker(noAreas{&filestore.Locks{DirFor: func(string) (string, error) { return locks, nil }, ScanDir: locks}}, Options{Cwd: l.cwd})
	_, err := plain.Acquire(t.Context(), "src/auth/", "s1")
	assert.ErrorIs(t, err, ErrNoAreas)
	_, err = plain.Acquire(t.Context(), "src/auth/f.go", "s1")
	assert.NoError(t, err, "files work as before")
}

func TestWaitForAPathInsideAnAreaEndsWithItsRelease(t *testing.T) {
	if testing.Short() {
		t.Skip("waits in real time")
	}
	l, _, _ := areaLocker(t)
	_, err := l.Acquire(t.Context(), "src/auth/", "s1")
	require.NoError(t, err)
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_, err := l.AcquireAllWait(ctx, []string{"src/auth/f.go"}, "s2")
		done <- err
	}()
	time.Sleep(100 * time.Millisecond)
	_, err = l.Release(t.Context(), "src/auth/", "s1")
	require.NoError(t, err)
	select {
	case err := <-done:
		require.NoError(t, err)
	case <-time.After(5 * time.Second):
		t.Fatal(errors.New("the waiter was not woken by the area's release"))
	}
}

// deadlineStore is a lock store whose every operation made with a
// deadline lasts until the deadline, then fails with it: a store that
// bounds its requests by the caller's deadline, caught by it mid-request.
type deadlineStore struct{ store.Locks }

func (d deadlineStore) Transact(ctx context.Context, mode store.Mode, keys []store.Key, decide store.Decide) error {
	if _, ok := ctx.Deadline(); ok {
		<-ctx.Done()
		return ctx.Err()
	}
	return d.Locks.Transact(ctx, mode, keys, decide)
}

// The end of a wait ends the waiting, never an attempt: a wait that times
// out reports who holds the path, not the store error of an attempt its
// deadline cut short.
func TestWaitEndsWithTheRefusalNotAStoreError(t *testing.T) {
	l, _, locks := areaLocker(t)
	_, err := l.Acquire(t.Context(), "src/x.go", "holder")
	require.NoError(t, err)
	w := NewLocker(deadlineStore{&filestore.Locks{DirFor: func(string) (string, error) { return locks, nil }, ScanDir: locks}}, Options{Cwd: l.cwd})
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	_, err = w.AcquireAllWait(ctx, []string{"src/x.go"}, "waiter")
	var held *HeldError
	require.ErrorAs(t, err, &held)
	assert.Equal(t, "holder", held.Owner)
}

func TestHeldBySaysHowThePathIsHeld(t *testing.T) {
	assert.Equal(t, "/p/a.go is locked by s1", HeldBy("/p/a.go", "", "s1"))
	assert.Equal(t, "/p/src/a.go is inside area /p/src/ held by s1", HeldBy("/p/src/a.go", "/p/src/", "s1"))
	assert.Equal(t, "area /p/src/ overlaps /p/src/a.go held by s1", HeldBy("/p/src/", "/p/src/a.go", "s1"))
	assert.Equal(t, "src/a.go is inside area /p/src/ held by session s1", HeldByAs("src/a.go", "/p/src/a.go", "/p/src/", "session s1"))
}

func TestHeldErrorSaysHeldByAsEveryOtherMessage(t *testing.T) {
	for _, e := range []*HeldError{
		{Path: "/p/a.go", Owner: "s1", Age: time.Second, Left: time.Minute},
		{Path: "/p/src/a.go", Owner: "s1", Via: "/p/src/", Age: time.Second, Left: time.Minute},
		{Path: "/p/src/", Owner: "s1", Via: "/p/src/a.go", Age: time.Second, Left: time.Minute},
	} {
		assert.Equal(t, HeldBy(e.Path, e.Via, e.Owner)+" (renewed 1s ago, expires in 1m0s)", e.Error())
	}
}
