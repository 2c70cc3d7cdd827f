package core

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/store/filestore"
)

func TestValidateSession(t *testing.T) {
	for _, ok := range []string{"a", "claude-1", "kimi-1732912345", "ü-session", strings.Repeat("x", 128)} {
		assert.NoError(t, ValidateSession(ok), ok)
	}
	for _, bad := range []string{"", "a b", "a|b", "a\tb", "a\nb", "\x00", strings.Repeat("x", 129), "\u00a0", "bad\xff"} {
		err := ValidateSession(bad)
		assert.ErrorIs(t, err, ErrInvalidSession, "%q", bad)
	}
}

func TestRealPath(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(root, "a/b"), 0o755))
	require.NoError(t, os.Symlink(filepath.Join(root, "a/b"), filepath.Join(root, "link")))
	require.NoError(t, os.Symlink("self", filepath.Join(root, "self")))
	tests := []struct{ in, want string }{
		{"a/b/f.go", "a/b/f.go"},
		{"link/f.go", "a/b/f.go"},
		{"link/../f.go", "a/f.go"},
		{"./a//b/./f.go", "a/b/f.go"},
		{"new/dir/../f.go", "new/f.go"},
		{"self/f.go", "self/f.go"},
	}
	for _, tt := range tests {
		got, err := RealPath(tt.in, root)
		require.NoError(t, err, tt.in)
		assert.Equal(t, filepath.Join(root, tt.want), got, tt.in)
		// From a real folder, not resolved again: the same path.
		in, err := RealPathIn(tt.in, root)
		require.NoError(t, err, tt.in)
		assert.Equal(t, got, in, tt.in)
	}
	// Up and out of the folder, and through a link from below it.
	sub := filepath.Join(root, "a/b")
	for _, rel := range []string{"../f.go", "../../link/f.go", "../../link/../x", "/abs/olute", strings.Repeat("../", 20) + "f"} {
		want, err := RealPath(rel, sub)
		require.NoError(t, err, rel)
		got, err := RealPathIn(rel, sub)
		require.NoError(t, err, rel)
		assert.Equal(t, want, got, rel)
	}
	_, err = RealPath("", root)
	assert.Error(t, err)
	_, err = RealPathIn("", root)
	assert.Error(t, err)
	_, err = RealPathIn(strings.Repeat("x", MaxPathLen), root)
	assert.ErrorIs(t, err, ErrInvalidPath, "the folder and the path together are too long")
}

func TestHeldErrorMatchesSentinel(t *testing.T) {
	dir := t.TempDir()
	l := testLocker(dir, Options{Cwd: dir})
	_, err := l.Acquire(t.Context(), "f", "a")
	require.NoError(t, err)
	_, err = l.Acquire(t.Context(), "f", "b")
	var held *HeldError
	require.ErrorAs(t, err, &held)
	assert.Equal(t, "a", held.Owner)
	assert.True(t, errors.Is(err, ErrLocked))

	_, err = l.Heartbeat(t.Context(), "f", "b")
	assert.ErrorIs(t, err, ErrNotOwner)
	_, err = l.Heartbeat(t.Context(), "g", "b")
	assert.ErrorIs(t, err, ErrNoLock)
}

func TestClockDecidesStaleness(t *testing.T) {
	dir := t.TempDir()
	now := time.Unix(1_800_000_000, 0)
	l := testLocker(dir, Options{Cwd: dir, Timeout: time.Minute, Now: func() time.Time { return now }})
	_, err := l.Acquire(t.Context(), "f", "a")
	require.NoError(t, err)
	now = now.Add(time.Minute) // exactly the timeout: still fresh
	_, err = l.Acquire(t.Context(), "f", "b")
	require.ErrorIs(t, err, ErrLocked)
	now = now.Add(time.Millisecond)
	lease, err := l.Acquire(t.Context(), "f", "b")
	require.NoError(t, err)
	assert.Equal(t, "a", lease.StaleOwner)
}

