//go:build unix

package filedigest

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/agentlock/agentlock/internal/sys/plainfile"
)

// errNotDir is what Lstat says of a path below a file.
var errNotDir = syscall.ENOTDIR

// openNoFollow opens a file for reading without following a final
// symbolic link and without blocking (a FIFO swapped in after the status
// must not hang the caller), and reports whether it is a regular file.
func openNoFollow(path string) (f *os.File, regular bool, err error) {
	return plainfile.OpenRegular(path, unix.O_NOFOLLOW)
}

// inode is a file's inode number.
func inode(info os.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}
