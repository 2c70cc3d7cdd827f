//go:build !unix

package plainfile

import (
	"io/fs"
	"os"
)

// Open opens path for reading: os.Open, where there is no poller to spare.
func Open(path string) (*os.File, error) { return os.Open(path) }

// OpenRegular opens path for reading and returns its status (flag is
// added to the open's flags): the caller reads it only when info says it
// is a regular file, and closes it either way.
func OpenRegular(path string, flag int) (f *os.File, info fs.FileInfo, err error) {
	f, err = os.OpenFile(path, os.O_RDONLY|flag, 0)
	if err != nil {
		return nil, nil, err
	}
	if info, err = f.Stat(); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, info, nil
}
