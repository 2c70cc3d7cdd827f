package githook

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/gittest"
	"github.com/agentlock/agentlock/workspace"
)

// stagedRepo is a git work tree set up for agentlock whose files a.txt,
// b.txt, mine.txt and old.txt (renamed to new.txt) are staged.
func stagedRepo(t *testing.T) (string, *workspace.Workspace) {
	t.Helper()
	gittest.Need(t)
	top, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(top, "old.txt"), []byte("o"), 0o644))
	gittest.Commit(t, top, "main")
	for _, name := range []string{"a.txt", "b.txt", "mine.txt"} {
		require.NoError(t, os.WriteFile(filepath.Join(top, name), []byte(name), 0o644))
	}
	gittest.Run(t, nil, top, "mv", "old.txt", "new.txt")
	gittest.Run(t, nil, top, "add", ".")
	ws, err := workspace.Open(t.Context(), top, workspace.Settings{UserHome: filepath.Join(t.TempDir(), "user")})
	require.NoError(t, err)
	require.NoError(t, ws.Setup(t.Context()))
	return top, ws
}

func TestStagedListsBothSidesOfARename(t *testing.T) {
	top, _ := stagedRepo(t)
	got, paths, err := Staged(filepath.Join(top))
	require.NoError(t, err)
	assert.Equal(t, top, got)
	var names []string
	for _, p := range paths {
		names = append(names, rel(top, p))
	}
	assert.ElementsMatch(t, []string{"a.txt", "b.txt", "mine.txt", "new.txt", "old.txt"}, names)

	_, _, err = Staged(t.TempDir())
	assert.True(t, errors.Is(err, ErrNotWorkTree), "outside a work tree: %v", err)
}

func TestGuardRefusesTheFilesOtherSessionsHold(t *testing.T) {
	top, ws := stagedRepo(t)
	_, _, err := ws.Acquire(t.Context(), []string{filepath.Join(top, "a.txt"), filepath.Join(top, "old.txt")}, "claude-other")
	require.NoError(t, err)
	_, _, err = ws.Acquire(t.Context(), []string{filepath.Join(top, "mine.txt")}, "claude-me")
	require.NoError(t, err)
	_, paths, err := Staged(top)
	require.NoError(t, err)

	refused := Guard(t.Context(), ws, top, paths, "claude-me")
	require.Len(t, refused, 2, "a.txt and the old side of the rename; the session's own file and free files pass")
	for _, r := range refused {
		require.NotNil(t, r.Held)
		assert.Equal(t, "claude-other", r.Held.Owner)
		assert.Contains(t, r.Message, "is locked by session claude-other")
		assert.Contains(t, r.Message, "this commit (session claude-me)")
		assert.Contains(t, r.Message, "git restore --staged")
	}

	person := Guard(t.Context(), ws, top, paths, "")
	assert.Len(t, person, 3, "outside any session every file an agent holds is refused")
	assert.Contains(t, person[0].Message, "this commit (no session)")
}

func TestGuardRefusesAFileInsideAnotherSessionsArea(t *testing.T) {
	top, ws := stagedRepo(t)
	sub := filepath.Join(top, "src")
	require.NoError(t, os.Mkdir(sub, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(sub, "x.go"), []byte("x"), 0o644))
	gittest.Run(t, nil, top, "add", "src")
	_, _, err := ws.Acquire(t.Context(), []string{sub + "/"}, "claude-other")
	require.NoError(t, err)
	_, paths, err := Staged(top)
	require.NoError(t, err)
	refused := Guard(t.Context(), ws, top, paths, "claude-me")
	require.Len(t, refused, 1)
	assert.Contains(t, refused[0].Message, "src/x.go is inside area "+sub+"/ held by session claude-other")
}

func TestGuardFailsClosedOnALockItCannotRead(t *testing.T) {
	top, ws := stagedRepo(t)
	file := filepath.Join(top, "b.txt")
	_, _, err := ws.Acquire(t.Context(), []string{file}, "claude-other")
	require.NoError(t, err)
	states, _, err := ws.Locker().List(t.Context())
	require.NoError(t, err)
	require.Len(t, states, 1)
	require.NoError(t, os.WriteFile(states[0].Ref, []byte("{not json"), 0o644))
	_, paths, err := Staged(top)
	require.NoError(t, err)
	refused := Guard(t.Context(), ws, top, paths, "claude-me")
	require.Len(t, refused, 1)
	assert.Nil(t, refused[0].Held)
	assert.Contains(t, refused[0].Message, "so the commit is refused")
}
