//go:build linux || darwin

package filedigest

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A regular file's Key is its status as StatKey reads it without opening
// it, and changes with any write, even one that leaves the size and the
// modification time as they were; it is racy until the file's last
// status change is RacyMargin older than the time given. What is not a
// regular file has no Key.
func TestKey(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a")
	require.NoError(t, os.WriteFile(a, []byte("one\n"), 0o644))
	sum, err := Of(a)
	require.NoError(t, err)
	require.NotEmpty(t, sum.Key)
	now, err := StatKey(a)
	require.NoError(t, err)
	assert.Equal(t, sum.Key, now, "the same status, read without the content")
	assert.True(t, sum.Racy(time.Now()), "changed just now")
	assert.True(t, sum.Racy(sum.Changed.Add(RacyMargin)), "within the margin")
	assert.False(t, sum.Racy(sum.Changed.Add(RacyMargin+time.Nanosecond)), "past the margin")
	assert.True(t, Sum{Digest: sum.Digest}.Racy(time.Now().Add(time.Hour)), "no Key proves nothing")

	st, err := os.Stat(a)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(a, []byte("two\n"), 0o644))
	require.NoError(t, os.Chtimes(a, st.ModTime(), st.ModTime()))
	now, err = StatKey(a)
	require.NoError(t, err)
	assert.NotEqual(t, sum.Key, now, "same size and modification time, another status change time")

	for _, p := range []string{dir, filepath.Join(dir, "missing")} {
		now, err = StatKey(p)
		require.NoError(t, err)
		assert.Empty(t, now, p)
		got, err := Of(p)
		require.NoError(t, err)
		assert.Empty(t, got.Key, p)
	}
}
