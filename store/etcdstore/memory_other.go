//go:build etcd && !unix

package etcdstore

import "errors"

// memoryWorks: no lease is remembered here (see Locks.Memory).
const memoryWorks = false

// lockFile is not available here: the store remembers no lease, and
// renewing a session reads its leases from the cluster.
func lockFile(string) (func(), error) {
	return nil, errors.New("no file locks on this system")
}
