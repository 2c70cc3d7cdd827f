//go:build !unix

package filedigest

import (
	"errors"
	"os"
)

// errNotDir is never returned here: the other systems report a missing
// path as fs.ErrNotExist.
var errNotDir = errors.New("not a folder")

// openNoFollow opens a file for reading.
func openNoFollow(path string) (*os.File, error) { return os.Open(path) }

// inode is 0: this system gives none.
func inode(os.FileInfo) uint64 { return 0 }
