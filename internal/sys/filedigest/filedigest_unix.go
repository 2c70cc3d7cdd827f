//go:build unix

package filedigest

import (
	"os"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentlock/agentlock/internal/sys/plainfile"
)

// errNotDir is what Lstat says of a path below a file.
var errNotDir = syscall.ENOTDIR

// openNoFollow opens a file for reading without following a final
// symbolic link and without blocking (a FIFO swapped in after the status
// must not hang the caller), and returns its status.
func openNoFollow(path string) (*os.File, os.FileInfo, error) {
	return plainfile.OpenRegular(path, unix.O_NOFOLLOW)
}

// inode is a file's inode number.
func inode(info os.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// status returns a file's inode, status change time and device; false
// where the system's status gives no status change time agentlock reads.
func status(info os.FileInfo) (ino uint64, ctime time.Time, dev uint64, ok bool) {
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, time.Time{}, 0, false
	}
	c, ok := ctimeOf(st)
	if !ok {
		return 0, time.Time{}, 0, false
	}
	return uint64(st.Ino), time.Unix(c.Unix()), uint64(st.Dev), true
}
