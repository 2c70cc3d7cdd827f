package workspace

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/sys/filedigest"
	"github.com/agentlock/agentlock/store"
)

// The after-tool hook's notice (Untold) digests only the files whose
// status changed since it last digested them; these tests pin what that
// must not lose. A workspace whose clock runs an hour ahead sees every
// file's status as older than filedigest.RacyMargin, so that a status it
// records proves the content (the steady state of a long session); one on
// the real clock sees a file just written as racy.

// futureWorkspace opens the project of root with a clock an hour ahead.
func futureWorkspace(t *testing.T, root string) *Workspace {
	t.Helper()
	ws, err := Open(t.Context(), root, Settings{UserHome: filepath.Join(root, "user"),
		Now: func() time.Time { return time.Now().Add(time.Hour) }})
	require.NoError(t, err)
	return ws
}

// versionOf returns session's recorded version of path.
func versionOf(t *testing.T, ws *Workspace, session, path string) store.Version {
	t.Helper()
	v, err := ws.versions()
	require.NoError(t, err)
	view, err := v.Seen(t.Context(), session, []store.Key{{Path: path}})
	require.NoError(t, err)
	ver, ok := view.Version(path)
	require.True(t, ok, "%s has a version of %s", session, path)
	return ver
}

// rewrite records ver as session's version of its file, as it is: a
// record the test shaped.
func rewrite(t *testing.T, ws *Workspace, session string, ver store.Version) {
	t.Helper()
	v, err := ws.versions()
	require.NoError(t, err)
	require.NoError(t, v.See(t.Context(), session, time.Time{}, []store.Version{ver}))
}

// Another session's change of the same size, its modification time set
// back to the one read (what a change in the same clock tick leaves): the
// status change time still differs, so the change is told, once, naming
// that session; a file nobody changed is never told.
func TestUntoldTellsASameSizeChangeInTheSameTick(t *testing.T) {
	root, _ := newProject(t)
	ws := futureWorkspace(t, root)
	ctx := t.Context()
	changed, kept := filepath.Join(root, "a.go"), filepath.Join(root, "b.go")
	require.NoError(t, os.WriteFile(changed, []byte("C0\n"), 0o644))
	require.NoError(t, os.WriteFile(kept, []byte("K0\n"), 0o644))
	_, err := ws.See(ctx, "x", []string{changed, kept}, time.Time{})
	require.NoError(t, err)
	read := versionOf(t, ws, "x", changed)
	require.True(t, isKey(read.Stat), "the read's status proves its content: %q", read.Stat)
	info, err := os.Stat(changed)
	require.NoError(t, err)

	told, err := ws.Untold(ctx, "x")
	require.NoError(t, err)
	assert.Empty(t, told, "nothing changed")

	require.NoError(t, os.WriteFile(changed, []byte("C1\n"), 0o644))
	require.NoError(t, os.Chtimes(changed, info.ModTime(), info.ModTime()))
	_, err = ws.Wrote(ctx, "y", []string{changed})
	require.NoError(t, err)
	now, err := os.Stat(changed)
	require.NoError(t, err)
	require.Equal(t, info.Size(), now.Size())
	require.True(t, info.ModTime().Equal(now.ModTime()), "same size, same modification time")

	told, err = ws.Untold(ctx, "x")
	require.NoError(t, err)
	require.Len(t, told, 1, "the change is told")
	assert.Equal(t, changed, told[0].Path)
	assert.Equal(t, ViewChanged, told[0].Why)
	require.NotNil(t, told[0].By)
	assert.Equal(t, "y", told[0].By.Session)
	for range 2 {
		told, err = ws.Untold(ctx, "x")
		require.NoError(t, err)
		assert.Empty(t, told, "told once")
	}
	key, err := filedigest.StatKey(changed)
	require.NoError(t, err)
	assert.Equal(t, toldPrefix+key, versionOf(t, ws, "x", changed).Stat, "the told content's status is kept")

	// A change after the notice (by a process outside agentlock) is told
	// again.
	require.NoError(t, os.WriteFile(changed, []byte("C2\n"), 0o644))
	require.NoError(t, os.Chtimes(changed, info.ModTime(), info.ModTime()))
	told, err = ws.Untold(ctx, "x")
	require.NoError(t, err)
	require.Len(t, told, 1, "a new change is told")
	told, err = ws.Untold(ctx, "x")
	require.NoError(t, err)
	assert.Empty(t, told)

	// Being told does not make the view fresh: a write is still judged
	// on the content.
	views, err := ws.Views(ctx, "x", []string{changed, kept}, nil)
	require.NoError(t, err)
	assert.True(t, views[0].Stale, "the pre-edit check still refuses")
	assert.False(t, views[1].Stale)
}

// Only a status that proves the content spares the digest: the test
// shapes x's record so that its digest names content the file does not
// have, its status the file's own. With a status recorded racy (a file
// read just after it was written) the file is digested, and the
// difference told; once a hook digests it past the margin, its status is
// recorded and the file is no longer digested (the shaped digest goes
// untold: proof that it was not read).
func TestUntoldDigestsOnlyWhatItsStatusCannotProve(t *testing.T) {
	root, real := newProject(t)
	ctx := t.Context()
	file := filepath.Join(root, "a.go")
	require.NoError(t, os.WriteFile(file, []byte("C0\n"), 0o644))
	_, err := real.See(ctx, "x", []string{file}, time.Time{})
	require.NoError(t, err)
	read := versionOf(t, real, "x", file)
	require.False(t, isKey(read.Stat), "a file read as it is written: racy (%q)", read.Stat)
	key, err := filedigest.StatKey(file)
	require.NoError(t, err)
	require.True(t, isKey(key))

	// A racy status is digested: the shaped digest is told.
	shaped := read
	shaped.Digest = "xxh64:3:0000000000000000"
	rewrite(t, real, "x", shaped)
	told, err := real.Untold(ctx, "x")
	require.NoError(t, err)
	require.Len(t, told, 1, "digested: its content is not the shaped digest")
	rewrite(t, real, "x", read)

	// Past the margin (the clock ahead), the hook digests the file once
	// and records its status.
	ahead := futureWorkspace(t, root)
	told, err = ahead.Untold(ctx, "x")
	require.NoError(t, err)
	assert.Empty(t, told)
	got := versionOf(t, ahead, "x", file)
	assert.Equal(t, key, got.Stat, "the status that proves the content is recorded")
	assert.Equal(t, read.Digest, got.Digest)
	assert.True(t, read.At.Equal(got.At), "the read stays when it was")

	// Now the file is not digested while its status stays.
	shaped = got
	shaped.Digest = "xxh64:3:0000000000000000"
	rewrite(t, ahead, "x", shaped)
	told, err = ahead.Untold(ctx, "x")
	require.NoError(t, err)
	assert.Empty(t, told, "not digested: its status is the one recorded")
	views, err := ahead.Views(ctx, "x", []string{file}, nil)
	require.NoError(t, err)
	assert.True(t, views[0].Stale, "the pre-edit check always digests")

	// A status field of the form agentlock wrote before proves nothing.
	shaped.Stat = read.Stat
	rewrite(t, ahead, "x", shaped)
	told, err = ahead.Untold(ctx, "x")
	require.NoError(t, err)
	assert.Len(t, told, 1, "an older record's status: digested")
}
