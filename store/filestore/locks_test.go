package filestore

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/store"
)

func testLocks(t *testing.T) (*Locks, string) {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "locks")
	return &Locks{DirFor: func(string) (string, error) { return dir, nil }, ScanDir: dir}, dir
}

// write stores rec for path in Create mode.
func write(t *testing.T, s *Locks, path string, rec store.Record) {
	t.Helper()
	require.NoError(t, s.Transact(t.Context(), store.Create, []store.Key{{Path: path}}, func(slots []store.Slot) ([]*store.Record, error) {
		return []*store.Record{&rec}, nil
	}))
}

func TestTransactReadAndUpdateCreateNothing(t *testing.T) {
	s, dir := testLocks(t)
	for _, mode := range []store.Mode{store.Read, store.Update} {
		var seen []store.Slot
		err := s.Transact(t.Context(), mode, []store.Key{{Path: "/p/a"}}, func(slots []store.Slot) ([]*store.Record, error) {
			seen = slots
			return []*store.Record{{}}, nil // freeing a missing record changes nothing
		})
		require.NoError(t, err, "mode %d", mode)
		require.Len(t, seen, 1)
		assert.True(t, seen[0].Record.Free())
		assert.Equal(t, filepath.Join(dir, LockFileName("/p/a")), seen[0].Key.Ref)
	}
	_, err := os.Stat(dir)
	assert.True(t, os.IsNotExist(err), "no lock folder was created")

	err = s.Transact(t.Context(), store.Update, []store.Key{{Path: "/p/a"}}, func([]store.Slot) ([]*store.Record, error) {
		return []*store.Record{{Session: "s", Stamp: time.Now(), Path: "/p/a"}}, nil
	})
	assert.ErrorContains(t, err, "does not exist", "update mode cannot create a lock")
}

func TestTransactWritesInPlaceAndScanReadsBack(t *testing.T) {
	s, dir := testLocks(t)
	stamp := time.Unix(1_800_000_000, 250_000_000)
	write(t, s, "/p/a", store.Record{Session: "s1", Stamp: stamp, Path: "/p/a"})
	file := filepath.Join(dir, LockFileName("/p/a"))
	before, err := os.Stat(file)
	require.NoError(t, err)
	write(t, s, "/p/a", store.Record{})
	after, err := os.Stat(file)
	require.NoError(t, err)
	assert.True(t, os.SameFile(before, after), "the lock file is emptied in place, never replaced")
	assert.Zero(t, after.Size())

	write(t, s, "/p/b", store.Record{Session: "s2", Stamp: stamp, Path: "/p/b"})
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "0000000000000000.lock"), []byte("garbage"), 0o644))
	slots, err := s.Scan(t.Context())
	require.NoError(t, err)
	byRef := map[string]store.Slot{}
	for _, sl := range slots {
		byRef[filepath.Base(sl.Key.Ref)] = sl
	}
	assert.Len(t, byRef, 3, "only *.lock files are scanned")
	b := byRef[LockFileName("/p/b")]
	assert.Equal(t, "s2", b.Record.Session)
	assert.Equal(t, "/p/b", b.Key.Path, "a scan learns the path from the record")
	assert.True(t, stamp.Equal(b.Record.Stamp))
	assert.ErrorIs(t, byRef["0000000000000000.lock"].Err, store.ErrCorrupt)
}

func TestTransactRefusesKeysOfOneRecord(t *testing.T) {
	s, dir := testLocks(t)
	ref := filepath.Join(dir, LockFileName("/p/a"))
	err := s.Transact(t.Context(), store.Read, []store.Key{{Path: "/p/a"}, {Ref: ref}}, func([]store.Slot) ([]*store.Record, error) {
		t.Fatal("decide called")
		return nil, nil
	})
	assert.ErrorContains(t, err, "same lock file")
}

func TestRecordOfAnotherPathIsCorrupt(t *testing.T) {
	s, dir := testLocks(t)
	require.NoError(t, os.MkdirAll(dir, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(dir, LockFileName("/p/a")), []byte("s|1800000000|/p/other"), 0o644))
	err := s.Transact(t.Context(), store.Read, []store.Key{{Path: "/p/a"}}, func(slots []store.Slot) ([]*store.Record, error) {
		assert.ErrorIs(t, slots[0].Err, store.ErrCorrupt)
		assert.ErrorContains(t, slots[0].Err, "records path /p/other")
		return nil, nil
	})
	require.NoError(t, err)
}

