//go:build unix

package filedigest

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// errNotDir is what Lstat says of a path below a file.
var errNotDir = syscall.ENOTDIR

// openNoFollow opens a file for reading without following a final
// symbolic link and without blocking (a FIFO swapped in after the status
// must not hang the caller).
func openNoFollow(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
}

// inode is a file's inode number.
func inode(info os.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
