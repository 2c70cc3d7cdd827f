package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/store/filestore"
)

// newProject returns a set-up project (a git root with its home).
func newProject(t testing.TB) (string, *Workspace) {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.Mkdir(filepath.Join(root, ".git"), 0o755))
	ws, err := Open(t.Context(), root, Settings{UserHome: filepath.Join(root, "user")})
	require.NoError(t, err)
	require.NoError(t, ws.Setup(t.Context()))
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

	sub, err := Open(t.Context(), filepath.Join(root, "src", "new.go"), Settings{})
	require.NoError(t, err)
	assert.Equal(t, ws.LockDir, sub.LockDir, "a file not yet created finds its project")

	outside := t.TempDir()
	ows, err := Open(t.Context(), outside, Settings{UserHome: "/u"})
	require.NoError(t, err)
	assert.Equal(t, "/u/"+HomeDirName, ows.Home, "outside any project: the user's home")
	assert.False(t, ows.Enabled())

	configured, err := Open(t.Context(), outside, Settings{Home: filepath.Join(root, "elsewhere")})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "elsewhere", "locks"), configured.LockDir)
	assert.True(t, configured.Enabled(), "configured locations enable agentlock anywhere")
}

func TestSetupWritesTheEmptyRegistryOnce(t *testing.T) {
	_, ws := newProject(t)
	data, err := os.ReadFile(ws.RegistryPath)
	require.NoError(t, err)
	assert.Contains(t, string(data), "<!-- PROTOCOL:START")
	_, err = ws.Registry().Register(t.Context(), core.Session{SessionID: "a", Provider: "p", AIVersion: "m", WorkingOn: "w"})
	require.NoError(t, err)
	require.NoError(t, ws.Setup(t.Context()))
	doc, err := ws.Registry().Load(t.Context())
	require.NoError(t, err)
	assert.Len(t, doc.Agents, 1, "Setup keeps an existing registry")
}

func TestFinishReleasesTheLocksOfAnUnregisteredSession(t *testing.T) {
	root, ws := newProject(t)
	file := filepath.Join(root, "a.go")
	_, _, err := ws.Acquire(t.Context(), []string{file}, "ghost")
	require.NoError(t, err)
	done, err := ws.Finish(t.Context(), "ghost")
	assert.ErrorIs(t, err, core.ErrNoSession)
	assert.False(t, done.Registered)
	require.Len(t, done.Released, 1)
	st, err := ws.Locker().IsLocked(t.Context(), file)
	require.NoError(t, err)
	assert.Empty(t, st.Owner)
}

func TestAcquireAndReleaseMirrorDoNotTouch(t *testing.T) {
	root, ws := newProject(t)
	_, err := ws.Registry().Register(t.Context(), core.Session{SessionID: "s", Provider: "p", AIVersion: "m", WorkingOn: "w"})
	require.NoError(t, err)
	file := filepath.Join(root, "a.go")
	_, warning, err := ws.Acquire(t.Context(), []string{file}, "s")
	require.NoError(t, err)
	require.Nil(t, warning)
	doc, err := ws.Registry().Load(t.Context())
	require.NoError(t, err)
	assert.Equal(t, []string{file}, doc.Agents[0].DoNotTouch)

	results, warning, err := ws.Release(t.Context(), []string{file, filepath.Join(root, "free.go")}, "s")
	require.NoError(t, err)
	require.Nil(t, warning)
	require.Len(t, results, 2)
	assert.Equal(t, "s", results[0].State.Owner)
	assert.Empty(t, results[1].State.Owner)
	doc, err = ws.Registry().Load(t.Context())
	require.NoError(t, err)
	assert.Empty(t, doc.Agents[0].DoNotTouch)
}

