//go:build etcd

package etcdstore

import (
	"context"
	"os"

	"github.com/agentlock/agentlock/internal/sys/flock"
)

// memoryWorks: leases can be remembered where there is flock (see
// Locks.Memory); elsewhere renewing a session reads its leases from the
// cluster.
const memoryWorks = flock.Supported

// lockFile takes an exclusive flock on path (created if need be), waiting
// at most flock.DefaultWait for another process of the repository, and
// returns its release.
func lockFile(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	if err := flock.Lock(ctx, int(f.Fd()), path, flock.Exclusive, 0); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
