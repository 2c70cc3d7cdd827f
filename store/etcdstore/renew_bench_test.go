//go:build etcd

package etcdstore_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/internal/testkit/etcdtest"
	"github.com/agentlock/agentlock/store/etcdstore"
)

// BenchmarkRenewSession100 renews a session of 100 locks, as the renew
// hook does after every tool call, and reports what one renewal costs the
// cluster: requests, revisions written (what compaction reclaims) and the
// growth of the database file (bbolt grows in pages: an average).
func BenchmarkRenewSession100(b *testing.B) {
	c := etcdtest.Start(b, 1)
	var n atomic.Int64
	conn := countingConn(b, c, &n)
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	st := &etcdstore.Locks{Conn: conn, Repo: "example.com/org/bench", Root: root, Timeout: 30 * time.Second, Memory: b.TempDir()}
	l := core.NewLocker(st, core.Options{Timeout: 30 * time.Second, Cwd: root})
	var paths []string
	for i := range 100 {
		paths = append(paths, fmt.Sprintf("f%d.go", i))
	}
	for len(paths) > 0 {
		k := min(len(paths), etcdstore.MaxPaths)
		if _, err := l.AcquireAll(b.Context(), paths[:k], "s"); err != nil {
			b.Fatal(err)
		}
		paths = paths[k:]
	}
	report := measure(b, c, conn, &n)
	for range b.N {
		if err := l.KeepSessionAlive(b.Context(), "s"); err != nil {
			b.Fatal(err)
		}
	}
	report()
}

// BenchmarkRegistryHoldPaths100 is the registry's part of an acquire and
// release with 100 sessions registered: the session's do_not_touch gains
// a path, then loses it. It reports requests, revisions and the growth of
// the database file per acquire and release.
func BenchmarkRegistryHoldPaths100(b *testing.B) {
	c := etcdtest.Start(b, 1)
	var n atomic.Int64
	conn := countingConn(b, c, &n)
	_, r := registryOn(conn, filepath.Join(b.TempDir(), "registry.md"))
	for i := range 100 {
		if _, err := r.Register(b.Context(), core.Session{SessionID: fmt.Sprintf("s%d", i), Provider: "bench", WorkingOn: "benchmarking the registry"}); err != nil {
			b.Fatal(err)
		}
	}
	report := measure(b, c, conn, &n)
	for i := range b.N {
		p := fmt.Sprintf("/repo/f%d.go", i)
		if _, err := r.HoldPaths(b.Context(), "s7", p); err != nil {
			b.Fatal(err)
		}
		if _, err := r.DropPaths(b.Context(), "s7", p); err != nil {
			b.Fatal(err)
		}
	}
	report()
}

// measure starts the timer of b and returns what stops it and reports,
// per operation, the requests of conn (counted in n), the revisions the
// cluster wrote and the growth of its database file.
func measure(b *testing.B, c *etcdtest.Cluster, conn *etcdstore.Conn, n *atomic.Int64) func() {
	cli, err := conn.Client()
	if err != nil {
		b.Fatal(err)
	}
	status := func() (rev, size int64) {
		s, err := cli.Status(context.Background(), c.Endpoints()[0])
		if err != nil {
			b.Fatal(err)
		}
		return s.Header.Revision, s.DbSize
	}
	rev0, size0 := status()
	req0 := n.Load()
	b.ResetTimer()
	return func() {
		b.StopTimer()
		req := n.Load() - req0
		rev1, size1 := status()
		b.ReportMetric(float64(req)/float64(b.N), "requests/op")
		b.ReportMetric(float64(rev1-rev0)/float64(b.N), "revisions/op")
		b.ReportMetric(float64(size1-size0)/float64(b.N), "db-bytes/op")
	}
}
