package dashboard

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A write in a watched folder is reported; a folder that cannot be
// watched (it does not exist yet) falls back to polling.
func TestWatchReportsChangesOrPolls(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for file-system events in real time")
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	changes, fsnotifying := Watch(ctx, []string{dir}, time.Hour)
	require.True(t, fsnotifying)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.lock"), []byte("s|1|/p"), 0o644))
	select {
	case <-changes:
	case <-time.After(5 * time.Second):
		t.Fatal("no change reported for a write")
	}

	polled, fsnotifying := Watch(ctx, []string{filepath.Join(dir, "missing")}, 10*time.Millisecond)
	assert.False(t, fsnotifying)
	select {
	case <-polled:
	case <-time.After(5 * time.Second):
		t.Fatal("no poll")
	}
}

// A stream that falls behind is never cut: past maxPending frames its
// queue becomes one resync marker, and it goes on receiving after it.
func TestSlowStreamGetsResyncNotCut(t *testing.T) {
	srv := newFixture(t, Options{}).srv
	sub, stop := srv.subscribe()
	defer stop()
	srv.mu.Lock()
	for range maxPending + 10 {
		sub.push([][]byte{sseFrame("lock", Event{Kind: "event"})})
	}
	srv.mu.Unlock()
	frames := srv.nextFrames(sub)
	require.Len(t, frames, 1)
	assert.Contains(t, string(frames[0]), "event: resync")
	assert.Contains(t, string(frames[0]), fmt.Sprintf(`"dropped":%d`, maxPending+10))
	srv.mu.Lock()
	_, subscribed := srv.subs[sub]
	sub.push([][]byte{sseFrame("change", map[string]any{"kind": "change"})})
	srv.mu.Unlock()
	assert.True(t, subscribed, "still subscribed")
	frames = srv.nextFrames(sub)
	require.Len(t, frames, 1)
	assert.Contains(t, string(frames[0]), "event: change", "frames flow again after the resync")
}

// A workspace on lock files has no change feed: Changes watches the
// folders it is given.
func TestChangesWatchesTheFoldersOfLockFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for file-system events in real time")
	}
	f := newFixture(t, Options{})
	_, fed, err := f.ws.Changes(t.Context())
	require.NoError(t, err)
	require.False(t, fed, "lock files have no feed")
	changes := Changes(t.Context(), f.ws, []string{f.ws.LockDir}, time.Hour)
	_, _, err = f.ws.Acquire(t.Context(), []string{filepath.Join(f.root, "src", "a.go")}, "s-1")
	require.NoError(t, err)
	select {
	case <-changes:
	case <-time.After(5 * time.Second):
		t.Fatal("no change reported for an acquire")
	}
}
