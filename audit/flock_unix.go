//go:build unix

package audit

import (
	"os"

	"golang.org/x/sys/unix"
)

// flock takes an exclusive flock of f until the returned function runs.
func flock(f *os.File) (func(), error) {
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX); err != nil {
		return nil, err
	}
	return func() { _ = unix.Flock(int(f.Fd()), unix.LOCK_UN) }, nil
}