func TestTeardownKeepsAHomeInUse(t *testing.T) {
	root, ws := newProject(t)
	file := filepath.Join(root, "a.go")
	_, _, err := ws.Acquire(t.Context(), []string{file}, "s")
	require.NoError(t, err)
	var kept *KeptError
	require.ErrorAs(t, ws.Teardown(t.Context(), false), &kept)
	assert.Contains(t, kept.Reason, "locks are held")

	_, err = ws.Locker().Release(t.Context(), file, "s")
	require.NoError(t, err)
	start(t, ws, core.Session{SessionID: "s", Provider: "p", AIVersion: "m", WorkingOn: "w"})
	require.ErrorAs(t, ws.Teardown(t.Context(), false), &kept)
	assert.Contains(t, kept.Reason, "sessions are working: s")

	_, err = ws.Finish(t.Context(), "s")
	require.NoError(t, err)
	require.NoError(t, ws.Teardown(t.Context(), true))
	assert.DirExists(t, ws.Home, "a dry run removes nothing")
	require.NoError(t, ws.Teardown(t.Context(), false))
	assert.NoDirExists(t, ws.Home)
}

func TestCoordinatedPaths(t *testing.T) {
	root, ws := newProject(t)
	other, _ := newProject(t)
	plain := t.TempDir()
	got, unresolved := ws.Coordinated([]string{"rel.go", filepath.Join(other, "b.go"), filepath.Join(plain, "c.go")}, root)
	assert.Equal(t, []string{filepath.Join(root, "rel.go"), filepath.Join(other, "b.go")}, got)
	assert.Empty(t, unresolved)
}

// A project that shares a home records it in .agent-registry/home; every
// path of the project resolves to it, and the record goes back.
func TestShareHome(t *testing.T) {
	root, ws := newProject(t)
	shared := filepath.Join(t.TempDir(), "Desktop", "agent-registry")
	s := Settings{UserHome: filepath.Join(root, "user")}

	// The project's own home is in use: it stays.
	_, err := ws.Locker().Acquire(t.Context(), filepath.Join(root, "a.go"), "s1")
	require.NoError(t, err)
	_, err = ShareHome(t.Context(), root, shared, s)
	var kept *KeptError
	require.ErrorAs(t, err, &kept)
	assert.Contains(t, kept.Reason, "a.go")
	_, err = ws.Locker().Release(t.Context(), filepath.Join(root, "a.go"), "s1")
	require.NoError(t, err)

	changed, err := ShareHome(t.Context(), root, shared, s)
	require.NoError(t, err)
	assert.True(t, changed)
	data, err := os.ReadFile(filepath.Join(root, HomeDirName, SharedHomeFile))
	require.NoError(t, err)
	assert.Equal(t, shared+"\n", string(data))
	assert.NoFileExists(t, filepath.Join(root, HomeDirName, "registry.md"), "the unused own home is gone")

	sub, err := Open(t.Context(), filepath.Join(root, "src", "b.go"), s)
	require.NoError(t, err)
	assert.True(t, sub.Shared())
	assert.False(t, sub.OwnHome())
	assert.True(t, sub.Enabled())
	assert.Equal(t, filepath.Join(shared, "locks"), sub.LockDir)
	assert.Equal(t, filepath.Join(shared, "registry.md"), sub.RegistryPath)
	lease, err := sub.Locker().Acquire(t.Context(), filepath.Join(root, "src", "b.go"), "s1")
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(shared, "locks", filestore.LockFileName(lease.Path)))

	changed, err = ShareHome(t.Context(), root, shared, s)
	require.NoError(t, err)
	assert.False(t, changed, "sharing the same home again changes nothing")

	// The environment still wins.
	env, err := Open(t.Context(), root, Settings{Home: filepath.Join(root, "env-home")})
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "env-home"), env.Home)

	// Unshare keeps the record while the shared home holds a lock of the project.
	require.ErrorAs(t, sub.Unshare(t.Context(), false), &kept)
	_, err = sub.Locker().Release(t.Context(), lease.Path, "s1")
	require.NoError(t, err)
	require.NoError(t, sub.Unshare(t.Context(), false))
	assert.NoFileExists(t, filepath.Join(root, HomeDirName, SharedHomeFile))
	assert.DirExists(t, filepath.Join(shared, "locks"), "the shared home is never removed")
	back, err := Open(t.Context(), root, s)
	require.NoError(t, err)
	assert.False(t, back.Shared())
	assert.Equal(t, filepath.Join(root, HomeDirName), back.Home)

	// A record that names no absolute folder is an error, not another home.
	require.NoError(t, os.MkdirAll(filepath.Join(root, HomeDirName), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(root, HomeDirName, SharedHomeFile), []byte("relative/dir\n"), 0o644))
	_, err = Open(t.Context(), root, s)
	assert.ErrorContains(t, err, "absolute")
}

