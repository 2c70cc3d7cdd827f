package filestore

import (
	"context"
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
	changes, fsnotifying := watchDirs(ctx, []string{dir}, time.Hour)
	require.True(t, fsnotifying)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.lock"), []byte("s|1|/p"), 0o644))
	select {
	case <-changes:
	case <-time.After(5 * time.Second):
		t.Fatal("no change reported for a write")
	}

	polled, fsnotifying := watchDirs(ctx, []string{filepath.Join(dir, "missing")}, 10*time.Millisecond)
	assert.False(t, fsnotifying)
	select {
	case <-polled:
	case <-time.After(5 * time.Second):
		t.Fatal("no poll")
	}
}
