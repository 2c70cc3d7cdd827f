//go:build unix

package plainfile

import (
	"io/fs"
	"os"

	"golang.org/x/sys/unix"
)

// Open opens path for reading, as os.Open does, without the poller.
func Open(path string) (*os.File, error) {
	fd, err := open(path, unix.O_RDONLY|unix.O_CLOEXEC)
	if err != nil {
		return nil, err
	}
	return os.NewFile(uintptr(fd), path), nil
}

// OpenRegular opens path for reading without blocking on what is not a
// regular file (a FIFO planted there must not hang the caller), flag
// added to the open's flags (unix.O_NOFOLLOW, say), and returns its
// status: the caller reads it only when info says it is a regular file,
// and closes it either way. The descriptor blocks again after the open
// (a regular file's reads never wait), so the poller never sees it.
func OpenRegular(path string, flag int) (f *os.File, info fs.FileInfo, err error) {
	fd, err := open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC|flag)
	if err != nil {
		return nil, nil, err
	}
	// O_NONBLOCK is the only status flag the open set: clearing them all
	// clears it.
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_SETFL, 0); err != nil {
		unix.Close(fd)
		return nil, nil, &fs.PathError{Op: "fcntl", Path: path, Err: err}
	}
	f = os.NewFile(uintptr(fd), path)
	if info, err = f.Stat(); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, info, nil
}

// open is open(2) with flags, retried on EINTR, its error os.Open's.
func open(path string, flags int) (int, error) {
	for {
		fd, err := unix.Open(path, flags, 0)
		if err == nil {
			return fd, nil
		}
		if err != unix.EINTR {
			return -1, &fs.PathError{Op: "open", Path: path, Err: err}
		}
	}
}
