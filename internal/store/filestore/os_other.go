//go:build !unix

package filestore

import (
	"os"
	"time"
)

// lockType is the kind of lock taken on a file.
type lockType int

const (
	readLock lockType = iota
	writeLock
)

func flock(*os.File, lockType, time.Duration) error { return ErrUnsupportedPlatform }

func openLockFile(string, string, bool, bool) (*os.File, error) { return nil, ErrUnsupportedPlatform }

func lockDir(string, lockType, bool, time.Duration) (*os.File, error) {
	return nil, ErrUnsupportedPlatform
}

func openSidecar(string, string, time.Duration) (*os.File, error) { return nil, ErrUnsupportedPlatform }

// FileSystemAt cannot tell file systems apart on this system: the kind is
// always FSUnknown.
func FileSystemAt(path string) (FileSystem, error) {
	if _, err := os.Stat(path); err != nil {
		return FileSystem{}, err
	}
	return FileSystem{Name: "unknown", Kind: FSUnknown}, nil
}

func openDocument(path string) (*os.File, error) { return os.Open(path) }
