package plainfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ReadFile reads what os.ReadFile reads, at every size around its buffer's
// and a file's own size, and fails as os.ReadFile fails.
func TestReadFileReadsWhatOSReadFileReads(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 511, 512, 513, 4096, 1 << 20} {
		path := filepath.Join(dir, "f")
		want := []byte(strings.Repeat("x", n))
		require.NoError(t, os.WriteFile(path, want, 0o644))
		got, err := ReadFile(path)
		require.NoError(t, err, "%d bytes", n)
		assert.Equal(t, want, got, "%d bytes", n)
	}
	missing := filepath.Join(dir, "missing")
	_, err := ReadFile(missing)
	_, osErr := os.ReadFile(missing)
	assert.True(t, errors.Is(err, fs.ErrNotExist), "%v", err)
	assert.Equal(t, osErr.Error(), err.Error())
	_, err = ReadFile(dir)
	assert.Error(t, err, "a folder is not read as a file")
}

// OpenRegular opens a regular file, and what is not one without blocking:
// a FIFO with no writer, which a plain open would wait on for ever.
func TestOpenRegularNeverBlocksOnAFIFO(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	require.NoError(t, os.WriteFile(file, []byte("content"), 0o644))
	f, info, err := OpenRegular(file, 0)
	require.NoError(t, err)
	assert.True(t, info.Mode().IsRegular())
	data := make([]byte, 16)
	n, err := f.Read(data)
	require.NoError(t, err)
	assert.Equal(t, "content", string(data[:n]))
	require.NoError(t, f.Close())

	fifo := filepath.Join(dir, "fifo")
	if err := mkfifo(fifo); err != nil {
		t.Skipf("no FIFOs here: %v", err)
	}
	f, info, err = OpenRegular(fifo, 0)
	require.NoError(t, err)
	assert.Equal(t, fs.ModeNamedPipe, info.Mode().Type())
	require.NoError(t, f.Close())

	_, _, err = OpenRegular(filepath.Join(dir, "missing"), 0)
	assert.True(t, errors.Is(err, fs.ErrNotExist), "%v", err)
}
