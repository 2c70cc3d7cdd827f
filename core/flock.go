package core

import (
	"errors"
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// lockType is the kind of flock(2) lock taken on a file.
type lockType int

const (
	readLock  lockType = unix.LOCK_SH
	writeLock lockType = unix.LOCK_EX
)

// String names the operation for error messages ("RLock", "Lock").
func (lt lockType) String() string {
	if lt == readLock {
		return "RLock"
	}
	return "Lock"
}

// flock waits for a lock of type lt on f. flock is taken only around one
// read-modify-write of a file's contents and released by closing f (or by
// the kernel when the process dies), never held across an agent's work.
func flock(f *os.File, lt lockType) error {
	for {
		err := unix.Flock(int(f.Fd()), int(lt))
		if !errors.Is(err, unix.EINTR) {
			if err != nil {
				return &fs.PathError{Op: lt.String(), Path: f.Name(), Err: err}
			}
			return nil
		}
	}
}
