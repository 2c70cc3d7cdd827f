//go:build etcd

package main_test

import (
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentlock/agentlock/internal/etcdtest"
	"github.com/agentlock/agentlock/internal/proctest"
)

// sharedEtcd is the embedded etcd of the test binary, started on first use
// in the folder TestMain made (AGENTLOCK_TEST_ETCD_DIR), stopped when the
// test binary exits.
type sharedEtcd struct {
	once    sync.Once
	cluster *etcdtest.Cluster
	err     error
	n       atomic.Int64
}

var team = &sharedEtcd{}

// teamStore returns the environment that puts a project on the shared etcd
// (AGENTLOCK_STORE with a prefix of its own and a repository id), or
// nothing unless AGENTLOCK_TEST_STORE=etcd: then the hook and
// follow-the-instructions tests run on the etcd store (.ci/run does).
func teamStore(t testing.TB) []string {
	dir := os.Getenv("AGENTLOCK_TEST_ETCD_DIR")
	if os.Getenv("AGENTLOCK_TEST_STORE") != "etcd" || dir == "" {
		return nil
	}
	team.once.Do(func() { team.cluster, team.err = etcdtest.StartIn(dir, 1) })
	if team.err != nil {
		proctest.Unavailable(t, "ETCD SKIPPED: %v", team.err)
	}
	return []string{fmt.Sprintf("AGENTLOCK_STORE=%s?repo=test", team.cluster.URL(fmt.Sprintf("p%d", team.n.Add(1))))}
}

// etcdTestBuild tells scripts ([etcd]) whether this is the etcd build.
const etcdTestBuild = true
