package filedigest

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The digest names content: equal bytes, equal digests; a change of the
// same size within the same clock tick is a change; what is not a
// regular file has a digest of its own kind, and a FIFO is never opened.
func TestOf(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	require.NoError(t, os.WriteFile(a, []byte("one\n"), 0o644))
	require.NoError(t, os.WriteFile(b, []byte("one\n"), 0o644))
	sa, err := Of(a)
	require.NoError(t, err)
	sb, err := Of(b)
	require.NoError(t, err)
	da, db := sa.Digest, sb.Digest
	assert.NotEqual(t, sa.Stat, sb.Stat, "two files")
	assert.Equal(t, da, db, "the same content")
	assert.True(t, Hashed(da))
	assert.Empty(t, Describe(da))

	st, err := os.Stat(a)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(a, []byte("two\n"), 0o644))
	require.NoError(t, os.Chtimes(a, st.ModTime(), st.ModTime()))
	changed, err := Of(a)
	require.NoError(t, err)
	assert.NotEqual(t, da, changed.Digest, "same size, same time, other content")

	got, err := digest(filepath.Join(dir, "missing"))
	require.NoError(t, err)
	assert.Equal(t, Absent, got)
	assert.Equal(t, "deleted", Describe(got))
	got, err = digest(filepath.Join(a, "below-a-file"))
	require.NoError(t, err)
	assert.Equal(t, Absent, got)

	got, err = digest(dir)
	require.NoError(t, err)
	assert.Equal(t, Folder, got)

	link := filepath.Join(dir, "link")
	require.NoError(t, os.Symlink(b, link))
	got, err = digest(link)
	require.NoError(t, err)
	assert.Equal(t, Symlink, got, "a final link is not followed")

	fifo := filepath.Join(dir, "fifo")
	require.NoError(t, syscall.Mkfifo(fifo, 0o644))
	done := make(chan string, 1)
	go func() { d, _ := digest(fifo); done <- d }()
	select {
	case d := <-done:
		assert.Equal(t, "special:fifo", d)
		assert.Contains(t, Describe(d), "special file")
	case <-time.After(10 * time.Second):
		t.Fatal("Of hung on a FIFO")
	}
}

// A file over Limit is named by its status: size, time and inode; one at
// Limit is hashed.
func TestOfLarge(t *testing.T) {
	dir := t.TempDir()
	at, over := filepath.Join(dir, "at"), filepath.Join(dir, "over")
	require.NoError(t, os.WriteFile(at, make([]byte, Limit), 0o644))
	require.NoError(t, os.WriteFile(over, make([]byte, Limit+1), 0o644))
	d, err := digest(at)
	require.NoError(t, err)
	assert.True(t, Hashed(d))
	d, err = digest(over)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(d, "stat:1048577:"), d)
	assert.False(t, Hashed(d))
	require.NoError(t, os.Chtimes(over, time.Unix(1, 0), time.Unix(1, 0)))
	again, err := digest(over)
	require.NoError(t, err)
	assert.NotEqual(t, d, again, "a new modification time is a change")
}

// A file that cannot be read is an error, never a digest: the caller
// cannot tell whether it changed. A name too long for the system fails
// for every user; a file without read permission fails for all but root.
func TestOfUnreadable(t *testing.T) {
	long := filepath.Join(t.TempDir(), strings.Repeat("x", 300))
	_, err := Of(long)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "read ")

	f := filepath.Join(t.TempDir(), "secret")
	require.NoError(t, os.WriteFile(f, []byte("x"), 0o000))
	_, err = Of(f)
	if os.Geteuid() != 0 {
		require.Error(t, err)
		assert.Contains(t, err.Error(), f)
	}
}

// digest is Of's Digest.
func digest(path string) (string, error) {
	s, err := Of(path)
	return s.Digest, err
}

func BenchmarkOf1MiB(b *testing.B) {
	f := filepath.Join(b.TempDir(), "big")
	require.NoError(b, os.WriteFile(f, make([]byte, Limit), 0o644))
	b.SetBytes(Limit)
	for b.Loop() {
		if _, err := Of(f); err != nil {
			b.Fatal(err)
		}
	}
}
