//go:build unix

package filestore

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/store"
)

// A waiter watching a lock hears of its release, however the lock file is
// written (here by a second Locks, as another process would).
func TestWatchReportsWritesToTheWatchedLock(t *testing.T) {
	s, dir := testLocks(t)
	write(t, s, "/p/held", store.Record{Session: "a", Stamp: time.Now(), Path: "/p/held"})

	changes, stop, err := s.Watch([]store.Key{{Path: "/p/held"}})
	require.NoError(t, err)
	defer stop()

	other := &Locks{DirFor: func(string) (string, error) { return dir, nil }, ScanDir: dir}
	write(t, other, "/p/held", store.Record{})
	select {
	case <-changes:
	case <-time.After(10 * time.Second):
		t.Fatal("the release of the watched lock was not reported")
	}
}

// A lock file that does not exist yet is watched through its folder: its
// creation is a change.
func TestWatchSeesALockFileCreated(t *testing.T) {
	s, dir := testLocks(t)
	require.NoError(t, os.MkdirAll(dir, 0o700))
	changes, stop, err := s.Watch([]store.Key{{Path: "/p/new"}})
	require.NoError(t, err)
	defer stop()
	require.NoError(t, os.WriteFile(filepath.Join(dir, LockFileName("/p/new")), []byte("x|1|/p/new"), 0o644))
	select {
	case <-changes:
	case <-time.After(10 * time.Second):
		t.Fatal("the creation of the watched lock file was not reported")
	}
}