func BenchmarkAcquireRelease(b *testing.B) {
	dir := b.TempDir()
	l := testLocker(dir, Options{Cwd: dir})
	for b.Loop() {
		if _, err := l.Acquire(b.Context(), "src/file.go", "bench"); err != nil {
			b.Fatal(err)
		}
		if _, err := l.Release(b.Context(), "src/file.go", "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkIsLocked(b *testing.B) {
	dir := b.TempDir()
	l := testLocker(dir, Options{Cwd: dir})
	if _, err := l.Acquire(b.Context(), "src/file.go", "bench"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := l.IsLocked(b.Context(), "src/file.go"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAcquireAllTenPaths(b *testing.B) {
	dir := b.TempDir()
	l := testLocker(dir, Options{Cwd: dir})
	paths := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
	for b.Loop() {
		if _, err := l.AcquireAll(b.Context(), paths, "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

// testLocker returns a Locker on lock files in dir.
func testLocker(dir string, opts Options) *Locker {
	return NewLocker(&filestore.Locks{DirFor: func(string) (string, error) { return dir, nil }, ScanDir: dir, Timeout: opts.Timeout, Now: opts.Now}, opts)
}

func TestValidateExistingSession(t *testing.T) {
	for _, ok := range []string{"a", "claude 1", "tab\tid", " lead", "new\nline", "ü", strings.Repeat("x", 4096)} {
		assert.NoError(t, ValidateExistingSession(ok), "%q", ok)
	}
	for _, bad := range []string{"", " ", "\n", "a|b", "bad\xff", strings.Repeat("x", 4097)} {
		assert.ErrorIs(t, ValidateExistingSession(bad), ErrInvalidSession, "%q", bad)
	}
}

// A lock that agent-registry 0.2 took for an id agentlock would not accept
// for a new lock (one with a space) can be renewed, released and found by
// owner with that id.
func TestLocksOfIDsThatOnlyExistingStateAccepts(t *testing.T) {
	dir := t.TempDir()
	l := testLocker(dir, Options{Cwd: dir})
	_, err := l.Acquire(t.Context(), "f", "claude 1")
	require.ErrorIs(t, err, ErrInvalidSession, "new locks keep the strict rule")

	for _, name := range []string{"f", "g"} {
		real, err := RealPath(name, dir)
		require.NoError(t, err)
		rec := fmt.Sprintf("claude 1|%d.5|%s", time.Now().Unix(), real)
		require.NoError(t, os.WriteFile(filepath.Join(dir, filestore.LockFileName(real)), []byte(rec), 0o644))
	}
	_, err = l.Heartbeat(t.Context(), "f", "claude 1")
	require.NoError(t, err)
	st, err := l.Release(t.Context(), "f", "claude 1")
	require.NoError(t, err)
	assert.Equal(t, "claude 1", st.Owner)
	renewed, err := l.RenewSession(t.Context(), "claude 1")
	require.NoError(t, err)
	assert.Len(t, renewed, 1)
	released, err := l.ReleaseSession(t.Context(), "claude 1")
	require.NoError(t, err)
	require.Len(t, released, 1)
	assert.Equal(t, filepath.Join(dir, "g"), released[0].Path)
}

func TestChildSession(t *testing.T) {
	assert.Equal(t, "claude-1/a7f3", ChildSession("claude-1", "a7f3"), "a plain id is kept")
	long := strings.Repeat("x", 200)
	for _, tc := range []struct{ name, parent, sub string }{
		{"too long", "claude-1", long},
		{"a space", "claude-1", "agent one"},
		{"a bar", "claude-1", "a|b"},
		{"a slash", "claude-1", "a/b"},
		{"empty", "claude-1", ""},
		{"a long parent", strings.Repeat("p", 110), "0123456789abcdef0123456789"},
	} {
		id := ChildSession(tc.parent, tc.sub)
		require.NoError(t, ValidateSession(id), tc.name)
		assert.True(t, IsChildOf(id, tc.parent), "%s: %s is a child of %s", tc.name, id, tc.parent)
		assert.Equal(t, id, ChildSession(tc.parent, tc.sub), "%s: stable", tc.name)
		assert.Contains(t, id, "~", "%s: shortened", tc.name)
	}
	assert.Equal(t, "claude-1/agent~", ChildSession("claude-1", "agent one")[:len("claude-1/agent~")], "the plain start is kept")
	assert.NotEqual(t, ChildSession("claude-1", long), ChildSession("claude-1", long+"y"), "two ids, two children")
	assert.Error(t, ValidateSession(ChildSession(strings.Repeat("p", 120), "a-long-sub-agent-id")), "no room: refused, never cut")

	assert.True(t, IsChildOf("a/b/c", "a/b"))
	assert.False(t, IsChildOf("a/b/c", "a"), "a grandchild is no child")
	assert.False(t, IsChildOf("ab", "a"))
	assert.False(t, IsChildOf("a/", "a"))
}
