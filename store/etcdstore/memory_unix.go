//go:build etcd && unix

package etcdstore

import (
	"os"

	"golang.org/x/sys/unix"
)

// memoryWorks: leases can be remembered here (see Locks.Memory).
const memoryWorks = true

// lockFile takes an exclusive flock on path (created if need be) and
// returns its release.
func lockFile(path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	for {
		err = unix.Flock(int(f.Fd()), unix.LOCK_EX)
		if err != unix.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
