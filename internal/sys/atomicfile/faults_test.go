package atomicfile

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var errInjected = errors.New("injected failure")

// faultyFile is a real file whose Sync or Close can be made to fail.
type faultyFile struct {
	*os.File
	failSync, failClose bool
}

func (f faultyFile) Sync() error {
	if f.failSync {
		return errInjected
	}
	return f.File.Sync()
}

func (f faultyFile) Close() error {
	err := f.File.Close()
	if f.failClose {
		return errInjected
	}
	return err
}

// faultyOps are the real calls, with the chosen failures, recording the
// folders synced.
func faultyOps(tmp, dir faultyFile, synced *[]string) ops {
	return ops{
		createTemp: func(d, pattern string) (tempFile, error) {
			f, err := os.CreateTemp(d, pattern)
			if err != nil {
				return nil, err
			}
			tmp.File = f
			return tmp, nil
		},
		openDir: func(d string) (syncCloser, error) {
			f, err := os.Open(d)
			if err != nil {
				return nil, err
			}
			*synced = append(*synced, d)
			dir.File = f
			return dir, nil
		},
	}
}

// An error from Sync or Close of the temporary file or of the folder is
// returned, wrapped with the path; before the rename the file is left as
// it was, and no temporary file remains.
func TestWriteReturnsSyncAndCloseErrors(t *testing.T) {
	for _, tc := range []struct {
		name      string
		tmp, dir  faultyFile
		wantPath  string // "file" or "dir"
		unchanged bool
	}{
		{"temporary file sync", faultyFile{failSync: true}, faultyFile{}, "file", true},
		{"temporary file close", faultyFile{failClose: true}, faultyFile{}, "file", true},
		{"folder sync", faultyFile{}, faultyFile{failSync: true}, "dir", false},
		{"folder close", faultyFile{}, faultyFile{failClose: true}, "dir", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "d", "f")
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, []byte("old\n"), 0o640))
			var synced []string
			err := faultyOps(tc.tmp, tc.dir, &synced).write(path, []byte("new\n"), 0o644)
			require.ErrorIs(t, err, errInjected)
			want := path
			if tc.wantPath == "dir" {
				want = filepath.Dir(path)
			}
			assert.ErrorContains(t, err, want+": "+errInjected.Error())
			data, err := os.ReadFile(path)
			require.NoError(t, err)
			if tc.unchanged {
				assert.Equal(t, "old\n", string(data))
			} else {
				assert.Equal(t, "new\n", string(data), "the rename happened before the folder sync")
			}
			entries, err := os.ReadDir(filepath.Dir(path))
			require.NoError(t, err)
			assert.Len(t, entries, 1, "no temporary file is left")
		})
	}
}

// Removing a file returns the error of syncing the folder that held it.
func TestRemoveReturnsFolderSyncError(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(root, "d"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "d", "keep"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "d", "f"), nil, 0o644))
	var synced []string
	err := faultyOps(faultyFile{}, faultyFile{failClose: true}, &synced).remove(filepath.Join(root, "d", "f"), root)
	require.ErrorIs(t, err, errInjected)
	assert.ErrorContains(t, err, filepath.Join(root, "d"))
	assert.Equal(t, []string{filepath.Join(root, "d")}, synced, "the folder that remains is synced")
}

// Folders are durable only when each new folder's parent is synced too:
// MkdirAll syncs the parents of the folders it created, and no further.
func TestMkdirAllSyncsTheFoldersItCreated(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(root, "a"), 0o755))
	var synced []string
	o := faultyOps(faultyFile{}, faultyFile{}, &synced)
	require.NoError(t, o.mkdirAll(filepath.Join(root, "a/b/c"), root, 0o755))
	assert.DirExists(t, filepath.Join(root, "a/b/c"))
	assert.Equal(t, []string{filepath.Join(root, "a/b"), filepath.Join(root, "a")}, synced)

	synced = nil
	require.NoError(t, o.mkdirAll(filepath.Join(root, "a/b/c"), root, 0o755))
	assert.Empty(t, synced, "an existing folder: nothing to sync")
}
