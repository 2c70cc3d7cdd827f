package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
	"time"

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

func TestWriteRemovesStaleTempFilesOfItsNamingOnly(t *testing.T) {
	dir := t.TempDir()
	old := time.Now().Add(-10 * time.Minute)
	mk := func(name string, age time.Time) string {
		p := filepath.Join(dir, name)
		require.NoError(t, os.WriteFile(p, []byte("x"), 0o644))
		require.NoError(t, os.Chtimes(p, age, age))
		return p
	}
	stale := mk(".registry.md.tmp-123456", old)
	staleOther := mk(".AGENTS.md.tmp-42", old)
	young := mk(".registry.md.tmp-777", time.Now())
	foreign := mk(".registry.md.tmp-abc", old)
	notHidden := mk("registry.md.tmp-123", old)
	require.NoError(t, os.Mkdir(filepath.Join(dir, ".registry.md.tmp-1"), 0o755))
	require.NoError(t, os.Symlink(stale+"-target", filepath.Join(dir, ".registry.md.tmp-2")))

	require.NoError(t, Write(filepath.Join(dir, "registry.md"), []byte("new"), 0o644))

	assert.NoFileExists(t, stale, "a stale temp file of agentlock's naming is removed")
	assert.FileExists(t, staleOther, "only the written file's own temporary files are touched")
	assert.FileExists(t, young, "a young one may belong to a writer at work")
	assert.FileExists(t, foreign, "not agentlock's naming")
	assert.FileExists(t, notHidden, "not agentlock's naming")
	assert.DirExists(t, filepath.Join(dir, ".registry.md.tmp-1"), "only regular files")
	_, err := os.Lstat(filepath.Join(dir, ".registry.md.tmp-2"))
	assert.NoError(t, err, "a symbolic link is not removed")
}
