//go:build !etcd

package workspace

import "github.com/agentlock/agentlock/store"

// linked are the backends of this build: none but the lock files, which
// need none. The etcd client stays out of this build, whose start every
// hook pays for (docs/speed.md); agentlock-etcd links it.
func linked() map[string]store.Backend { return map[string]store.Backend{} }

// EtcdBuild is true in the build that links the etcd store.
const EtcdBuild = false
