package core

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/store/filestore"
)

func TestFutureStampBeyondTimeoutIsStale(t *testing.T) {
	dir := t.TempDir()
	now := time.Unix(1_800_000_000, 0)
	l := testLocker(dir, Options{Cwd: dir, Timeout: time.Minute, Now: func() time.Time { return now }})
	real, err := RealPath("f", dir)
	require.NoError(t, err)
	file := filepath.Join(dir, filestore.LockFileName(real))
	for _, tc := range []struct {
		ahead time.Duration
		stale bool
	}{{30 * time.Second, false}, {time.Minute, false}, {time.Minute + time.Millisecond, true}, {100 * 365 * 24 * time.Hour, true}} {
		stamp := float64(now.Add(tc.ahead).UnixNano()) / 1e9
		require.NoError(t, os.WriteFile(file, []byte("x|"+strconv.FormatFloat(stamp, 'f', 6, 64)+"|"+real), 0o644))
		s, err := l.IsLocked(t.Context(), "f")
		require.NoError(t, err)
		assert.Equal(t, tc.stale, s.Stale, "stamp %s ahead", tc.ahead)
		assert.GreaterOrEqual(t, s.Age, time.Duration(0), "an age is never negative")
		if !tc.stale {
			// Valid until its own stamp plus the timeout, but the time
			// left shown never exceeds the timeout.
			assert.Equal(t, time.Minute, s.Left, "never more time left than the timeout")
		}
	}
}

func TestPathWithNULRefused(t *testing.T) {
	_, err := RealPath("a\x00b", t.TempDir())
	require.ErrorIs(t, err, ErrInvalidPath)
	dir := t.TempDir()
	_, err = testLocker(dir, Options{Cwd: dir}).Acquire(t.Context(), "src/a\x00.go", "s")
	require.ErrorIs(t, err, ErrInvalidPath)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing recorded")
}

// A path in a message is whole up to MaxShownPath bytes; a longer one is
// its first 60 bytes (never half a character), "..." and its length.
func TestShortPath(t *testing.T) {
	short := strings.Repeat("a", MaxShownPath)
	assert.Equal(t, short, ShortPath(short))
	long := strings.Repeat("a", 5000)
	assert.Equal(t, strings.Repeat("a", 60)+"... (5000 bytes)", ShortPath(long))
	wide := strings.Repeat("é", 300) // two bytes each: byte 60 starts one
	assert.Equal(t, strings.Repeat("é", 30)+"... (600 bytes)", ShortPath(wide))
	odd := "x" + strings.Repeat("é", 300) // byte 60 is the middle of one
	assert.Equal(t, "x"+strings.Repeat("é", 29)+"... (601 bytes)", ShortPath(odd))
}
