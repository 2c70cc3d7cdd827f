package core

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentlock/agentlock/store/filestore"
)

// BenchmarkAreaAcquire10k is an area acquire over a subtree with 10,000
// lock files below it (held by the session itself, half of them, and
// released, the other half): the exclusive transaction scans them all.
// Goal (issue 15): under 100 ms.
func BenchmarkAreaAcquire10k(b *testing.B) {
	dir := b.TempDir()
	locks := filepath.Join(dir, "locks")
	if err := os.Mkdir(locks, 0o700); err != nil {
		b.Fatal(err)
	}
	l := NewLocker(&filestore.Locks{DirFor: func(string) (string, error) { return locks, nil }, ScanDir: locks}, Options{Cwd: dir})
	stamp := float64(time.Now().UnixMicro()) / 1e6
	for i := range 10000 {
		p := filepath.Join(dir, "tree", fmt.Sprintf("pkg%03d", i/100), fmt.Sprintf("file%05d.go", i))
		rec := ""
		if i%2 == 0 {
			rec = fmt.Sprintf("me|%.6f|%s", stamp, p)
		}
		if err := os.WriteFile(filepath.Join(locks, filestore.LockFileName(p)), []byte(rec), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	for b.Loop() {
		if _, err := l.Acquire(b.Context(), "tree/", "me"); err != nil {
			b.Fatal(err)
		}
		if _, err := l.Release(b.Context(), "tree/", "me"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFileAcquireDepth8 is the acquire hot path (a renewal) of a file
// eight folders deep: without any area (areas.list missing), and with
// three areas listed, one of them the session's own around the file.
func BenchmarkFileAcquireDepth8(b *testing.B) {
	for _, withAreas := range []bool{false, true} {
		name := "no-areas"
		if withAreas {
			name = "3-areas"
		}
		b.Run(name, func(b *testing.B) {
			dir := b.TempDir()
			l := testLocker(dir, Options{Cwd: dir})
			if withAreas {
				for _, a := range []string{"a/b/c/d/", "x/", "y/z/"} {
					if _, err := l.Acquire(b.Context(), a, "me"); err != nil {
						b.Fatal(err)
					}
				}
			}
			for b.Loop() {
				if _, err := l.Acquire(b.Context(), "a/b/c/d/e/f/g/h/file.go", "me"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