// A live lock in agent-registry 0.2's default home on a file this project
// locks elsewhere is found; nothing is found once the home is shared.
func TestLegacyHeld(t *testing.T) {
	root, _ := newProject(t)
	user := filepath.Join(root, "user")
	s := Settings{UserHome: user, Timeout: time.Minute}
	ws, err := Open(t.Context(), root, s)
	require.NoError(t, err)
	home, held := ws.LegacyHeld(t.Context(), []string{filepath.Join(root, "a.go")})
	assert.Empty(t, home, "no 0.2 home")
	assert.Empty(t, held)

	legacy := filepath.Join(user, LegacyHomeDir)
	require.NoError(t, os.MkdirAll(filepath.Join(legacy, "locks"), 0o700))
	assert.Equal(t, legacy, LegacyHome(user))
	a, stale := filepath.Join(root, "a.go"), filepath.Join(root, "old.go")
	for p, age := range map[string]time.Duration{a: 0, stale: time.Hour} {
		rec := fmt.Sprintf("claude 1|%d|%s", time.Now().Add(-age).Unix(), p)
		require.NoError(t, os.WriteFile(filepath.Join(legacy, "locks", filestore.LockFileName(p)), []byte(rec), 0o644))
	}
	home, held = ws.LegacyHeld(t.Context(), []string{a, stale, filepath.Join(root, "free.go")})
	assert.Equal(t, legacy, home)
	require.Len(t, held, 1, "only the live lock")
	assert.Equal(t, a, held[0].Path)
	assert.Equal(t, "claude 1", held[0].Owner)

	_, err = ShareHome(t.Context(), root, legacy, s)
	require.NoError(t, err)
	shared, err := Open(t.Context(), root, s)
	require.NoError(t, err)
	_, held = shared.LegacyHeld(t.Context(), []string{a})
	assert.Empty(t, held, "no split once the home is shared")
}

// A registry without an agents list is corrupt, never overwritten; lock
// operations go on, with the registry's problem as a warning, and Finish
// still releases the session's locks.
func TestCorruptRegistryStopsNoLockOperation(t *testing.T) {
	root, ws := newProject(t)
	notARegistry := "---\ntitle: notes of s1\n---\n\nNot a registry.\n"
	require.NoError(t, os.WriteFile(ws.RegistryPath, []byte(notARegistry), 0o644))
	a := filepath.Join(root, "a.go")
	_, warning, err := ws.Acquire(t.Context(), []string{a}, "s1")
	require.NoError(t, err)
	require.NotNil(t, warning)
	assert.ErrorIs(t, warning, core.ErrCorruptRegistry)
	done, err := ws.Finish(t.Context(), "s1")
	assert.ErrorIs(t, err, core.ErrCorruptRegistry)
	require.Len(t, done.Released, 1)
	assert.Equal(t, a, done.Released[0].Path)
	data, err := os.ReadFile(ws.RegistryPath)
	require.NoError(t, err)
	assert.Equal(t, notARegistry, string(data), "never overwritten")
}

