//go:build unix

package filestore

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/store"
)

// A waiter watching a lock hears of its release, however the lock file is
// written (here by a second Locks, as another process would).
func TestWatchReportsWritesToTheWatchedLock(t *testing.T) {
	s, dir := testLocks(t)
	write(t, s, "/p/held", store.Record{Session: "a", Stamp: time.Now(), Path: "/p/held"})

	changes, stop, err := s.Watch(t.Context(), []store.Key{{Path: "/p/held"}})
	require.NoError(t, err)
	defer stop()

	other := otherLocks(dir)
	write(t, other, "/p/held", store.Record{})
	reported(t, changes, "the release of the watched lock was not reported")
}

// A lock file that does not exist yet is watched through its folder: its
// creation (here empty: a free lock) is a change.
func TestWatchSeesALockFileCreated(t *testing.T) {
	s, dir := testLocks(t)
	require.NoError(t, os.MkdirAll(dir, 0o700))
	changes, stop, err := s.Watch(t.Context(), []store.Key{{Path: "/p/new"}})
	require.NoError(t, err)
	defer stop()
	require.NoError(t, os.WriteFile(filepath.Join(dir, LockFileName("/p/new")), nil, 0o644))
	reported(t, changes, "the creation of the watched lock file was not reported")
}

// Only a write that may free the lock wakes a waiter: another waiter
// taking it (or its owner renewing it) writes a record, which cannot free
// it, and waking every waiter for that would double the work of a
// contended lock. The release that follows is reported.
func TestWatchIgnoresWritesThatKeepTheLockHeld(t *testing.T) {
	if testing.Short() {
		t.Skip("waits in real time to see that nothing is reported")
	}
	s, dir := testLocks(t)
	write(t, s, "/p/held", store.Record{Session: "a", Stamp: time.Now(), Path: "/p/held"})
	changes, stop, err := s.Watch(t.Context(), []store.Key{{Path: "/p/held"}})
	require.NoError(t, err)
	defer stop()

	other := otherLocks(dir)
	write(t, other, "/p/held", store.Record{Session: "b", Stamp: time.Now(), Path: "/p/held"})
	quiet(t, changes, "a takeover, which leaves the lock held, was reported")
	write(t, other, "/p/held", store.Record{})
	reported(t, changes, "the release of the watched lock was not reported")
}

// Waiters for one lock queue up: a release wakes only the first in line,
// and when the first stops waiting, the next is told to look at once.
func TestWatchWakesWaitersOneAtATime(t *testing.T) {
	if testing.Short() {
		t.Skip("waits in real time to see that nothing is reported")
	}
	s, dir := testLocks(t)
	write(t, s, "/p/held", store.Record{Session: "a", Stamp: time.Now(), Path: "/p/held"})
	key := []store.Key{{Path: "/p/held"}}
	first, stopFirst, err := s.Watch(t.Context(), key)
	require.NoError(t, err)
	defer stopFirst()
	second, stopSecond, err := s.Watch(t.Context(), key)
	require.NoError(t, err)
	defer stopSecond()

	other := otherLocks(dir)
	write(t, other, "/p/held", store.Record{})
	reported(t, first, "the release was not reported to the first waiter")
	quiet(t, second, "the second waiter was woken while the first was still in line")
	stopFirst()
	reported(t, second, "the second waiter was not told to look when the first left the line")
}

// otherLocks is a second Locks on dir, as another process would open it.
func otherLocks(dir string) *Locks {
	return &Locks{DirFor: func(string) (string, error) { return dir, nil }, ScanDir: dir}
}

// reported fails the test with failure unless changes reports a change
// within a bound far above any notification's delay.
func reported(t *testing.T, changes <-chan struct{}, failure string) {
	t.Helper()
	select {
	case <-changes:
	case <-time.After(10 * time.Second):
		t.Fatal(failure)
	}
}

// quiet fails the test with failure if changes reports a change within
// 300 ms: long enough for a notification to arrive.
func quiet(t *testing.T, changes <-chan struct{}, failure string) {
	t.Helper()
	select {
	case <-changes:
		t.Fatal(failure)
	case <-time.After(300 * time.Millisecond):
	}
}
