package workspace

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// A worktree inside the main worktree's folder (repo/.wt/b) shares the
// relative paths' locks too, and a path outside the repository keeps its
// real path.
func TestRepoScopeNestedWorktreeAndOutsidePath(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("git is needed: %v", err)
		}
		t.Skipf("git is needed: %v", err)
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	repo, nested, outside := filepath.Join(root, "repo"), filepath.Join(root, "repo", ".wt", "b"), filepath.Join(root, "elsewhere", "f.txt")
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "src"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "src", "x.py"), []byte("1\n"), 0o644))
	git := func(dir string, args ...string) {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t",
			"GIT_AUTHOR_EMAIL=t@t", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "git %v: %s", args, out)
	}
	git(repo, "init", "-q", "-b", "main")
	git(repo, "add", ".")
	git(repo, "commit", "-q", "-m", "init")
	git(repo, "worktree", "add", "-q", nested, "-b", "feat-b")
	changed, err := SetRepoScope(nested, true)
	require.NoError(t, err)
	require.True(t, changed)
	s := Settings{UserHome: filepath.Join(root, "user")}

	wb, err := Open(nested, s)
	require.NoError(t, err)
	require.Equal(t, ScopeRepository, wb.Scope())
	require.Equal(t, filepath.Join(repo, ".git", RepoHomeDir), wb.Home)
	require.NoError(t, wb.Setup())
	_, _, err = wb.Acquire([]string{filepath.Join(nested, "src", "x.py"), outside}, "s-b")
	require.NoError(t, err)

	wa, err := Open(repo, s)
	require.NoError(t, err)
	st, err := wa.Locker().IsLocked(filepath.Join(repo, "src", "x.py"))
	require.NoError(t, err)
	require.Equal(t, "s-b", st.Owner, "one lock for src/x.py of both worktrees")
	st, err = wa.Locker().IsLocked(filepath.Join(repo, ".wt", "b", "src", "x.py"))
	require.NoError(t, err)
	require.Equal(t, "s-b", st.Owner, "the nested worktree's path, from the main one")
	st, err = wa.Locker().IsLocked(outside)
	require.NoError(t, err)
	require.Equal(t, "s-b", st.Owner)
	states, _, err := wa.Locker().List()
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
	wa, err = Open(repo, s)
	require.NoError(t, err)
	require.Equal(t, ScopeCheckout, wa.Scope())
	require.Equal(t, filepath.Join(repo, HomeDirName), wa.Home)
}
