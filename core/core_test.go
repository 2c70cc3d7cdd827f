package core

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseRecord(t *testing.T) {
	tests := []struct {
		name    string
		content string
		want    record
		wantErr bool
	}{
		{name: "empty is free", content: ""},
		{name: "blank is free", content: " \n"},
		{name: "0.2 form", content: "claude-1|1700000000.5|/p/a.go",
			want: record{session: "claude-1", stamp: time.Unix(1700000000, 5e8), path: "/p/a.go"}},
		{name: "path with a bar", content: "s|1700000000|/p/a|b.go",
			want: record{session: "s", stamp: time.Unix(1700000000, 0), path: "/p/a|b.go"}},
		{name: "0.1.0 form", content: "kimi-9|1700000000.25",
			want: record{session: "kimi-9", stamp: time.Unix(1700000000, 25e7)}},
		{name: "trailing newline", content: "s|1700000000|/p\n",
			want: record{session: "s", stamp: time.Unix(1700000000, 0), path: "/p"}},
		{name: "no separator", content: "garbage", wantErr: true},
		{name: "bad timestamp", content: "s|yesterday|/p", wantErr: true},
		{name: "nan timestamp", content: "s|nan|/p", wantErr: true},
		{name: "no session", content: "|1700000000|/p", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := parseRecord([]byte(tt.content))
			if tt.wantErr {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want.session, got.session)
			assert.Equal(t, tt.want.path, got.path)
			assert.True(t, tt.want.stamp.Equal(got.stamp), "stamp %v, want %v", got.stamp, tt.want.stamp)
		})
	}
}

func TestRecordRoundTrip(t *testing.T) {
	r := record{session: "codex-7", stamp: time.Unix(1732912345, 123456000), path: "/w/src/main.go"}
	assert.Equal(t, "codex-7|1732912345.123456|/w/src/main.go", string(r.encode()))
	back, err := parseRecord(r.encode())
	require.NoError(t, err)
	assert.Equal(t, r.session, back.session)
	assert.Equal(t, r.path, back.path)
	assert.True(t, r.stamp.Equal(back.stamp))
}

func TestLockFileNameIsTruncatedSHA256(t *testing.T) {
	// sha256("/tmp/x") starts 2e56aa36f538b33b (sha256sum): the name is its first 16 hex digits.
	assert.Equal(t, "2e56aa36f538b33b.lock", LockFileName("/tmp/x"))
}

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
	}
	_, err = RealPath("", root)
	assert.Error(t, err)
}

func TestHeldErrorMatchesSentinel(t *testing.T) {
	dir := t.TempDir()
	l := &Locker{LockDir: StaticDir(dir), Cwd: dir}
	_, err := l.Acquire("f", "a")
	require.NoError(t, err)
	_, err = l.Acquire("f", "b")
	var held *HeldError
	require.ErrorAs(t, err, &held)
	assert.Equal(t, "a", held.Owner)
	assert.True(t, errors.Is(err, ErrLocked))

	_, err = l.Heartbeat("f", "b")
	assert.ErrorIs(t, err, ErrNotOwner)
	_, err = l.Heartbeat("g", "b")
	assert.ErrorIs(t, err, ErrNoLock)
}

func TestClockDecidesStaleness(t *testing.T) {
	dir := t.TempDir()
	now := time.Unix(1_800_000_000, 0)
	l := &Locker{LockDir: StaticDir(dir), Cwd: dir, Timeout: time.Minute, Now: func() time.Time { return now }}
	_, err := l.Acquire("f", "a")
	require.NoError(t, err)
	now = now.Add(time.Minute) // exactly the timeout: still fresh
	_, err = l.Acquire("f", "b")
	require.ErrorIs(t, err, ErrLocked)
	now = now.Add(time.Millisecond)
	lease, err := l.Acquire("f", "b")
	require.NoError(t, err)
	assert.Equal(t, "a", lease.StaleOwner)
}

func BenchmarkAcquireRelease(b *testing.B) {
	dir := b.TempDir()
	l := &Locker{LockDir: StaticDir(dir), Cwd: dir}
	for b.Loop() {
		if _, err := l.Acquire("src/file.go", "bench"); err != nil {
			b.Fatal(err)
		}
		if _, err := l.Release("src/file.go", "bench"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkIsLocked(b *testing.B) {
	dir := b.TempDir()
	l := &Locker{LockDir: StaticDir(dir), Cwd: dir}
	if _, err := l.Acquire("src/file.go", "bench"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := l.IsLocked("src/file.go"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkAcquireAllTenPaths(b *testing.B) {
	dir := b.TempDir()
	l := &Locker{LockDir: StaticDir(dir), Cwd: dir}
	paths := []string{"a", "b", "c", "d", "e", "f", "g", "h", "i", "j"}
	for b.Loop() {
		if _, err := l.AcquireAll(paths, "bench"); err != nil {
			b.Fatal(err)
		}
	}
}
