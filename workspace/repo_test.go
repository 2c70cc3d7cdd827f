package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/gittest"
)

// A worktree inside the main worktree's folder (repo/.wt/b) shares the
// relative paths' locks too, and a path outside the repository keeps its
// real path.
func TestRepoScopeNestedWorktreeAndOutsidePath(t *testing.T) {
	gittest.Need(t)
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	repo, nested, outside := filepath.Join(root, "repo"), filepath.Join(root, "repo", ".wt", "b"), filepath.Join(root, "elsewhere", "f.txt")
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "src"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "src", "x.py"), []byte("1\n"), 0o644))
	git := func(dir string, args ...string) { gittest.Run(t, nil, dir, args...) }
	gittest.Commit(t, repo, "main")
	git(repo, "worktree", "add", "-q", nested, "-b", "feat-b")
	changed, err := SetRepoScope(nested, true)
	require.NoError(t, err)
	require.True(t, changed)
	spec, err := ReadStoreSpec(repo)
	require.NoError(t, err)
	require.Equal(t, StoreSpec{Scope: ScopeRepository}, spec, "the scope is the store setting, read from the shared home")
	s := Settings{UserHome: filepath.Join(root, "user")}

	wb, err := Open(t.Context(), nested, s)
	require.NoError(t, err)
	require.Equal(t, ScopeRepository, wb.Scope())
	require.Equal(t, filepath.Join(repo, ".git", RepoHomeDir), wb.Home)
	require.NoError(t, wb.Setup(t.Context()))
	_, _, err = wb.Acquire(t.Context(), []string{filepath.Join(nested, "src", "x.py"), outside}, "s-b")
	require.NoError(t, err)

	wa, err := Open(t.Context(), repo, s)
	require.NoError(t, err)
	st, err := wa.Locker().IsLocked(t.Context(), filepath.Join(repo, "src", "x.py"))
	require.NoError(t, err)
	require.Equal(t, "s-b", st.Owner, "one lock for src/x.py of both worktrees")
	st, err = wa.Locker().IsLocked(t.Context(), filepath.Join(repo, ".wt", "b", "src", "x.py"))
	require.NoError(t, err)
	require.Equal(t, "s-b", st.Owner, "the nested worktree's path, from the main one")
	st, err = wa.Locker().IsLocked(t.Context(), outside)
	require.NoError(t, err)
	require.Equal(t, "s-b", st.Owner)
	states, _, err := wa.Locker().List(t.Context())
	require.NoError(t, err)
	var paths []string
	for _, st := range states {
		paths = append(paths, st.Path)
	}
	// Listed in the main worktree's terms; the outside path's lock lives
	// in the home of paths outside any project, as in the default scope.
	require.Equal(t, []string{filepath.Join(repo, "src", "x.py")}, paths)

	// Off again: each worktree is back to a home of its own.
	changed, err = SetRepoScope(repo, false)
	require.NoError(t, err)
	require.True(t, changed)
	wa, err = Open(t.Context(), repo, s)
	require.NoError(t, err)
	require.Equal(t, ScopeCheckout, wa.Scope())
	require.Equal(t, filepath.Join(repo, HomeDirName), wa.Home)
}