func TestDocumentEditKeepsPermissionsAndSkipsNil(t *testing.T) {
	path := filepath.Join(t.TempDir(), "home", "registry.md")
	d := &Document{Path: path}
	old, err := d.Read(t.Context())
	require.NoError(t, err)
	assert.Nil(t, old, "a missing document reads as nil")
	require.NoError(t, d.Edit(t.Context(), func(old []byte) ([]byte, error) { return []byte{}, nil }))
	old, err = d.Read(t.Context())
	require.NoError(t, err)
	assert.NotNil(t, old, "an empty document exists")
	require.NoError(t, os.Chmod(path, 0o600))
	require.NoError(t, d.Edit(t.Context(), func(old []byte) ([]byte, error) { return []byte("v2"), nil }))
	require.NoError(t, d.Edit(t.Context(), func(old []byte) ([]byte, error) { return nil, nil }))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "v2", string(data))
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	_, err = os.Stat(path + ".lock")
	assert.NoError(t, err, "edits are serialised by the sidecar lock file")
}

// A real path ending in a line break is stored and read back byte for
// byte; a line break that a person added after a 0.2 record's path is not
// part of the path.
func TestPathsAreByteExact(t *testing.T) {
	s, dir := testLocks(t)
	stamp := time.Unix(1_800_000_000, 0)
	for _, p := range []string{"/p/newline\n", "/p/crlf\r\n"} {
		write(t, s, p, store.Record{Session: "s1", Stamp: stamp, Path: p})
		data, err := os.ReadFile(filepath.Join(dir, LockFileName(p)))
		require.NoError(t, err)
		assert.Equal(t, "s1|1800000000.000000|"+p, string(data))
		var got store.Slot
		require.NoError(t, s.Transact(t.Context(), store.Read, []store.Key{{Path: p}}, func(slots []store.Slot) ([]*store.Record, error) {
			got = slots[0]
			return nil, nil
		}))
		require.NoError(t, got.Err, "%q is not corrupt", p)
		assert.Equal(t, p, got.Record.Path)
	}
	// 0.2's format, edited by hand: "sid|ts|path\n".
	require.NoError(t, os.WriteFile(filepath.Join(dir, LockFileName("/p/hand")), []byte("claude 1|1800000000.5|/p/hand\n"), 0o644))
	slots, err := s.Scan(t.Context())
	require.NoError(t, err)
	paths := map[string]string{}
	for _, slot := range slots {
		require.NoError(t, slot.Err)
		paths[slot.Record.Path] = slot.Record.Session
	}
	assert.Equal(t, map[string]string{"/p/newline\n": "s1", "/p/crlf\r\n": "s1", "/p/hand": "claude 1"}, paths)
	require.NoError(t, s.Transact(t.Context(), store.Read, []store.Key{{Path: "/p/hand"}}, func(slots []store.Slot) ([]*store.Record, error) {
		assert.NoError(t, slots[0].Err)
		assert.Equal(t, "/p/hand", slots[0].Record.Path)
		return nil, nil
	}))
}

// A folder large enough to be read by several goroutines returns every
// lock file once, each with its own record or error.
func TestScanOfALargeFolderReadsEveryFileOnce(t *testing.T) {
	s, dir := testLocks(t)
	require.NoError(t, os.MkdirAll(dir, 0o700))
	const n = 5 * scanChunk
	want := map[string]string{} // lock file -> owner ("" free, "!" corrupt)
	for i := range n {
		p := fmt.Sprintf("/p/f%04d", i)
		var content, owner string
		switch i % 3 {
		case 0:
		case 1:
			owner = fmt.Sprintf("s%d", i)
			content = fmt.Sprintf("%s|1700000000.5|%s", owner, p)
		case 2:
			owner, content = "!", "damaged"
		}
		ref := filepath.Join(dir, LockFileName(p))
		require.NoError(t, os.WriteFile(ref, []byte(content), 0o644))
		want[ref] = owner
	}
	slots, err := s.Scan(t.Context())
	require.NoError(t, err)
	got := map[string]string{}
	for _, slot := range slots {
		_, dup := got[slot.Key.Ref]
		require.False(t, dup, "%s listed twice", slot.Key.Ref)
		got[slot.Key.Ref] = slot.Record.Session
		if slot.Err != nil {
			require.ErrorIs(t, slot.Err, store.ErrCorrupt)
			got[slot.Key.Ref] = "!"
		}
	}
	assert.Equal(t, want, got)
}
