//go:build unix

package filestore

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/agentlock/agentlock/store"
)

// An flock held elsewhere (here: another open file description of the
// same file) makes every operation fail after Wait with a BusyError naming
// the file, for readers, writers and documents alike.
func TestFlockWaitIsBounded(t *testing.T) {
	s, dir := testLocks(t)
	s.Wait = 100 * time.Millisecond
	key := store.Key{Path: "/p/a"}
	free := func([]store.Slot) ([]*store.Record, error) { return []*store.Record{nil}, nil }
	held := func([]store.Slot) ([]*store.Record, error) {
		return []*store.Record{{Session: "a", Stamp: time.Now(), Path: "/p/a"}}, nil
	}
	require.NoError(t, s.Transact(t.Context(), store.Create, []store.Key{key}, held))
	lockFile := filepath.Join(dir, LockFileName("/p/a"))
	holder, err := os.OpenFile(lockFile, os.O_RDWR, 0)
	require.NoError(t, err)
	defer holder.Close()
	require.NoError(t, unix.Flock(int(holder.Fd()), unix.LOCK_EX))

	for _, mode := range []store.Mode{store.Read, store.Update, store.Create} {
		start := time.Now()
		err := s.Transact(t.Context(), mode, []store.Key{key}, free)
		took := time.Since(start)
		require.ErrorIs(t, err, store.ErrBusy, "mode %d", mode)
		assert.Contains(t, err.Error(), lockFile)
		// It waited the bound (a floor no load can break), and says so;
		// how much longer a busy machine made it is no assertion.
		assert.GreaterOrEqual(t, took, s.Wait)
		var busy *store.BusyError
		require.ErrorAs(t, err, &busy)
		assert.Equal(t, s.Wait, busy.Waited)
	}
	slots, err := s.Scan(t.Context())
	require.NoError(t, err)
	require.Len(t, slots, 1)
	assert.ErrorIs(t, slots[0].Err, store.ErrBusy)

	// An empty lock file is a free lock, known from its status alone: a
	// scan does not wait for it (the holder of its flock has written
	// nothing yet; the scan is as if it came just before).
	other := store.Key{Path: "/p/b"}
	require.NoError(t, s.Transact(t.Context(), store.Create, []store.Key{other}, free))
	second, err := os.OpenFile(filepath.Join(dir, LockFileName("/p/b")), os.O_RDWR, 0)
	require.NoError(t, err)
	defer second.Close()
	require.NoError(t, unix.Flock(int(second.Fd()), unix.LOCK_EX))
	slots, err = s.Scan(t.Context())
	require.NoError(t, err)
	require.Len(t, slots, 2)
	for _, slot := range slots {
		if slot.Key.Ref == second.Name() {
			assert.NoError(t, slot.Err)
			assert.True(t, slot.Record.Free())
		}
	}

	doc := &Document{Path: filepath.Join(t.TempDir(), "registry.md"), Wait: 100 * time.Millisecond}
	require.NoError(t, doc.Edit(t.Context(), func([]byte) ([]byte, error) { return []byte("x"), nil }))
	side, err := os.OpenFile(doc.lockPath(), os.O_RDWR, 0)
	require.NoError(t, err)
	defer side.Close()
	require.NoError(t, unix.Flock(int(side.Fd()), unix.LOCK_EX))
	err = doc.Edit(t.Context(), func([]byte) ([]byte, error) { return []byte("y"), nil })
	require.ErrorIs(t, err, store.ErrBusy)

	// Released, everything works at once.
	require.NoError(t, unix.Flock(int(holder.Fd()), unix.LOCK_UN))
	require.NoError(t, s.Transact(t.Context(), store.Read, []store.Key{key}, free))
}

func TestHardLinkedLockFileRefused(t *testing.T) {
	s, dir := testLocks(t)
	require.NoError(t, os.MkdirAll(dir, 0o700))
	victim := filepath.Join(t.TempDir(), "victim")
	require.NoError(t, os.WriteFile(victim, []byte("precious"), 0o644))
	require.NoError(t, os.Link(victim, filepath.Join(dir, LockFileName("/p/a"))))
	empty := func([]store.Slot) ([]*store.Record, error) { return []*store.Record{{}}, nil }
	for _, mode := range []store.Mode{store.Read, store.Update, store.Create} {
		err := s.Transact(t.Context(), mode, []store.Key{{Path: "/p/a"}}, empty)
		require.ErrorContains(t, err, "hard links", "mode %d", mode)
	}
	slots, err := s.Scan(t.Context())
	require.NoError(t, err)
	require.Len(t, slots, 1)
	assert.ErrorContains(t, slots[0].Err, "hard links")
	data, err := os.ReadFile(victim)
	require.NoError(t, err)
	assert.Equal(t, "precious", string(data))
}

