package audit

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/sys/flock"
	"github.com/agentlock/agentlock/store"
)

// The log is bounded: past MaxBytes it rotates, Keep older files are kept
// and the oldest dropped; Read returns what is kept, oldest first, and Tail
// the end of the current file.
func TestLogRotatesAndStaysBounded(t *testing.T) {
	home := t.TempDir()
	l := &Log{Path: filepath.Join(home, FileName), MaxBytes: 2048, Keep: 2}
	for i := range 500 {
		require.NoError(t, l.Append(Entry{Action: ActionTakeover, Path: fmt.Sprintf("/p/%03d", i), SessionID: "s", Who: "s", PreviousOwner: "old"}))
	}
	var total int64
	files, err := filepath.Glob(l.Path + "*")
	require.NoError(t, err)
	for _, f := range files {
		if filepath.Ext(f) == ".lock" {
			continue
		}
		info, err := os.Stat(f)
		require.NoError(t, err)
		total += info.Size()
	}
	assert.LessOrEqual(t, total, int64(3*(2048+200)), "at most Keep+1 files of about MaxBytes: %v", files)
	assert.NoFileExists(t, l.Path+".3", "only Keep rotated files")
	entries, bad, err := l.Read()
	require.NoError(t, err)
	assert.Zero(t, bad)
	require.NotEmpty(t, entries)
	assert.Equal(t, "/p/499", entries[len(entries)-1].Path, "the newest entry last")
	for i := 1; i < len(entries); i++ {
		assert.Less(t, entries[i-1].Path, entries[i].Path, "oldest first, none lost inside what is kept")
	}
	tail, err := l.Tail(3)
	require.NoError(t, err)
	require.Len(t, tail, 3)
	assert.Equal(t, "/p/499", tail[2].Path)
	_, err = time.Parse(time.RFC3339Nano, tail[2].Time)
	assert.NoError(t, err, "stamped")
	assert.Equal(t, "audit", tail[2].Kind)
}

// A torn line (a process killed mid-write) is skipped and counted; a home
// that does not exist gets no log.
func TestLogSkipsTornLinesAndMissingHomes(t *testing.T) {
	home := t.TempDir()
	l := In(home)
	require.NoError(t, l.Append(Entry{Action: ActionFinish, SessionID: "a", Who: "a"}))
	f, err := os.OpenFile(l.Path, os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(`{"kind":"audit","time":"2026-`)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	require.NoError(t, l.Append(Entry{Action: ActionFinish, SessionID: "b", Who: "b"}))
	entries, bad, err := l.Read()
	require.NoError(t, err)
	require.Len(t, entries, 2, "the entry after a torn line is kept")
	assert.Equal(t, "b", entries[1].SessionID)
	assert.Equal(t, 1, bad)

	gone := In(filepath.Join(home, "missing"))
	require.NoError(t, gone.Append(Entry{Action: ActionFinish}))
	assert.NoDirExists(t, filepath.Join(home, "missing"))
}

// A rotation waits for another process's boundedly: a holder stuck inside
// its rotation makes Append fail with a *store.BusyError naming the lock,
// never hang; once it is gone, the log rotates.
func TestLogRotationWaitIsBounded(t *testing.T) {
	if !flock.Supported {
		t.Skip("no flock on this system: rotations are not serialised")
	}
	home := t.TempDir()
	l := &Log{Path: filepath.Join(home, FileName), MaxBytes: 10, Wait: 30 * time.Millisecond}
	require.NoError(t, l.Append(Entry{Action: ActionFinish, SessionID: "s", Who: "s"}))
	stuck, err := os.OpenFile(l.Path+".lock", os.O_RDWR|os.O_CREATE, 0o644)
	require.NoError(t, err)
	defer stuck.Close()
	held, err := flock.TryLock(int(stuck.Fd()), stuck.Name(), flock.Exclusive)
	require.NoError(t, err)
	require.True(t, held)

	err = l.Append(Entry{Action: ActionFinish, SessionID: "s", Who: "s"})
	var busy *store.BusyError
	require.ErrorAs(t, err, &busy)
	assert.Equal(t, l.Path+".lock", busy.Ref)
	assert.NoFileExists(t, l.Path+".1", "not rotated while another process rotates")

	require.NoError(t, stuck.Close())
	require.NoError(t, l.Append(Entry{Action: ActionFinish, SessionID: "s", Who: "s"}))
	assert.FileExists(t, l.Path+".1")
}
