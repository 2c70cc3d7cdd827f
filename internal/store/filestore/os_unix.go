//go:build unix

package filestore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentlock/agentlock/internal/store"
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

// flock takes a lock of type lt on f, waiting at most wait (DefaultWait
// when zero) for another process to drop its lock, then failing with a
// *store.BusyError. The wait is bounded because a critical section lasts
// microseconds: a lock held longer belongs to a process that was stopped
// (SIGSTOP) or is stuck, and a blocking flock(2) would hang every agent
// behind it. flock(2) has no timeout, so the lock is tried without
// blocking, with pauses growing from 1ms to 20ms: short enough that a
// waiter barely notices a normal holder. The lock is released by closing
// f, or by the kernel when the process dies.
func flock(f *os.File, lt lockType, wait time.Duration) error {
	if wait <= 0 {
		wait = DefaultWait
	}
	start := time.Now()
	pause := time.Millisecond
	for {
		err := unix.Flock(int(f.Fd()), int(lt)|unix.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, unix.EINTR):
			continue
		case !errors.Is(err, unix.EWOULDBLOCK):
			return &fs.PathError{Op: lt.String(), Path: f.Name(), Err: err}
		}
		if time.Since(start) >= wait {
			return &store.BusyError{Ref: f.Name(), Waited: wait}
		}
		time.Sleep(min(pause, wait-time.Since(start)+time.Millisecond))
		pause = min(pause*2, 20*time.Millisecond)
	}
}

// openLockFile opens a lock file for reading, and for writing when write is
// set (a reader needs no write access to the lock folder or its files),
// creating it (and its folder dir) when create is set. O_NOFOLLOW refuses a symbolic link
// planted in the lock folder, so that agentlock never truncates the file
// it points to; anything but a regular file is refused too. The file is never
// truncated on open: its content is the lock's state.
func openLockFile(file, dir string, create, write bool) (*os.File, error) {
	// O_NONBLOCK: opening a FIFO planted in the folder must not hang.
	flags := os.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC
	if write {
		flags = os.O_RDWR | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC
	}
	if create {
		flags |= os.O_CREATE
	}
	f, err := os.OpenFile(file, flags, 0o644)
	if create && errors.Is(err, fs.ErrNotExist) {
		if err := ensureDir(dir); err != nil {
			return nil, err
		}
		f, err = os.OpenFile(file, flags, 0o644)
	}
	if errors.Is(err, unix.ELOOP) {
		return nil, fmt.Errorf("%s: lock file is a symbolic link; refusing to follow it", file)
	}
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: lock file is not a regular file but %s", file, typeOf(info.Mode()))
	}
	// A second hard link makes the lock file also some other file — one
	// planted to make agentlock write into, or empty, a victim. agentlock
	// never links a lock file, so one with more links is not ours.
	var st unix.Stat_t
	if err := unix.Fstat(int(f.Fd()), &st); err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "fstat", Path: file, Err: err}
	}
	if st.Nlink > 1 {
		f.Close()
		return nil, fmt.Errorf("%s: lock file has %d hard links; refusing a file that is also another file (remove the other links)", file, st.Nlink)
	}
	if err := checkLocalFile(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// maxRetries bounds how often a lock is retried because the folder or file
// it was taken on has just been removed by RemoveHome.
const maxRetries = 8

// lockDir opens the folder dir (creating it when create is set) and takes
// a flock of type lt on it. A folder removed while this process waited for
// its flock is opened again, so that the lock is always on the folder that
// the path names.
func lockDir(dir string, lt lockType, create bool, wait time.Duration) (*os.File, error) {
	for range maxRetries {
		if create {
			if err := ensureDir(dir); err != nil {
				return nil, err
			}
		}
		d, err := os.OpenFile(dir, os.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return nil, fmt.Errorf("open lock folder: %w", err)
		}
		if err := flock(d, lt, wait); err != nil {
			d.Close()
			return nil, err
		}
		if !removed(d) {
			return d, nil
		}
		d.Close()
	}
	return nil, fmt.Errorf("lock folder %s: removed again and again while waiting for it", dir)
}

// removed reports whether f's file or folder has been unlinked.
func removed(f *os.File) bool {
	var st unix.Stat_t
	return unix.Fstat(int(f.Fd()), &st) == nil && st.Nlink == 0
}

// openDocument opens a document (registry.md) for reading, without
// blocking: a FIFO planted in its place must not hang every command that
// reads the registry. Anything but a regular file is refused.
func openDocument(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("not a regular file but %s", typeOf(info.Mode()))
	}
	// Reads of a regular file do not depend on O_NONBLOCK; clear it anyway
	// so that the descriptor behaves as a plain open's.
	if err := unix.SetNonblock(int(f.Fd()), false); err != nil {
		f.Close()
		return nil, &fs.PathError{Op: "fcntl", Path: path, Err: err}
	}
	return f, nil
}

// openSidecar opens (creating it) the lock file that serialises the writers
// of a document, flocked exclusively. A sidecar removed while this process
// waited (RemoveHome) is created again.
func openSidecar(path, dir string, wait time.Duration) (*os.File, error) {
	for range maxRetries {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("create registry folder: %w", err)
		}
		// O_NONBLOCK: opening a FIFO planted there must not hang.
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0o644)
		if err != nil {
			return nil, fmt.Errorf("open registry lock: %w", err)
		}
		if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
			f.Close()
			return nil, fmt.Errorf("%s: registry lock is not a regular file", path)
		}
		if err := checkLocalFile(f); err != nil {
			f.Close()
			return nil, err
		}
		if err := flock(f, writeLock, wait); err != nil {
			f.Close()
			return nil, err
		}
		if !removed(f) {
			return f, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("%s: removed again and again while waiting for it", path)
}

// ensureDir creates dir (and its parents) when missing, with mode 0700 for
// what it creates.
func ensureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create lock directory: %w", err)
	}
	return nil
}
