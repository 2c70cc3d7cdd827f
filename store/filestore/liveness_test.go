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

// The lock files give their own verdict on every record they read: the
// stamp plus the timeout, a stamp far in the future stale, one slightly
// ahead fresh for no longer than the timeout from now; and content that
// cannot be decoded judged by the file's modification time.
func TestLocksJudgeTheirRecords(t *testing.T) {
	s, dir := testLocks(t)
	now := time.Unix(1_800_000_000, 0)
	s.Timeout, s.Now = time.Minute, func() time.Time { return now }
	cases := map[string]struct {
		stamp time.Time
		fresh bool
		until time.Time
	}{
		"/p/new":      {now.Add(-10 * time.Second), true, now.Add(50 * time.Second)},
		"/p/edge":     {now.Add(-time.Minute), true, now},
		"/p/old":      {now.Add(-61 * time.Second), false, now.Add(-time.Second)},
		"/p/ahead":    {now.Add(30 * time.Second), true, now.Add(time.Minute)},
		"/p/far":      {now.Add(61 * time.Second), false, now.Add(time.Minute)},
		"/p/year2100": {time.Date(2100, 1, 1, 0, 0, 0, 0, time.UTC), false, now.Add(time.Minute)},
	}
	for path, c := range cases {
		write(t, s, path, store.Record{Session: "a", Stamp: c.stamp, Path: path})
	}
	write(t, s, "/p/free", store.Record{})
	// Damaged content: one written long ago, one just now.
	for path, written := range map[string]time.Time{"/p/torn-old": now.Add(-2 * time.Minute), "/p/torn-new": now} {
		file := filepath.Join(dir, LockFileName(path))
		require.NoError(t, os.WriteFile(file, []byte("garbage"), 0o644))
		require.NoError(t, os.Chtimes(file, written, written))
	}

	slots, err := s.Scan(t.Context())
	require.NoError(t, err)
	require.Len(t, slots, len(cases)+3)
	for _, slot := range slots {
		switch path := slot.Record.Path; {
		case slot.Err != nil:
			require.ErrorIs(t, slot.Err, store.ErrCorrupt)
			require.NotNil(t, slot.Liveness, slot.Key.Ref)
			old := slot.Key.Ref == filepath.Join(dir, LockFileName("/p/torn-old"))
			assert.Equal(t, !old, slot.Liveness.Fresh, "damage judged by its modification time: %s", slot.Key.Ref)
		case path == "":
			assert.Nil(t, slot.Liveness, "a free record needs no verdict")
		default:
			c := cases[path]
			require.NotNil(t, slot.Liveness, path)
			assert.Equal(t, c.fresh, slot.Liveness.Fresh, path)
			assert.True(t, c.until.Equal(slot.Liveness.Until), "%s: until %v, want %v", path, slot.Liveness.Until, c.until)
		}
	}

	// A transaction reads the same verdicts.
	require.NoError(t, s.Transact(t.Context(), store.Read, []store.Key{{Path: "/p/old"}, {Path: "/p/new"}}, func(slots []store.Slot) ([]*store.Record, error) {
		assert.False(t, slots[0].Liveness.Fresh)
		assert.True(t, slots[1].Liveness.Fresh)
		return nil, nil
	}))
}
