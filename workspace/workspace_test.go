package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/core"
)

// newProject returns a set-up project (a git root with its home).
func newProject(t *testing.T) (string, *Workspace) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.Mkdir(filepath.Join(root, ".git"), 0o755))
	ws, err := Open(root, Settings{UserHome: filepath.Join(root, "user")})
	require.NoError(t, err)
	require.NoError(t, ws.Setup())
	return root, ws
}

func TestOpenResolvesTheProjectHome(t *testing.T) {
	root, ws := newProject(t)
	assert.Equal(t, root, ws.Project)
	assert.Equal(t, filepath.Join(root, HomeDirName), ws.Home)
	assert.Equal(t, filepath.Join(root, HomeDirName, "locks"), ws.LockDir)
	assert.Equal(t, filepath.Join(root, HomeDirName, "registry.md"), ws.RegistryPath)
	assert.True(t, ws.OwnHome())
	assert.True(t, ws.Enabled())
	assert.False(t, ws.Missing())

	sub, err := Open(filepath.Join(root, "src", "new.go"), Settings{})
	require.NoError(t, err)
	assert.Equal(t, ws.LockDir, sub.LockDir, "a file not yet created finds its project")

	outside := t.TempDir()
	ows, err := Open(outside, Settings{UserHome: "/u"})
	require.NoError(t, err)
	assert.Equal(t, "/u/"+HomeDirName, ows.Home, "outside any project: the user's home")
	assert.False(t, ows.Enabled())

	configured, err := Open(outside, Settings{Home: filepath.Join(root, "elsewhere")})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "elsewhere", "locks"), configured.LockDir)
	assert.True(t, configured.Enabled(), "configured locations enable agentlock anywhere")
}

func TestSetupWritesTheEmptyRegistryOnce(t *testing.T) {
	_, ws := newProject(t)
	data, err := os.ReadFile(ws.RegistryPath)
	require.NoError(t, err)
	assert.Contains(t, string(data), "<!-- PROTOCOL:START")
	_, err = ws.Registry().Register(core.Session{SessionID: "a", Provider: "p", AIVersion: "m", WorkingOn: "w"})
	require.NoError(t, err)
	require.NoError(t, ws.Setup())
	doc, err := ws.Registry().Load()
	require.NoError(t, err)
	assert.Len(t, doc.Agents, 1, "Setup keeps an existing registry")
}

func TestFinishReleasesTheLocksOfAnUnregisteredSession(t *testing.T) {
	root, ws := newProject(t)
	file := filepath.Join(root, "a.go")
	_, _, err := ws.Acquire([]string{file}, "ghost")
	require.NoError(t, err)
	done, err := ws.Finish("ghost")
	assert.ErrorIs(t, err, core.ErrNoSession)
	assert.False(t, done.Registered)
	require.Len(t, done.Released, 1)
	st, err := ws.Locker().IsLocked(file)
	require.NoError(t, err)
	assert.Empty(t, st.Owner)
}

func TestAcquireAndReleaseMirrorDoNotTouch(t *testing.T) {
	root, ws := newProject(t)
	_, err := ws.Registry().Register(core.Session{SessionID: "s", Provider: "p", AIVersion: "m", WorkingOn: "w"})
	require.NoError(t, err)
	file := filepath.Join(root, "a.go")
	_, warning, err := ws.Acquire([]string{file}, "s")
	require.NoError(t, err)
	require.Nil(t, warning)
	doc, err := ws.Registry().Load()
	require.NoError(t, err)
	assert.Equal(t, []string{file}, doc.Agents[0].DoNotTouch)

	results, warning, err := ws.Release([]string{file, filepath.Join(root, "free.go")}, "s")
	require.NoError(t, err)
	require.Nil(t, warning)
	require.Len(t, results, 2)
	assert.Equal(t, "s", results[0].State.Owner)
	assert.Empty(t, results[1].State.Owner)
	doc, err = ws.Registry().Load()
	require.NoError(t, err)
	assert.Empty(t, doc.Agents[0].DoNotTouch)
}

func TestTeardownKeepsAHomeInUse(t *testing.T) {
	root, ws := newProject(t)
	file := filepath.Join(root, "a.go")
	_, _, err := ws.Acquire([]string{file}, "s")
	require.NoError(t, err)
	var kept *KeptError
	require.ErrorAs(t, ws.Teardown(false), &kept)
	assert.Contains(t, kept.Reason, "locks are held")

	_, err = ws.Locker().Release(file, "s")
	require.NoError(t, err)
	require.NoError(t, ws.StartSession(core.Session{SessionID: "s", Provider: "p", AIVersion: "m", WorkingOn: "w"}))
	require.ErrorAs(t, ws.Teardown(false), &kept)
	assert.Contains(t, kept.Reason, "sessions are working: s")

	_, err = ws.Finish("s")
	require.NoError(t, err)
	require.NoError(t, ws.Teardown(true))
	assert.DirExists(t, ws.Home, "a dry run removes nothing")
	require.NoError(t, ws.Teardown(false))
	assert.NoDirExists(t, ws.Home)
}

func TestCoordinatedPaths(t *testing.T) {
	root, ws := newProject(t)
	other, _ := newProject(t)
	plain := t.TempDir()
	got := ws.Coordinated([]string{"rel.go", filepath.Join(other, "b.go"), filepath.Join(plain, "c.go")}, root)
	assert.Equal(t, []string{filepath.Join(root, "rel.go"), filepath.Join(other, "b.go")}, got)
}
