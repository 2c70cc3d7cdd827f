//go:build !unix

package filestore

import (
	"context"
	"os"
	"time"

	"github.com/agentlock/agentlock/internal/sys/flock"
	"github.com/agentlock/agentlock/store"
)

// lockFile is an open lock file; none can be opened on this platform.
type lockFile struct {
	fd   int
	name string
}

func (*lockFile) close() error { return ErrUnsupportedPlatform }
func (*lockFile) lock(context.Context, flock.Mode, time.Duration) error {
	return ErrUnsupportedPlatform
}
func (*lockFile) modTime() time.Time            { return time.Time{} }
func (*lockFile) readAll(int64) ([]byte, error) { return nil, ErrUnsupportedPlatform }
func (*lockFile) replace([]byte) error          { return ErrUnsupportedPlatform }
func (*lockFile) stat() error                   { return ErrUnsupportedPlatform }

func checkLocal(int, string) error { return nil }

func openLockFile(string, string, bool, bool) (*lockFile, error) { return nil, ErrUnsupportedPlatform }

func scanDir(context.Context, string, time.Duration) ([]store.Slot, error) {
	return nil, ErrUnsupportedPlatform
}

func lockDir(context.Context, string, flock.Mode, bool, time.Duration) (*lockFile, error) {
	return nil, ErrUnsupportedPlatform
}

func openSidecar(context.Context, string, string, time.Duration) (*os.File, error) {
	return nil, ErrUnsupportedPlatform
}

// FileSystemAt cannot tell file systems apart on this system: the kind is
// always FSUnknown.
func FileSystemAt(path string) (FileSystem, error) {
	if _, err := os.Stat(path); err != nil {
		return FileSystem{}, err
	}
	return FileSystem{Name: "unknown", Kind: FSUnknown}, nil
}

func openDocument(path string) (*os.File, error) { return os.Open(path) }

func fileID(os.FileInfo) uint64 { return 0 }

// IsQueueFileName reports whether name is the name of a lock's queue file.
func IsQueueFileName(name string) bool { return false }

func openQueue(string) int { return -1 }
func closeQueue(int)       {}