// Slot.Written is the lock file's modification time, for the engine to
// judge a record it cannot decode.
func TestSlotsSayWhenWritten(t *testing.T) {
	s, dir := testLocks(t)
	require.NoError(t, os.MkdirAll(dir, 0o700))
	file := filepath.Join(dir, LockFileName("/p/a"))
	require.NoError(t, os.WriteFile(file, []byte("torn|x"), 0o644))
	at := time.Now().Add(-time.Hour).Truncate(time.Second)
	require.NoError(t, os.Chtimes(file, at, at))
	err := s.Transact(t.Context(), store.Read, []store.Key{{Path: "/p/a"}}, func(slots []store.Slot) ([]*store.Record, error) {
		assert.ErrorIs(t, slots[0].Err, store.ErrCorrupt)
		assert.True(t, slots[0].Written.Equal(at), "written %s, want %s", slots[0].Written, at)
		return nil, nil
	})
	require.NoError(t, err)
}

// A queue of writers that each hold registry.md's lock for a moment is
// progress, not a hang: a writer waiting longer than Wait in total, while
// the others keep changing the document, still gets its turn. A holder that
// changes nothing for a whole Wait is still reported busy.
func TestDocumentWaitsThroughAQueueOfWriters(t *testing.T) {
	// Wait is 50 times the writers' period, so that a loaded machine (the
	// race detector on two busy cores) does not starve the writers for a
	// whole Wait and turn progress into a false "busy".
	doc := &Document{Path: filepath.Join(t.TempDir(), "registry.md"), Wait: time.Second}
	require.NoError(t, doc.Edit(t.Context(), func([]byte) ([]byte, error) { return []byte("v0"), nil }))
	side, err := os.OpenFile(doc.lockPath(), os.O_RDWR, 0)
	require.NoError(t, err)
	defer side.Close()
	require.NoError(t, unix.Flock(int(side.Fd()), unix.LOCK_EX))

	// The "other writers": while the lock is held, the document changes
	// every 20ms for three Waits, then the lock is let go.
	done := make(chan struct{})
	go func() {
		defer close(done)
		for i := range 150 {
			time.Sleep(20 * time.Millisecond)
			tmp := doc.Path + ".next"
			if os.WriteFile(tmp, []byte{byte('a' + i%26)}, 0o644) != nil || os.Rename(tmp, doc.Path) != nil {
				return
			}
		}
		unix.Flock(int(side.Fd()), unix.LOCK_UN)
	}()
	err = doc.Edit(t.Context(), func([]byte) ([]byte, error) { return []byte("mine"), nil })
	<-done
	require.NoError(t, err, "a writer behind a moving queue gets its turn")
	data, err := doc.Read(t.Context())
	require.NoError(t, err)
	require.Equal(t, "mine", string(data))

	// A stuck holder: nothing changes, so the wait ends busy.
	require.NoError(t, unix.Flock(int(side.Fd()), unix.LOCK_EX))
	err = doc.Edit(t.Context(), func([]byte) ([]byte, error) { return []byte("never"), nil })
	require.ErrorIs(t, err, store.ErrBusy)
}

// A wait for another process's flock also ends when the caller's context
// is done: with a bound far longer than the test, the operations fail with
// the context's error, not a BusyError, and write nothing.
func TestFlockWaitStopsWithTheContext(t *testing.T) {
	s, dir := testLocks(t)
	s.Wait = 5 * time.Minute
	key := store.Key{Path: "/p/a"}
	take := func(session string) store.Decide {
		return func([]store.Slot) ([]*store.Record, error) {
			return []*store.Record{{Session: session, Stamp: time.Now(), Path: "/p/a"}}, nil
		}
	}
	require.NoError(t, s.Transact(t.Context(), store.Create, []store.Key{key}, take("a")))
	holder, err := os.OpenFile(filepath.Join(dir, LockFileName("/p/a")), os.O_RDWR, 0)
	require.NoError(t, err)
	defer holder.Close()
	require.NoError(t, unix.Flock(int(holder.Fd()), unix.LOCK_EX))

	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(50*time.Millisecond, cancel)
	for _, mode := range []store.Mode{store.Read, store.Update, store.Create} {
		err := s.Transact(ctx, mode, []store.Key{key}, take("b"))
		require.ErrorIs(t, err, context.Canceled, "mode %d", mode)
		assert.NotErrorIs(t, err, store.ErrBusy)
	}
	slots, err := s.Scan(ctx)
	require.NoError(t, err)
	require.Len(t, slots, 1)
	assert.ErrorIs(t, slots[0].Err, context.Canceled)

	doc := &Document{Path: filepath.Join(t.TempDir(), "registry.md"), Wait: 5 * time.Minute}
	require.NoError(t, doc.Edit(t.Context(), func([]byte) ([]byte, error) { return []byte("x"), nil }))
	side, err := os.OpenFile(doc.lockPath(), os.O_RDWR, 0)
	require.NoError(t, err)
	defer side.Close()
	require.NoError(t, unix.Flock(int(side.Fd()), unix.LOCK_EX))
	err = doc.Edit(ctx, func([]byte) ([]byte, error) { return []byte("y"), nil })
	require.ErrorIs(t, err, context.Canceled)
	data, err := doc.Read(t.Context())
	require.NoError(t, err)
	assert.Equal(t, "x", string(data))

	require.NoError(t, unix.Flock(int(holder.Fd()), unix.LOCK_UN))
	require.NoError(t, s.Transact(t.Context(), store.Read, []store.Key{key}, func(slots []store.Slot) ([]*store.Record, error) {
		assert.Equal(t, "a", slots[0].Record.Session, "the cancelled writes wrote nothing")
		return nil, nil
	}))
}
