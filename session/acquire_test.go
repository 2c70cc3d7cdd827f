package session

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/workspace"
)

// project returns a real folder set up as an agentlock project.
func project(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.Mkdir(filepath.Join(root, ".git"), 0o755))
	require.NoError(t, os.Mkdir(filepath.Join(root, workspace.HomeDirName), 0o755))
	return root
}

// service is the service of one command of session working in dir.
func service(dir, session string, cache *workspace.Cache) *Service {
	return New(Config{WorkDir: dir, Settings: workspace.Settings{Cache: cache}, Identity: Inputs{Env: session}})
}

// Paths of two workspaces are all or none: a refusal in the second
// releases what the first newly took; the first's own earlier locks stay.
func TestAcquireAcrossWorkspacesIsAllOrNone(t *testing.T) {
	a, b := project(t), project(t)
	pa, pb, kept := filepath.Join(a, "x.go"), filepath.Join(b, "y.go"), filepath.Join(a, "kept.go")
	ctx := t.Context()

	_, err := service(a, "s-1", nil).Acquire(ctx, AcquireRequest{Paths: []string{kept}})
	require.NoError(t, err)
	_, err = service(b, "s-2", nil).Acquire(ctx, AcquireRequest{Paths: []string{pb}})
	require.NoError(t, err)
	got, err := service(a, "s-1", nil).Acquire(ctx, AcquireRequest{Paths: []string{kept, pa, pb}})
	require.ErrorIs(t, err, core.ErrLocked)
	assert.Empty(t, got.Leases)
	var held *core.HeldError
	require.ErrorAs(t, err, &held)
	assert.Equal(t, pb, held.Path)
	assert.Equal(t, "s-2", held.Owner)

	check := func(path string) core.State {
		ws, err := workspace.Open(ctx, path, workspace.Settings{})
		require.NoError(t, err)
		st, err := ws.Locker().IsLocked(ctx, path)
		require.NoError(t, err)
		return st
	}
	assert.Empty(t, check(pa).Owner, "the first workspace's new lock was undone")
	assert.Equal(t, "s-1", check(kept).Owner, "a lock the session already held is not undone")
	assert.Equal(t, "s-2", check(pb).Owner)

	// Free: both are taken, each in its own workspace.
	_, err = service(b, "s-2", nil).Release(ctx, ReleaseRequest{Paths: []string{pb}})
	require.NoError(t, err)
	got, err = service(a, "s-1", nil).Acquire(ctx, AcquireRequest{Paths: []string{pa, pb}})
	require.NoError(t, err)
	require.Len(t, got.Leases, 2)
	assert.Equal(t, []string{pa, pb}, leasePaths(got.Leases), "in the order asked")
	assert.Equal(t, "s-1", check(pb).Owner)
}

// One command opens each workspace once, however many steps need it (the
// acquisition, the registry's mirror), and resolves its session once.
func TestOneCommandOpensEachWorkspaceOnce(t *testing.T) {
	a, b := project(t), project(t)
	ctx := t.Context()
	for _, root := range []string{a, b} {
		_, err := service(root, "claude-1", nil).Start(ctx, StartRequest{Session: core.Session{WorkingOn: "x"}})
		require.NoError(t, err)
	}
	cache := workspace.NewCache()
	looked := 0
	svc := New(Config{WorkDir: a, Settings: workspace.Settings{Cache: cache}, Identity: Inputs{Harness: "claude-1", HarnessVar: "CLAUDE_CODE_SESSION_ID",
		Lookup: func(string) Recorded { looked++; return Recorded{} }}})
	_, err := svc.Acquire(ctx, AcquireRequest{Paths: []string{filepath.Join(a, "1.go"), filepath.Join(a, "2.go"), filepath.Join(b, "3.go")}})
	require.NoError(t, err)
	_, err = svc.Release(ctx, ReleaseRequest{Paths: []string{filepath.Join(a, "1.go")}})
	require.NoError(t, err)
	assert.Len(t, cache.Opened(), 2, "two workspaces, each opened once")
	assert.Equal(t, 1, looked, "the agent records are looked up once")
	assert.Equal(t, 1, svc.lookups)
}
