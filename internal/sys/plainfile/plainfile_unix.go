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
// added to the open's flags (unix.O_NOFOLLOW, say). It reports whether
// what it opened is a regular file: then the descriptor blocks again, and
// the poller never sees it. Anything else is returned open too, for the
// caller to name (its Stat) and close.
func OpenRegular(path string, flag int) (f *os.File, regular bool, err error) {
	fd, err := open(path, unix.O_RDONLY|unix.O_NONBLOCK|unix.O_CLOEXEC|flag)
	if err != nil {
		return nil, false, err
	}
	var st unix.Stat_t
	for {
		err = unix.Fstat(fd, &st)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		unix.Close(fd)
		return nil, false, &fs.PathError{Op: "stat", Path: path, Err: err}
	}
	regular = st.Mode&unix.S_IFMT == unix.S_IFREG
	if regular {
		if err := unix.SetNonblock(fd, false); err != nil {
			unix.Close(fd)
			return nil, false, &fs.PathError{Op: "fcntl", Path: path, Err: err}
		}
	}
	return os.NewFile(uintptr(fd), path), regular, nil
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
