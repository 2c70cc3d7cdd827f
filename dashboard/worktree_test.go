package dashboard

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/workspace"
)

// A held file that another worktree of the repository changed too carries
// a badge naming that worktree (issue 26).
func TestConflictBadge(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("git is needed: %v", err)
		}
		t.Skipf("git is needed: %v", err)
	}
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	repo, other := filepath.Join(root, "repo"), filepath.Join(root, "wt-b")
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
	git(repo, "worktree", "add", "-q", other, "-b", "feat-b")
	require.NoError(t, os.WriteFile(filepath.Join(other, "src", "x.py"), []byte("2\n"), 0o644))
	ws, err := workspace.Open(repo, workspace.Settings{UserHome: filepath.Join(root, "user"), ConflictCache: -1})
	require.NoError(t, err)
	require.NoError(t, ws.Setup())
	_, _, err = ws.Acquire([]string{filepath.Join(repo, "src", "x.py")}, "s-a")
	require.NoError(t, err)
	srv, err := New(Options{Workspace: ws})
	require.NoError(t, err)
	f := &fixture{root: repo, ws: ws, srv: srv}
	page := f.get(t, "/").Body.String()
	require.Contains(t, page, `class="badge conflict"`)
	require.Contains(t, page, "src/x.py is also changed in ../wt-b (branch feat-b, uncommitted)")
}
