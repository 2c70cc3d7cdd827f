//go:build etcd

package main_test

import (
	"context"
	"fmt"
	neturl "net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/agentlock/agentlock/internal/testkit/etcdtest"
	"github.com/agentlock/agentlock/internal/testkit/proctest"
	"github.com/agentlock/agentlock/store/etcdstore"
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

// conformanceBackends are the stores of this build: the lock files, and an
// etcd started for the test.
func conformanceBackends(t *testing.T) []backend {
	// Started for the whole suite: a cluster started by a subtest would
	// stop when that subtest ends.
	cluster := etcdtest.Start(t, 1)
	var n atomic.Int64
	prefix := func() string { return fmt.Sprintf("conform%d", n.Add(1)) }
	url := map[string]string{} // checkout -> its store URL
	etcd := backend{
		name: "etcd",
		open: func(t *testing.T, root, dir, timeout string) []string {
			// The project's home, as init --store makes it: without one,
			// a pre-edit hook gates none of the checkout's files (the
			// store variable alone sets up no project).
			require.NoError(t, os.MkdirAll(filepath.Join(dir, ".agent-registry"), 0o700))
			url[dir] = cluster.URL(prefix())
			return hermeticEnv(t, root, "AGENTLOCK_STORE="+url[dir]+"?repo=conform", "AGENTLOCK_TIMEOUT="+timeout)
		},
		corrupt: func(t *testing.T, dir, path string) {
			cfg, err := etcdstore.ParseURL(url[dir])
			require.NoError(t, err)
			conn := etcdstore.NewConn(cfg)
			defer conn.Close()
			cli, err := conn.Client()
			require.NoError(t, err)
			rel, err := filepath.Rel(dir, path)
			require.NoError(t, err)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			_, err = cli.Put(ctx, cfg.Prefix+"/locks/conform/"+filepath.ToSlash(rel), "garbage without fields")
			require.NoError(t, err)
		},
	}
	return []backend{filesBackend, etcd}
}

// damageVersion damages session's version record of the project file rel
// in the project's store: its etcd key (teamStore's repository "test"),
// or the lock files.
func damageVersion(t *testing.T, p *project, session, rel string) {
	t.Helper()
	var url string
	for _, e := range p.env {
		if v, ok := strings.CutPrefix(e, "AGENTLOCK_STORE="); ok {
			url = v
		}
	}
	if url == "" {
		damageVersionFile(t, p, session, rel)
		return
	}
	cfg, err := etcdstore.ParseURL(url)
	require.NoError(t, err)
	conn := etcdstore.NewConn(cfg)
	defer conn.Close()
	cli, err := conn.Client()
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	key := cfg.Prefix + "/seen/test/" + neturl.PathEscape(session) + "/v/" + filepath.ToSlash(rel)
	got, err := cli.Get(ctx, key)
	require.NoError(t, err)
	require.Len(t, got.Kvs, 1, "%s holds %s's version", key, session)
	_, err = cli.Put(ctx, key, strings.ReplaceAll(string(got.Kvs[0].Value), "xxh64:", "xxh65:"), clientv3.WithLease(clientv3.LeaseID(got.Kvs[0].Lease)))
	require.NoError(t, err)
}
