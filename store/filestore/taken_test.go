package filestore

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/store"
)

// howTaken reads, in a transaction, how the record of path was taken.
func howTaken(t *testing.T, s *Locks, path string) store.Taken {
	t.Helper()
	var how store.Taken
	require.NoError(t, s.Transact(t.Context(), store.Read, []store.Key{{Path: path}}, func(slots []store.Slot) ([]*store.Record, error) {
		var err error
		how, err = slots[0].HowTaken()
		return nil, err
	}))
	return how
}

func TestHowALockWasTakenIsKeptBesideItsRecord(t *testing.T) {
	s, dir := testLocks(t)
	stamp := time.Unix(1_800_000_000, 0)
	rec := store.Record{Session: "claude-1", Stamp: stamp, Path: "/p/a", Taken: store.TakenByHook}
	write(t, s, "/p/a", rec)
	lock := filepath.Join(dir, LockFileName("/p/a"))
	data, err := os.ReadFile(lock)
	require.NoError(t, err)
	assert.Equal(t, "claude-1|1800000000.000000|/p/a", string(data), "the record is agent-registry 0.2's, byte for byte")
	note, err := os.ReadFile(lock + ".taken")
	require.NoError(t, err)
	assert.Equal(t, "claude-1|hook", string(note))
	assert.Equal(t, store.TakenByHook, howTaken(t, s, "/p/a"))

	rec.Taken = store.TakenUnknown // a renewal: the note stays
	rec.Stamp = stamp.Add(time.Second)
	write(t, s, "/p/a", rec)
	assert.Equal(t, store.TakenByHook, howTaken(t, s, "/p/a"))

	rec.Taken = store.TakenExplicit
	write(t, s, "/p/a", rec)
	assert.Equal(t, store.TakenExplicit, howTaken(t, s, "/p/a"))

	slots, err := s.Scan(t.Context())
	require.NoError(t, err)
	require.Len(t, slots, 1)
	how, err := slots[0].HowTaken()
	require.NoError(t, err)
	assert.Equal(t, store.TakenExplicit, how, "a scan's record reads its note")
	rec.Stamp = stamp.Add(2 * time.Second)
	write(t, s, "/p/a", rec)
	how, err = slots[0].HowTaken()
	require.NoError(t, err)
	assert.Equal(t, store.TakenUnknown, how, "the record changed since the scan: not the scan's record")

	// Another session's record (agent-registry 0.2 writes no note): the
	// note names the old owner, so it says nothing of this one.
	require.NoError(t, os.WriteFile(lock, []byte("py-1|1800000000.000000|/p/a"), 0o644))
	assert.Equal(t, store.TakenUnknown, howTaken(t, s, "/p/a"))

	write(t, s, "/p/a", store.Record{})
	note, err = os.ReadFile(lock + ".taken")
	require.NoError(t, err)
	assert.Empty(t, note, "a release empties the note")
	assert.Equal(t, store.TakenUnknown, howTaken(t, s, "/p/a"))
}

func TestANoteThatIsNotAgentlocksIsRefused(t *testing.T) {
	s, dir := testLocks(t)
	write(t, s, "/p/a", store.Record{Session: "s", Stamp: time.Now(), Path: "/p/a", Taken: store.TakenByHook})
	note := filepath.Join(dir, LockFileName("/p/a")) + ".taken"
	victim := filepath.Join(t.TempDir(), "victim")
	require.NoError(t, os.WriteFile(victim, []byte("keep"), 0o644))
	require.NoError(t, os.Remove(note))
	require.NoError(t, os.Symlink(victim, note))
	err := s.Transact(t.Context(), store.Create, []store.Key{{Path: "/p/a"}}, func([]store.Slot) ([]*store.Record, error) {
		return []*store.Record{{Session: "s", Stamp: time.Now(), Path: "/p/a", Taken: store.TakenExplicit}}, nil
	})
	assert.ErrorContains(t, err, "symbolic link")
	data, err := os.ReadFile(victim)
	require.NoError(t, err)
	assert.Equal(t, "keep", string(data), "nothing is written through a link")
}

func TestTakenFileNames(t *testing.T) {
	assert.True(t, IsTakenFileName(TakenFileName(LockFileName("/p/a"))))
	assert.False(t, IsTakenFileName("x.taken"))
	assert.False(t, IsTakenFileName(LockFileName("/p/a")))
}