// A project moves from one shared home to another, or back to its own,
// only when the home it leaves holds no live lock on its files.
func TestShareHomeMovesOnlyAnUnusedHome(t *testing.T) {
	root, _ := newProject(t)
	s := Settings{UserHome: filepath.Join(root, "user")}
	first, second := filepath.Join(t.TempDir(), "first"), filepath.Join(t.TempDir(), "second")
	_, err := ShareHome(t.Context(), root, first, s)
	require.NoError(t, err)
	ws, err := Open(t.Context(), root, s)
	require.NoError(t, err)
	lease, err := ws.Locker().Acquire(t.Context(), filepath.Join(root, "a.go"), "s1")
	require.NoError(t, err)

	var kept *KeptError
	for _, to := range []string{second, filepath.Join(root, HomeDirName)} {
		changed, err := ShareHome(t.Context(), root, to, s)
		require.ErrorAs(t, err, &kept, "to %s", to)
		assert.False(t, changed)
		again, err := Open(t.Context(), root, s)
		require.NoError(t, err)
		assert.Equal(t, first, again.Home, "nothing changed")
	}

	_, err = ws.Locker().Release(t.Context(), lease.Path, "s1")
	require.NoError(t, err)
	changed, err := ShareHome(t.Context(), root, second, s)
	require.NoError(t, err)
	assert.True(t, changed)
	changed, err = ShareHome(t.Context(), root, filepath.Join(root, HomeDirName), s)
	require.NoError(t, err)
	assert.True(t, changed)
	back, err := Open(t.Context(), root, s)
	require.NoError(t, err)
	assert.False(t, back.Shared())
	assert.Equal(t, filepath.Join(root, HomeDirName), back.Home)
}

// A session started by a hook after it already took locks (a pre-edit
// hook runs before the session-start one can have registered it) lists
// them, as register does; a second start changes nothing (issue 23).
func TestStartSessionListsTheLocksItHolds(t *testing.T) {
	root, ws := newProject(t)
	file := filepath.Join(root, "a.go")
	_, _, err := ws.Acquire(t.Context(), []string{file}, "s")
	require.NoError(t, err)
	s := core.Session{SessionID: "s", Provider: "p", AIVersion: "m", WorkingOn: "w"}
	start(t, ws, s)
	doc, err := ws.Registry().Load(t.Context())
	require.NoError(t, err)
	require.Len(t, doc.Agents, 1)
	assert.Equal(t, core.StatusWorking, doc.Agents[0].Status)
	assert.Equal(t, []string{file}, doc.Agents[0].DoNotTouch)
	start(t, ws, s)
	doc, err = ws.Registry().Load(t.Context())
	require.NoError(t, err)
	require.Len(t, doc.Agents, 1)

	// Finished, then started again: working, listing what it holds.
	_, err = ws.Finish(t.Context(), "s")
	require.NoError(t, err)
	_, _, err = ws.Acquire(t.Context(), []string{file}, "s")
	require.NoError(t, err)
	start(t, ws, s)
	doc, err = ws.Registry().Load(t.Context())
	require.NoError(t, err)
	assert.Equal(t, core.StatusWorking, doc.Agents[0].Status)
	assert.Equal(t, []string{file}, doc.Agents[0].DoNotTouch)
}

// The lock files have a change feed too: an acquire, and a registration,
// made through another workspace of the project (another process's) reach
// it. Each is watched in a project of its own, where nothing else writes.
func TestChangesOfTheLockFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for file-system notifications in real time")
	}
	for what, change := range map[string]func(t *testing.T, other *Workspace, root string) error{
		"an acquire": func(t *testing.T, other *Workspace, root string) error {
			_, _, err := other.Acquire(t.Context(), []string{filepath.Join(root, "a.go")}, "s1")
			return err
		},
		"a registration": func(t *testing.T, other *Workspace, _ string) error {
			_, err := other.Registry().Register(t.Context(), core.Session{SessionID: "s2"})
			return err
		},
	} {
		t.Run(what, func(t *testing.T) {
			root, ws := newProject(t)
			changes, err := ws.Changes(t.Context())
			require.NoError(t, err)
			other, err := Open(t.Context(), root, Settings{UserHome: filepath.Join(root, "user")})
			require.NoError(t, err)
			require.NoError(t, change(t, other, root))
			select {
			case <-changes:
			case <-time.After(10 * time.Second):
				t.Fatalf("no change reported for %s", what)
			}
		})
	}
}

// start starts session s as the session-start hooks do.
func start(t *testing.T, ws *Workspace, s core.Session) {
	t.Helper()
	_, err := ws.StartSession(t.Context(), s, SessionStart{})
	require.NoError(t, err)
}
