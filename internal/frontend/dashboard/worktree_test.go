package dashboard

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/gittest"

	"github.com/agentlock/agentlock/workspace"
)

// A held file that another worktree of the repository changed too carries
// a badge naming that worktree (issue 26).
func TestConflictBadge(t *testing.T) {
	gittest.Need(t)
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	repo, other := filepath.Join(root, "repo"), filepath.Join(root, "wt-b")
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "src"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "src", "x.py"), []byte("1\n"), 0o644))
	git := func(dir string, args ...string) { gittest.Run(t, nil, dir, args...) }
	gittest.Commit(t, repo, "main")
	git(repo, "worktree", "add", "-q", other, "-b", "feat-b")
	require.NoError(t, os.WriteFile(filepath.Join(other, "src", "x.py"), []byte("2\n"), 0o644))
	ws, err := workspace.Open(t.Context(), repo, workspace.Settings{UserHome: filepath.Join(root, "user"), ConflictCache: -1})
	require.NoError(t, err)
	require.NoError(t, ws.Setup(t.Context()))
	_, _, err = ws.Acquire(t.Context(), []string{filepath.Join(repo, "src", "x.py")}, "s-a")
	require.NoError(t, err)
	srv, err := New(Options{Workspace: ws})
	require.NoError(t, err)
	f := &fixture{root: repo, ws: ws, srv: srv}
	page := f.get(t, "/").Body.String()
	require.Contains(t, page, `class="badge conflict"`)
	require.Contains(t, page, "src/x.py is also changed in ../wt-b (branch feat-b, uncommitted)")
}
