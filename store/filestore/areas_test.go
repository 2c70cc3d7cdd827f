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

// A stale record that an area transaction frees, renewed by its owner
// between the scan and the freeing, is not freed: the whole transaction
// runs again and decide sees it renewed.
func TestAreaTransactionRunsAgainWhenAStaleRecordChanged(t *testing.T) {
	s, dir := testLocks(t)
	old := time.Now().Add(-time.Hour).Round(time.Microsecond)
	write(t, s, "/p/src/f.go", store.Record{Session: "crashed", Stamp: old, Path: "/p/src/f.go"})
	calls := 0
	var renewed time.Time
	err := s.TransactAreas(t.Context(), store.Create, []store.Key{{Path: "/p/src/"}}, func(slots, related []store.Slot) ([]*store.Record, []store.Slot, error) {
		calls++
		require.Len(t, related, 1)
		if calls == 1 {
			// The owner renews its stale lock meanwhile (a heartbeat
			// needs no folder lock).
			renewed = time.Now().Round(time.Microsecond)
			require.NoError(t, s.Transact(t.Context(), store.Update, []store.Key{{Path: "/p/src/f.go"}}, func([]store.Slot) ([]*store.Record, error) {
				return []*store.Record{{Session: "crashed", Stamp: renewed, Path: "/p/src/f.go"}}, nil
			}))
			return []*store.Record{{Session: "s1", Stamp: time.Now(), Path: "/p/src/"}}, related, nil
		}
		assert.True(t, related[0].Record.Stamp.Equal(renewed), "the second run sees the renewal")
		return []*store.Record{nil}, nil, nil // refused, say
	})
	require.NoError(t, err)
	assert.Equal(t, 2, calls)
	data, err := os.ReadFile(filepath.Join(dir, LockFileName("/p/src/f.go")))
	require.NoError(t, err)
	assert.Contains(t, string(data), "crashed|", "the renewed lock was not freed")
	data, err = os.ReadFile(filepath.Join(dir, LockFileName("/p/src/")))
	require.NoError(t, err)
	assert.Empty(t, data, "the first run wrote nothing")
}

// areas.list lists the areas held after an area transaction, and a file
// transaction reads the records of the listed areas that cover its keys.
func TestAreasListIsRebuiltAndRead(t *testing.T) {
	s, dir := testLocks(t)
	now := time.Now()
	for _, a := range []string{"/p/a/", "/p/b/"} {
		require.NoError(t, s.TransactAreas(t.Context(), store.Create, []store.Key{{Path: a}}, func(slots, related []store.Slot) ([]*store.Record, []store.Slot, error) {
			return []*store.Record{{Session: "s1", Stamp: now, Path: a}}, nil, nil
		}))
	}
	data, err := os.ReadFile(filepath.Join(dir, AreasFileName))
	require.NoError(t, err)
	assert.Equal(t, "/p/a/\n/p/b/\n", string(data))

	var seen []store.Slot
	require.NoError(t, s.TransactAreas(t.Context(), store.Create, []store.Key{{Path: "/p/a/x/f.go"}}, func(slots, related []store.Slot) ([]*store.Record, []store.Slot, error) {
		seen = related
		return []*store.Record{nil}, nil, nil
	}))
	require.Len(t, seen, 1)
	assert.Equal(t, "/p/a/", seen[0].Record.Path)

	// /p/b/ released; the next area transaction drops it from the list.
	write(t, s, "/p/b/", store.Record{})
	require.NoError(t, s.TransactAreas(t.Context(), store.Create, []store.Key{{Path: "/p/c/"}}, func(slots, related []store.Slot) ([]*store.Record, []store.Slot, error) {
		return []*store.Record{{Session: "s2", Stamp: now, Path: "/p/c/"}}, nil, nil
	}))
	data, err = os.ReadFile(filepath.Join(dir, AreasFileName))
	require.NoError(t, err)
	assert.Equal(t, "/p/a/\n/p/c/\n", string(data))
}
