package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A command's Cache answers each question about the file system once: a
// change made meanwhile by someone else is not seen by that command, as
// one command sees one file system. Settings without a Cache, and the
// cache Open makes for itself, ask every time; agentlock's own writes
// (here: forget, which Setup, Teardown and the shared-home writes call)
// make the command ask again. (How many system calls this saves is
// counted in cmd/agentlock's TestPathFactsOncePerCommand.)
func TestCommandCacheRemembersPathFacts(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	for _, d := range []string{".git", "src", "a", "b"} {
		require.NoError(t, os.Mkdir(filepath.Join(root, d), 0o755))
	}
	file := filepath.Join(root, "src", "f.go")
	link := filepath.Join(root, "link")
	require.NoError(t, os.Symlink(filepath.Join(root, "a"), link))
	home := filepath.Join(root, "user")
	cmd := Settings{UserHome: home, Cache: NewCache()}
	each := Settings{UserHome: home}
	own := Settings{UserHome: home, Cache: openCache()}

	for _, s := range []Settings{cmd, each, own} {
		require.Equal(t, root, s.FindProject(file))
		real, err := s.RealPath(link, "")
		require.NoError(t, err)
		require.Equal(t, filepath.Join(root, "a"), real)
	}
	// Someone else moves the project's marker and the link.
	require.NoError(t, os.Rename(filepath.Join(root, ".git"), filepath.Join(root, "git-moved")))
	require.NoError(t, os.Remove(link))
	require.NoError(t, os.Symlink(filepath.Join(root, "b"), link))

	assert.Equal(t, root, cmd.FindProject(file), "the command's cache remembers")
	assert.Equal(t, root, cmd.FindProject(filepath.Join(root, "src", "other.go")), "a walk stops at a folder already walked")
	real, err := cmd.RealPath(link, "")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "a"), real, "the command's cache remembers")
	for name, s := range map[string]Settings{"no cache": each, "Open's own cache": own} {
		assert.Empty(t, s.FindProject(file), name)
		real, err := s.RealPath(link, "")
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(root, "b"), real, name)
	}

	cmd.Cache.facts().forget()
	assert.Empty(t, cmd.FindProject(file), "forgotten: asked again")
	real, err = cmd.RealPath(link, "")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "b"), real)
}

// Setup creates a home, which may make a folder a project: the command
// forgets what it knew.
func TestSetupForgetsPathFacts(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	s := Settings{UserHome: filepath.Join(root, "user"), Cache: NewCache(), NewProject: root}
	ws, err := Open(t.Context(), root, s)
	require.NoError(t, err)
	require.Empty(t, s.FindProject(filepath.Join(root, "f.go")), "no project yet")
	require.NoError(t, ws.Setup(t.Context()))
	assert.Equal(t, root, s.FindProject(filepath.Join(root, "f.go")), "the home init created marks the project")
}
