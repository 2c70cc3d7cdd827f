//go:build !unix

package filestore

import "os"

// lockType is the kind of lock taken on a file.
type lockType int

const (
	readLock lockType = iota
	writeLock
)

func flock(*os.File, lockType) error { return ErrUnsupportedPlatform }

func openLockFile(string, string, bool) (*os.File, error) { return nil, ErrUnsupportedPlatform }

func lockDir(string, lockType, bool) (*os.File, error) { return nil, ErrUnsupportedPlatform }

func openSidecar(string, string) (*os.File, error) { return nil, ErrUnsupportedPlatform }
