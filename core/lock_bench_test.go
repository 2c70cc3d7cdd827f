package core

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentlock/agentlock/store/filestore"
)

// lockerOf10k returns a Locker on a lock folder of 10,000 lock files held
// by 100 other sessions, and the paths of three locks that session "me"
// holds among them.
func lockerOf10k(b *testing.B) (*Locker, []string) {
	b.Helper()
	dir := b.TempDir()
	l := testLocker(dir, Options{Cwd: dir})
	stamp := float64(time.Now().UnixMicro()) / 1e6
	for i := range 10000 {
		p := filepath.Join(dir, fmt.Sprintf("pkg%03d", i/100), fmt.Sprintf("file%05d.go", i))
		rec := fmt.Sprintf("other-%02d|%.6f|%s", i%100, stamp, p)
		if err := os.WriteFile(filepath.Join(dir, filestore.LockFileName(p)), []byte(rec), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	own := []string{filepath.Join(dir, "own1.go"), filepath.Join(dir, "own2.go"), filepath.Join(dir, "own3.go")}
	if _, err := l.AcquireAll(b.Context(), own, "me"); err != nil {
		b.Fatal(err)
	}
	return l, own
}

// BenchmarkList10k is what status reads: every lock of a folder of 10,000.
func BenchmarkList10k(b *testing.B) {
	l, _ := lockerOf10k(b)
	for b.Loop() {
		states, _, err := l.List(b.Context())
		if err != nil || len(states) != 10003 {
			b.Fatal(len(states), err)
		}
	}
}

// BenchmarkRenewSession10k is the renew hook after every tool call: a
// session holding 3 locks among 10,000 renews them through its index,
// after the first renewal's one scan.
func BenchmarkRenewSession10k(b *testing.B) {
	l, own := lockerOf10k(b)
	if _, err := l.RenewSession(b.Context(), "me"); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		renewed, err := l.RenewSession(b.Context(), "me")
		if err != nil || len(renewed) != len(own) {
			b.Fatal(len(renewed), err)
		}
	}
}

// BenchmarkReleaseSession10k is finish: every lock file is read, so that
// locks taken by agent-registry 0.2 under the session's id are released.
func BenchmarkReleaseSession10k(b *testing.B) {
	l, own := lockerOf10k(b)
	for b.Loop() {
		if _, err := l.AcquireAll(b.Context(), own, "me"); err != nil {
			b.Fatal(err)
		}
		released, err := l.ReleaseSession(b.Context(), "me")
		if err != nil || len(released) != len(own) {
			b.Fatal(len(released), err)
		}
	}
}

// BenchmarkAcquireRenew is the acquire hot path on a lock the session
// holds: one transaction and a look at its index.
func BenchmarkAcquireRenew(b *testing.B) {
	dir := b.TempDir()
	l := testLocker(dir, Options{Cwd: dir})
	for b.Loop() {
		if _, err := l.Acquire(b.Context(), "f.go", "me"); err != nil {
			b.Fatal(err)
		}
	}
}
