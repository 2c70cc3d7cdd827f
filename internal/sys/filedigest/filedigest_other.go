//go:build !unix

package filedigest

import (
	"errors"
	"os"
	"time"

	"github.com/agentlock/agentlock/internal/sys/plainfile"
)

// errNotDir is never returned here: the other systems report a missing
// path as fs.ErrNotExist.
var errNotDir = errors.New("not a folder")

// openNoFollow opens a file for reading and returns its status.
func openNoFollow(path string) (*os.File, os.FileInfo, error) {
	return plainfile.OpenRegular(path, 0)
}

// inode is 0: this system gives none.
func inode(os.FileInfo) uint64 { return 0 }

// status gives nothing here: a Key needs the status change time, which
// agentlock reads only on Linux and macOS, so every Sum is racy.
func status(os.FileInfo) (ino uint64, ctime time.Time, dev uint64, ok bool) {
	return 0, time.Time{}, 0, false
}
