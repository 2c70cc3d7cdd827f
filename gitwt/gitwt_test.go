package gitwt

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/gittest"
)

func TestParseStatus(t *testing.T) {
	out := []byte(" M src/a.go\x00?? new file.txt\x00R  moved.go\x00old.go\x00A  added.go\x00")
	require.Equal(t, []string{"added.go", "moved.go", "new file.txt", "src/a.go"}, parseStatus(out))
	require.Empty(t, parseStatus(nil))
}

// gitRepo makes a repository with one commit and a linked worktree on
// branch feat, and returns the common folder and both roots.
func gitRepo(t *testing.T) (common, main, linked string) {
	t.Helper()
	gittest.Need(t)
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	main, linked = filepath.Join(root, "main"), filepath.Join(root, "linked")
	require.NoError(t, os.MkdirAll(main, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(main, "a.txt"), []byte("a\n"), 0o644))
	git := func(dir string, args ...string) { gittest.Run(t, nil, dir, args...) }
	gittest.Commit(t, main, "trunk")
	git(main, "worktree", "add", "-q", linked, "-b", "feat")
	require.NoError(t, os.WriteFile(filepath.Join(linked, "b.txt"), []byte("b\n"), 0o644))
	git(linked, "add", "b.txt")
	git(linked, "commit", "-q", "-m", "b")
	return filepath.Join(main, ".git"), main, linked
}

func TestListAndChanged(t *testing.T) {
	common, main, linked := gitRepo(t)
	list, err := List(common)
	require.NoError(t, err)
	require.Len(t, list, 2)
	require.Equal(t, main, list[0].Root)
	require.Equal(t, "trunk", list[0].Branch)
	require.Equal(t, linked, list[1].Root)
	require.Equal(t, "feat", list[1].Branch)
	require.NotEqual(t, list[0].Head, list[1].Head)
	require.Len(t, list[1].Head, 40)

	require.NoError(t, os.WriteFile(filepath.Join(linked, "a.txt"), []byte("changed\n"), 0o644))
	now := time.Unix(1000, 0)
	o := Options{CacheDir: t.TempDir(), Now: func() time.Time { return now }}
	ch, err := Changed(list[1], list[0].Head, o)
	require.NoError(t, err)
	require.Equal(t, []string{"a.txt"}, ch.Uncommitted)
	require.Equal(t, []string{"b.txt"}, ch.Committed)
	// Within MaxAge, with HEAD and index unchanged, the cache answers: an
	// unstaged edit is not seen yet...
	require.NoError(t, os.WriteFile(filepath.Join(linked, "c.txt"), []byte("c\n"), 0o644))
	ch, err = Changed(list[1], list[0].Head, o)
	require.NoError(t, err)
	require.Equal(t, []string{"a.txt"}, ch.Uncommitted)
	// ...and is once the answer is older than MaxAge.
	now = now.Add(DefaultMaxAge)
	ch, err = Changed(list[1], list[0].Head, o)
	require.NoError(t, err)
	require.Equal(t, []string{"a.txt", "c.txt"}, ch.Uncommitted)
}

func TestPredict(t *testing.T) {
	common, main, _ := gitRepo(t)
	list, err := List(common)
	require.NoError(t, err)
	files, err := Predict(main, list[0].Head, list[1].Head, Options{})
	require.NoError(t, err)
	require.Empty(t, files, "b.txt added on one side only merges cleanly")
}
