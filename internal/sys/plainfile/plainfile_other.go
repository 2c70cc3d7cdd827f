//go:build !unix

package plainfile

import "os"

// Open opens path for reading: os.Open, where there is no poller to spare.
func Open(path string) (*os.File, error) { return os.Open(path) }

// OpenRegular opens path for reading and reports whether it is a regular
// file (flag is added to the open's flags).
func OpenRegular(path string, flag int) (f *os.File, regular bool, err error) {
	f, err = os.OpenFile(path, os.O_RDONLY|flag, 0)
	if err != nil {
		return nil, false, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, false, err
	}
	return f, info.Mode().IsRegular(), nil
}
