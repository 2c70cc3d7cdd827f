package integrations

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
func faultyOps(tmp, dir faultyFile, synced *[]string) fileOps {
	return fileOps{
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
			root := t.TempDir()
			e := Engine{ProjectRoot: root}
			path := filepath.Join(root, "d", "f")
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, []byte("old\n"), 0o640))
			c, err := e.Install(Artifact{Path: "d/f", Kind: ManagedBlock, Comment: "#", Content: []byte("x\n")})
			require.NoError(t, err)
			var synced []string
			err = e.write(c, faultyOps(tc.tmp, tc.dir, &synced))
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
				assert.Equal(t, string(c.New), string(data), "the rename happened before the folder sync")
			}
			entries, err := os.ReadDir(filepath.Dir(path))
			require.NoError(t, err)
			assert.Len(t, entries, 1, "no temporary file is left")
		})
	}
}

// Removing a file returns the error of syncing the folder that held it.
func TestWriteDeleteReturnsFolderSyncError(t *testing.T) {
	root := t.TempDir()
	e := Engine{ProjectRoot: root}
	require.NoError(t, os.MkdirAll(filepath.Join(root, "d"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "d", "keep"), nil, 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "d", "f"), []byte("<!-- "+Marker+" -->\n"), 0o644))
	c, err := e.Uninstall(Artifact{Path: "d/f", Kind: OwnedFile})
	require.NoError(t, err)
	require.True(t, c.Delete)
	var synced []string
	err = e.write(c, faultyOps(faultyFile{}, faultyFile{failClose: true}, &synced))
	require.ErrorIs(t, err, errInjected)
	assert.ErrorContains(t, err, filepath.Join(root, "d"))
	assert.Equal(t, []string{filepath.Join(root, "d")}, synced, "the folder that remains is synced")
}

// A file written into new folders is durable only when each new folder's
// parent is synced too: Write syncs from the file's folder up to the
// parent of the first folder it created, and no further.
func TestWriteSyncsTheFoldersItCreated(t *testing.T) {
	root := t.TempDir()
	e := Engine{ProjectRoot: root}
	require.NoError(t, os.Mkdir(filepath.Join(root, "a"), 0o755))
	c, err := e.Install(Artifact{Path: "a/b/c/f", Kind: OwnedFile, Content: []byte("# " + Marker + "\n")})
	require.NoError(t, err)
	var synced []string
	require.NoError(t, e.write(c, faultyOps(faultyFile{}, faultyFile{}, &synced)))
	assert.Equal(t, []string{filepath.Join(root, "a/b/c"), filepath.Join(root, "a/b"), filepath.Join(root, "a")}, synced)

	synced = nil
	c, err = e.Install(Artifact{Path: "a/b/c/f", Kind: OwnedFile, Content: []byte("# " + Marker + "\nnew\n")})
	require.NoError(t, err)
	require.NoError(t, e.write(c, faultyOps(faultyFile{}, faultyFile{}, &synced)))
	assert.Equal(t, []string{filepath.Join(root, "a/b/c")}, synced, "an existing folder: only it")
}
