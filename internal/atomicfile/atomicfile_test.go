package atomicfile

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestWriteCreatesReplacesAndKeepsMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f")
	require.NoError(t, Write(path, []byte("one"), 0o640))
	info, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o640), info.Mode().Perm(), "a new file gets perm")

	require.NoError(t, os.Chmod(path, 0o755))
	require.NoError(t, Write(path, []byte("two"), 0o644))
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "two", string(data))
	info, err = os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), info.Mode().Perm(), "an existing file keeps its mode")

	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "no temporary file is left behind")
}

func TestWriteFailureLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	err := Write(filepath.Join(dir, "missing", "f"), []byte("x"), 0o644)
	require.Error(t, err)
	assert.Contains(t, err.Error(), filepath.Join(dir, "missing", "f"))

	// A rename onto a folder fails after the temporary file was written:
	// it must be removed.
	target := filepath.Join(dir, "folder")
	require.NoError(t, os.Mkdir(target, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(target, "keep"), nil, 0o644))
	require.Error(t, Write(target, []byte("x"), 0o644))
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "only the folder is left: %v", entries)
}
