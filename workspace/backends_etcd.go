//go:build etcd

package workspace

import (
	"github.com/agentlock/agentlock/store"
	"github.com/agentlock/agentlock/store/etcdstore"
)

// linked are the backends of this build: etcd.
func linked() map[string]store.Backend {
	return map[string]store.Backend{"etcd": etcdstore.NewBackend()}
}

// EtcdBuild is true in the build that links the etcd store.
const EtcdBuild = true
