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
