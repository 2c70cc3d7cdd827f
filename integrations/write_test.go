package integrations

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Write creates the folders a new file needs, keeps an existing file's
// permissions, and removes the folders a deleted file leaves empty, up to
// the root and no further.
func TestWriteCreatesKeepsAndCleansUp(t *testing.T) {
	root := t.TempDir()
	e := Engine{ProjectRoot: root}
	c, err := e.Install(Artifact{Path: "a/b/f", Kind: OwnedFile, Content: []byte("# " + Marker + "\n"), Mode: 0o755})
	require.NoError(t, err)
	require.NoError(t, e.Write(c))
	info, err := os.Stat(filepath.Join(root, "a/b/f"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o755), info.Mode().Perm(), "a new file gets the artifact's mode")

	require.NoError(t, os.Chmod(filepath.Join(root, "a/b/f"), 0o700))
	c, err = e.Install(Artifact{Path: "a/b/f", Kind: OwnedFile, Content: []byte("# " + Marker + "\nnew\n"), Mode: 0o755})
	require.NoError(t, err)
	require.NoError(t, e.Write(c))
	info, err = os.Stat(filepath.Join(root, "a/b/f"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), info.Mode().Perm(), "an existing file keeps its mode")

	c, err = e.Uninstall(Artifact{Path: "a/b/f", Kind: OwnedFile})
	require.NoError(t, err)
	require.NoError(t, e.Write(c))
	assert.NoDirExists(t, filepath.Join(root, "a"), "the folders it left empty are gone")
	assert.DirExists(t, root)
}
