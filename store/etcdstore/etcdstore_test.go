//go:build etcd

package etcdstore_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/etcdserverpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/internal/testkit/etcdtest"
	"github.com/agentlock/agentlock/store"
	"github.com/agentlock/agentlock/store/etcdstore"
)

// checkout is one checkout of the repository, on the shared cluster.
// startConn starts a one-member etcd for the test and returns a
// connection to it under the prefix "t", closed when the test ends.
func startConn(t *testing.T) *etcdstore.Conn {
	t.Helper()
	c := etcdtest.Start(t, 1)
	cfg, err := etcdstore.ParseURL(c.URL("t"))
	if err != nil {
		t.Fatal(err)
	}
	conn := etcdstore.NewConn(cfg)
	t.Cleanup(func() { conn.Close() })
	return conn
}

// tempRoot is a checkout's folder for the test, by its real path (the
// store compares paths below it).
func tempRoot(t testing.TB) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return root
}

func checkout(t *testing.T, conn *etcdstore.Conn, timeout time.Duration) (string, *core.Locker) {
	t.Helper()
	root := tempRoot(t)
	st := &etcdstore.Locks{Conn: conn, Repo: "example.com/org/repo", Root: root, Timeout: timeout}
	return root, core.NewLocker(st, core.Options{Timeout: timeout, Cwd: root})
}

func TestLocksAcrossCheckouts(t *testing.T) {
	conn := startConn(t)
	rootA, a := checkout(t, conn, 30*time.Second)
	rootB, b := checkout(t, conn, 30*time.Second)

	if _, err := a.Acquire(t.Context(), "src/x.go", "s-a"); err != nil {
		t.Fatalf("acquire in A: %v", err)
	}
	_, err := b.Acquire(t.Context(), "src/x.go", "s-b")
	var held *core.HeldError
	if !errors.As(err, &held) || held.Owner != "s-a" || held.Path != filepath.Join(rootB, "src/x.go") {
		t.Fatalf("acquire in B: want held by s-a at B's path, got %v", err)
	}
	if l, err := a.Acquire(t.Context(), "src/x.go", "s-a"); err != nil || !l.Renewed {
		t.Fatalf("re-acquire: %+v %v", l, err)
	}
	if _, err := b.Heartbeat(t.Context(), "src/x.go", "s-b"); !errors.Is(err, core.ErrNotOwner) {
		t.Fatalf("heartbeat by another: %v", err)
	}
	if _, err := b.Release(t.Context(), "src/x.go", "s-b"); !errors.Is(err, core.ErrNotOwner) {
		t.Fatalf("release by another: %v", err)
	}
	// All or nothing: y is free, x is held, so B gets neither.
	if _, err := b.AcquireAll(t.Context(), []string{"src/y.go", "src/x.go"}, "s-b"); !errors.Is(err, core.ErrLocked) {
		t.Fatalf("acquire all: %v", err)
	}
	if s, err := b.IsLocked(t.Context(), "src/y.go"); err != nil || s.Owner != "" {
		t.Fatalf("y after a refused acquire all: %+v %v", s, err)
	}
	states, problems, err := b.List(t.Context())
	if err != nil || len(problems) > 0 || len(states) != 1 || states[0].Path != filepath.Join(rootB, "src/x.go") || states[0].Owner != "s-a" || !states[0].Locked() {
		t.Fatalf("list from B: %+v %v %v", states, problems, err)
	}
	if s, err := a.Release(t.Context(), "src/x.go", "s-a"); err != nil || s.Owner != "s-a" || s.Path != filepath.Join(rootA, "src/x.go") {
		t.Fatalf("release: %+v %v", s, err)
	}
	if _, err := b.Acquire(t.Context(), "src/x.go", "s-b"); err != nil {
		t.Fatalf("acquire after release: %v", err)
	}
	if _, err := b.Acquire(t.Context(), filepath.Join(os.TempDir(), "elsewhere"), "s-b"); err == nil || !strings.Contains(err.Error(), "outside the checkout") {
		t.Fatalf("a path outside the checkout: %v", err)
	}
}

func TestLeaseExpiry(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a lease to expire")
	}
	conn := startConn(t)
	_, a := checkout(t, conn, time.Second)
	_, b := checkout(t, conn, time.Second)
	if _, err := a.Acquire(t.Context(), "f", "s-a"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		s, err := b.IsLocked(t.Context(), "f")
		if err != nil {
			t.Fatal(err)
		}
		if s.Stale {
			if s.Owner != "s-a" {
				t.Fatalf("stale lock owner: %+v", s)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("lock still live 5 s after a lease of 1 s: %+v", s)
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The owner lost it: renewing says so.
	if _, err := a.Heartbeat(t.Context(), "f", "s-a"); !errors.Is(err, core.ErrNoLock) {
		t.Fatalf("heartbeat after the lease expired: %v", err)
	}
	l, err := b.Acquire(t.Context(), "f", "s-b")
	if err != nil || l.StaleOwner != "s-a" {
		t.Fatalf("takeover: %+v %v", l, err)
	}
}

func TestNormalizeRemote(t *testing.T) {
	for _, u := range []string{
		"git@github.com:Org/Repo.git", "https://github.com/Org/Repo", "ssh://git@github.com/Org/Repo.git",
		"https://user@GitHub.com/Org/Repo/", "ssh://git@github.com:22/Org/Repo",
	} {
		if got := etcdstore.NormalizeRemote(u); got != "github.com/org/repo" {
			t.Errorf("NormalizeRemote(%q) = %q", u, got)
		}
	}
	// GitHub and GitLab paths name one repository whatever their case
	// (issue 23); other hosts keep the path's case.
	for u, want := range map[string]string{
		"https://github.com/Acme/API":              "github.com/acme/api",
		"git@github.com:acme/api.git":              "github.com/acme/api",
		"ssh://git@ssh.github.com:443/Acme/API":    "github.com/acme/api",
		"https://GitLab.com/Group/Sub/Project.git": "gitlab.com/group/sub/project",
		"git@example.com:Org/Repo.git":             "example.com/Org/Repo",
	} {
		if got := etcdstore.NormalizeRemote(u); got != want {
			t.Errorf("NormalizeRemote(%q) = %q, want %q", u, got, want)
		}
	}
}

func TestUnreachable(t *testing.T) {
	conn := etcdstore.NewConn(etcdstore.Config{Endpoints: []string{"127.0.0.1:1"}, Prefix: "/t", DialTimeout: 300 * time.Millisecond})
	t.Cleanup(func() { conn.Close() })
	_, a := checkout(t, conn, time.Minute)
	_, err := a.Acquire(t.Context(), "f", "s")
	if !errors.Is(err, etcdstore.ErrUnavailable) || !strings.Contains(err.Error(), "127.0.0.1:1") {
		t.Fatalf("want unavailable naming the endpoint, got %v", err)
	}
}

// A session's renewal of one lock keeps its other locks alive, and a
// listing shows them renewed.
func TestRenewalKeepsTheSessionsLocks(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a lease to age")
	}
	conn := startConn(t)
	_, a := checkout(t, conn, 3*time.Second)
	if _, err := a.AcquireAll(t.Context(), []string{"x", "y"}, "s"); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		time.Sleep(time.Second)
		if _, err := a.Heartbeat(t.Context(), "x", "s"); err != nil {
			t.Fatal(err)
		}
	}
	// 3 s after y was written, past its timeout: alive through x's renewals.
	s, err := a.IsLocked(t.Context(), "y")
	if err != nil || !s.Locked() || s.Age > 2*time.Second {
		t.Fatalf("y after the session renewed x: %+v %v", s, err)
	}
}

// Areas (issue 15): a folder and everything below it, across checkouts.
func TestAreasAcrossCheckouts(t *testing.T) {
	conn := startConn(t)
	rootA, a := checkout(t, conn, 30*time.Second)
	rootB, b := checkout(t, conn, 30*time.Second)
	if err := os.MkdirAll(filepath.Join(rootA, "src", "auth"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(rootB, "src", "auth"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Acquire(t.Context(), "src/auth/", "s-a"); err != nil {
		t.Fatalf("area in A: %v", err)
	}
	var held *core.HeldError
	for _, p := range []string{"src/auth/login.py", "src/auth/deep/", "src/"} {
		_, err := b.Acquire(t.Context(), p, "s-b")
		if !errors.As(err, &held) || held.Owner != "s-a" {
			t.Fatalf("%s in B under A's area: %v", p, err)
		}
	}
	if _, err := a.Acquire(t.Context(), "src/auth/login.py", "s-a"); err != nil {
		t.Fatalf("a file in one's own area: %v", err)
	}
	if _, err := b.Acquire(t.Context(), "src/other.go", "s-b"); err != nil {
		t.Fatalf("a file beside the area: %v", err)
	}
	if _, err := a.Release(t.Context(), "src/auth/", "s-a"); err != nil {
		t.Fatal(err)
	}
	// A still holds login.py: B's area over it is refused, a file beside it is not.
	if _, err := b.Acquire(t.Context(), "src/auth/", "s-b"); !errors.As(err, &held) || held.Owner != "s-a" {
		t.Fatalf("an area over another's file: %v", err)
	}
	if _, err := b.Acquire(t.Context(), "src/auth/util.py", "s-b"); err != nil {
		t.Fatalf("a file in a released area: %v", err)
	}
}

// An area and files below it, acquired at once by other sessions: never
// both.
func TestAreaRacesFilesBelowIt(t *testing.T) {
	conn := startConn(t)
	_, a := checkout(t, conn, 30*time.Second)
	rounds := 20
	if testing.Short() {
		rounds = 4
	}
	for round := range rounds {
		const files = 6
		type result struct {
			area bool
			err  error
		}
		results := make(chan result, files+1)
		start := make(chan struct{})
		go func() {
			<-start
			_, err := a.Acquire(t.Context(), "src/", fmt.Sprintf("area-%d", round))
			results <- result{true, err}
		}()
		for i := range files {
			go func() {
				<-start
				_, err := a.Acquire(t.Context(), fmt.Sprintf("src/f%d.go", i), fmt.Sprintf("file-%d-%d", round, i))
				results <- result{false, err}
			}()
		}
		close(start)
		areaWon, filesWon := false, 0
		for range files + 1 {
			r := <-results
			if r.err != nil && !errors.Is(r.err, core.ErrLocked) {
				t.Fatalf("round %d: %v", round, r.err)
			}
			switch {
			case r.err != nil:
			case r.area:
				areaWon = true
			default:
				filesWon++
			}
		}
		if areaWon && filesWon > 0 || !areaWon && filesWon == 0 {
			t.Fatalf("round %d: area won %v, files won %d", round, areaWon, filesWon)
		}
		states, _, err := a.List(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range states {
			if _, err := a.ForceRelease(t.Context(), s.Path); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// lockLeaseTTL returns the granted TTL of the lease a lock key is
// attached to.
func lockLeaseTTL(t *testing.T, conn *etcdstore.Conn, st *etcdstore.Locks, rel string) int64 {
	t.Helper()
	cli, err := conn.Client()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := cli.Get(context.Background(), st.LockPrefix()+rel)
	if err != nil || len(resp.Kvs) != 1 || resp.Kvs[0].Lease == 0 {
		t.Fatalf("lock key %s: %+v %v", rel, resp, err)
	}
	ttl, err := cli.TimeToLive(context.Background(), clientv3.LeaseID(resp.Kvs[0].Lease))
	if err != nil {
		t.Fatal(err)
	}
	return ttl.GrantedTTL
}

// One lease per (repository, session, timeout): a lock taken with a long
// timeout never rides on the short lease of another lock of the same
// session, nor of the same session id in another repository (issue 23:
// a lock taken with --timeout 30 after one with --timeout 3 was taken
// over after 4.5 s).
func TestLeasePerRepositorySessionAndTimeout(t *testing.T) {
	conn := startConn(t)
	root := tempRoot(t)
	locker := func(repo string, timeout time.Duration) (*etcdstore.Locks, *core.Locker) {
		st := &etcdstore.Locks{Conn: conn, Repo: repo, Root: root, Timeout: timeout}
		return st, core.NewLocker(st, core.Options{Timeout: timeout, Cwd: root})
	}
	otherShort, other := locker("example.com/other/repo", 3*time.Second)
	_, short := locker("example.com/org/repo", 3*time.Second)
	long, longL := locker("example.com/org/repo", 30*time.Second)
	if _, err := other.Acquire(t.Context(), "o.go", "s"); err != nil {
		t.Fatal(err)
	}
	if _, err := longL.Acquire(t.Context(), "first-long.go", "s"); err != nil {
		t.Fatal(err)
	}
	if _, err := short.Acquire(t.Context(), "short.go", "s"); err != nil {
		t.Fatal(err)
	}
	if _, err := longL.Acquire(t.Context(), "long.go", "s"); err != nil {
		t.Fatal(err)
	}
	if got := lockLeaseTTL(t, conn, long, "long.go"); got != 30 {
		t.Errorf("the lock taken with a 30 s timeout has a lease of %d s", got)
	}
	if got := lockLeaseTTL(t, conn, long, "short.go"); got != 3 {
		t.Errorf("the lock taken with a 3 s timeout has a lease of %d s", got)
	}
	if got := lockLeaseTTL(t, conn, otherShort, "o.go"); got != 3 {
		t.Errorf("the other repository's lock has a lease of %d s", got)
	}
	// Taken again with the long timeout, the short lock moves to the long lease.
	if _, err := longL.Acquire(t.Context(), "short.go", "s"); err != nil {
		t.Fatal(err)
	}
	if got := lockLeaseTTL(t, conn, long, "short.go"); got != 30 {
		t.Errorf("re-acquired with a 30 s timeout, the lock has a lease of %d s", got)
	}
}

// An acquire of more paths than one etcd transaction holds is refused with
// a message that says what to do, not etcd's "too many operations in txn
// request"; one within the bound works (issue 23: 64+ paths failed with an
// etcd-internal message).
func TestTooManyPathsAreRefusedClearly(t *testing.T) {
	conn := startConn(t)
	_, a := checkout(t, conn, 30*time.Second)
	paths := func(n int, dir string) []string {
		var out []string
		for i := range n {
			out = append(out, fmt.Sprintf("%sf%d.go", dir, i))
		}
		return out
	}
	for _, ps := range [][]string{paths(64, ""), paths(70, "a/b/c/d/")} {
		_, err := a.AcquireAll(t.Context(), ps, "s")
		var tooMany *etcdstore.TooManyError
		if !errors.As(err, &tooMany) || !strings.Contains(err.Error(), "smaller groups") || strings.Contains(err.Error(), "txn request") {
			t.Fatalf("acquire of %d paths: want a clear refusal, got %v", len(ps), err)
		}
		if states, _, err := a.List(t.Context()); err != nil || len(states) != 0 {
			t.Fatalf("after the refusal: %d locks, %v", len(states), err)
		}
	}
	if _, err := a.AcquireAll(t.Context(), paths(etcdstore.MaxPaths, "a/b/c/d/"), "s"); err != nil {
		t.Fatalf("acquire of %d paths: %v", etcdstore.MaxPaths, err)
	}
}

// connWith is a connection to c with more gRPC options, closed when the
// test ends.
func connWith(t testing.TB, c *etcdtest.Cluster, opts ...grpc.DialOption) *etcdstore.Conn {
	t.Helper()
	cfg, err := etcdstore.ParseURL(c.URL("t"))
	if err != nil {
		t.Fatal(err)
	}
	cfg.DialOptions = opts
	conn := etcdstore.NewConn(cfg)
	t.Cleanup(func() { conn.Close() })
	return conn
}

// countingConn is a connection to c that counts its requests: unary calls
// and streams opened (a keep-alive opens one).
func countingConn(t testing.TB, c *etcdtest.Cluster, n *atomic.Int64) *etcdstore.Conn {
	t.Helper()
	return connWith(t, c,
		grpc.WithChainUnaryInterceptor(func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			n.Add(1)
			return invoker(ctx, method, req, reply, cc, opts...)
		}),
		grpc.WithChainStreamInterceptor(func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
			n.Add(1)
			return streamer(ctx, desc, cc, method, opts...)
		}))
}

// Renewing a session is one round trip whatever the number of its locks:
// one keep-alive stream for its leases, remembered on this machine, and no
// read (issue 23: 100 locks took 3 round trips and a write each, 269 ms).
// Listing the renewed locks costs one read more.
func TestSessionRenewalIsOneRoundTrip(t *testing.T) {
	c := etcdtest.Start(t, 1)
	var n atomic.Int64
	conn := countingConn(t, c, &n)
	root := tempRoot(t)
	memory := t.TempDir()
	locker := func(timeout time.Duration) *core.Locker {
		st := &etcdstore.Locks{Conn: conn, Repo: "example.com/org/repo", Root: root, Timeout: timeout, Memory: memory}
		return core.NewLocker(st, core.Options{Timeout: timeout, Cwd: root})
	}
	a := locker(30 * time.Second)
	acquire := func(session string, locks int) {
		var paths []string
		for i := range locks {
			paths = append(paths, fmt.Sprintf("%s/f%d.go", session, i))
		}
		for len(paths) > 0 {
			k := min(len(paths), etcdstore.MaxPaths)
			if _, err := a.AcquireAll(t.Context(), paths[:k], session); err != nil {
				t.Fatal(err)
			}
			paths = paths[k:]
		}
	}
	cost := func(f func() error) int64 {
		before := n.Load()
		if err := f(); err != nil {
			t.Fatal(err)
		}
		return n.Load() - before
	}
	acquire("one", 1)
	acquire("hundred", 100)
	revision := func() int64 {
		cli, err := connWith(t, c).Client()
		if err != nil {
			t.Fatal(err)
		}
		resp, err := cli.Get(context.Background(), "any")
		if err != nil {
			t.Fatal(err)
		}
		return resp.Header.Revision
	}
	before := revision()
	one := cost(func() error { return a.KeepSessionAlive(t.Context(), "one") })
	hundred := cost(func() error { return a.KeepSessionAlive(t.Context(), "hundred") })
	if one != 1 || hundred != 1 {
		t.Fatalf("renewing 1 lock took %d requests, 100 locks %d: want 1 each", one, hundred)
	}
	// Nothing written: the database does not grow with renewals (issue
	// 23: ~400 B per lock per renewal).
	if after := revision(); after != before {
		t.Fatalf("renewing wrote %d revisions, want none", after-before)
	}
	// A second timeout is a second lease on the same stream: still one.
	if _, err := locker(3*time.Second).Acquire(t.Context(), "hundred/short.go", "hundred"); err != nil {
		t.Fatal(err)
	}
	if got := cost(func() error { return a.KeepSessionAlive(t.Context(), "hundred") }); got != 1 {
		t.Fatalf("renewing a session of two leases took %d requests, want 1", got)
	}
	var listed []core.State
	if got := cost(func() (err error) { listed, err = a.RenewSession(t.Context(), "hundred"); return err }); got != 2 || len(listed) != 101 {
		t.Fatalf("renewing and listing: %d requests, %d locks listed; want 2 and 101", got, len(listed))
	}
	// The renewal kept the locks: another session is refused.
	if _, err := a.Acquire(t.Context(), "hundred/f99.go", "other"); !errors.Is(err, core.ErrLocked) {
		t.Fatalf("after the renewal: %v", err)
	}
	// Nothing remembered (another machine, the first renewal after an
	// upgrade): the leases are read first, then remembered.
	if err := os.RemoveAll(memory); err != nil {
		t.Fatal(err)
	}
	if got := cost(func() error { return a.KeepSessionAlive(t.Context(), "hundred") }); got > 3 {
		t.Fatalf("renewing with nothing remembered took %d requests, want a read, the keep-alive and a publication", got)
	}
	if got := cost(func() error { return a.KeepSessionAlive(t.Context(), "hundred") }); got != 1 {
		t.Fatalf("renewing once the leases are remembered again took %d requests, want 1", got)
	}
}

// memoryLockers starts a cluster and returns its connection and lockers
// of one checkout on it, each with its timeout and lease memory ("" for
// none).
func memoryLockers(t *testing.T) (*etcdstore.Conn, func(timeout time.Duration, memory string) *core.Locker) {
	t.Helper()
	conn := startConn(t)
	root := tempRoot(t)
	return conn, func(timeout time.Duration, memory string) *core.Locker {
		st := &etcdstore.Locks{Conn: conn, Repo: "example.com/org/repo", Root: root, Timeout: timeout, Memory: memory}
		return core.NewLocker(st, core.Options{Timeout: timeout, Cwd: root})
	}
}

// A lease the memory of this machine does not hold — granted by an older
// build, or before the memory was lost — is remembered by the next acquire
// of the session, so that renewing never leaves it to expire.
func TestRenewalRemembersLeasesItDidNotGrant(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a lease to expire")
	}
	_, locker := memoryLockers(t)
	memory := t.TempDir()
	// Taken without memory (an older build): the 2 s lease is unknown here.
	if _, err := locker(2*time.Second, "").Acquire(t.Context(), "old.go", "s"); err != nil {
		t.Fatal(err)
	}
	a := locker(30*time.Second, memory)
	if _, err := a.Acquire(t.Context(), "new.go", "s"); err != nil {
		t.Fatal(err)
	}
	for range 4 {
		time.Sleep(time.Second)
		if err := a.KeepSessionAlive(t.Context(), "s"); err != nil {
			t.Fatal(err)
		}
	}
	if st, err := a.IsLocked(t.Context(), "old.go"); err != nil || !st.Locked() || st.Owner != "s" {
		t.Fatalf("the lock on the unremembered 2 s lease after 4 s of renewals: %+v %v", st, err)
	}
}

// losingConn is a connection to c whose first lock write applies but
// answers with an error, as when a leader change loses the response.
func losingConn(t *testing.T, c *etcdtest.Cluster, lost *atomic.Int64) *etcdstore.Conn {
	t.Helper()
	return connWith(t, c, grpc.WithChainUnaryInterceptor(
		func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
			err := invoker(ctx, method, req, reply, cc, opts...)
			txn, ok := req.(*etcdserverpb.TxnRequest)
			if ok && err == nil && len(txn.Compare) > 0 && lost.Load() == 0 {
				for _, op := range txn.Success {
					if op.GetRequestPut() != nil {
						lost.Add(1)
						return status.Error(codes.Unavailable, "simulated: the response was lost")
					}
				}
			}
			return err
		}))
}

// A write whose answer is lost but which applied is read again and
// reported as it is: the lock is the caller's (issue 23: acquire exited 3
// although the write applied, and the lock stayed held and renewed).
func TestAmbiguousWriteIsResolvedByReadingAgain(t *testing.T) {
	c := etcdtest.Start(t, 1)
	var lost atomic.Int64
	_, a := checkout(t, losingConn(t, c, &lost), 30*time.Second)
	l, err := a.Acquire(t.Context(), "x.go", "s")
	if err != nil || lost.Load() != 1 {
		t.Fatalf("acquire with a lost answer (%d lost): %+v %v", lost.Load(), l, err)
	}
	if st, err := a.IsLocked(t.Context(), "x.go"); err != nil || st.Owner != "s" || !st.Locked() {
		t.Fatalf("after: %+v %v", st, err)
	}
}

// The store says whether a record is fresh (the lease) and leaves its
// stamp as written: the engine neither forges stamps nor judges a lease
// by a clock (issue 23: the store rewrote stamps so that the engine's
// clock verdict agreed with the lease).
func TestRecordsCarryTheLeasesVerdictNotAForgedStamp(t *testing.T) {
	conn := startConn(t)
	st := &etcdstore.Locks{Conn: conn, Repo: "example.com/org/verdict", Root: t.TempDir(), Timeout: 30 * time.Second}
	a := core.NewLocker(st, core.Options{Timeout: 30 * time.Second, Cwd: st.Root})
	l, err := a.Acquire(t.Context(), "x.go", "s")
	if err != nil {
		t.Fatal(err)
	}
	slots, err := st.Scan(t.Context())
	if err != nil || len(slots) != 1 {
		t.Fatalf("scan: %+v %v", slots, err)
	}
	sl := slots[0]
	if sl.Liveness == nil || !sl.Liveness.Fresh {
		t.Fatalf("a live key: want the store's verdict fresh, got %+v", sl.Liveness)
	}
	if !sl.Record.Stamp.Equal(l.Stamp) {
		t.Fatalf("the stamp was rewritten: %s, written %s", sl.Record.Stamp, l.Stamp)
	}
}

// A listing is one request whatever the number of sessions, and shows
// each session's last renewal (issue 23: status made one request per
// session, 5.6 s for 10,000).
func TestListingIsOneRequest(t *testing.T) {
	c := etcdtest.Start(t, 1)
	var n atomic.Int64
	conn := countingConn(t, c, &n)
	_, a := checkout(t, conn, 30*time.Second)
	listCost := func() int64 {
		before := n.Load()
		if _, _, err := a.List(t.Context()); err != nil {
			t.Fatal(err)
		}
		return n.Load() - before
	}
	if _, err := a.Acquire(t.Context(), "s0.go", "s0"); err != nil {
		t.Fatal(err)
	}
	one := listCost()
	for i := 1; i < 30; i++ {
		if _, err := a.Acquire(t.Context(), fmt.Sprintf("s%d.go", i), fmt.Sprintf("s%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if thirty := listCost(); thirty != one || thirty != 1 {
		t.Fatalf("listing 1 session's lock took %d requests, 30 sessions' %d: want 1", one, thirty)
	}
	if testing.Short() {
		return // the rest waits for a stamp to age
	}
	// A session renewed as a whole shows the renewal, not its stamp.
	time.Sleep(1100 * time.Millisecond)
	if err := a.KeepSessionAlive(t.Context(), "s0"); err != nil {
		t.Fatal(err)
	}
	st, err := a.IsLocked(t.Context(), "s0.go")
	if err != nil || !st.Locked() || st.Age > time.Second {
		t.Fatalf("after the renewal: %+v %v", st, err)
	}
}

// Waiters are served first come, first served, as etcd's Mutex serves
// them (issue 23: the first waiter was overtaken by 13 of 15 later ones):
// a free lock an earlier waiter stands in line for is refused to anyone
// else, and a waiter that cannot go yet (another of its paths is held)
// keeps nobody waiting.
func TestWaitersInLineGoFirst(t *testing.T) {
	conn := startConn(t)
	root := tempRoot(t)
	st := &etcdstore.Locks{Conn: conn, Repo: "example.com/org/line", Root: root, Timeout: 30 * time.Second}
	a := core.NewLocker(st, core.Options{Timeout: 30 * time.Second, Cwd: root})
	key := func(rel string) store.Key { return store.Key{Path: filepath.Join(root, rel)} }
	if err := os.Mkdir(filepath.Join(root, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Acquire(t.Context(), "src/x.go", "holder"); err != nil {
		t.Fatal(err)
	}
	_, leave, err := st.Enqueue(t.Context(), "first", []store.Key{key("src/x.go")})
	if err != nil {
		t.Fatal(err)
	}
	defer leave()
	if _, err := a.Release(t.Context(), "src/x.go", "holder"); err != nil {
		t.Fatal(err)
	}
	// Free, but "first" waits for it: a later comer is refused, saying so.
	_, err = a.Acquire(t.Context(), "src/x.go", "later")
	var held *core.HeldError
	if !errors.As(err, &held) || !held.Queued || held.Owner != "first" || !strings.Contains(err.Error(), "first come, first served") {
		t.Fatalf("a later comer while a waiter stands in line: %v", err)
	}
	// An area over it is refused too.
	if _, err := a.Acquire(t.Context(), "src/", "later"); !errors.As(err, &held) || held.Owner != "first" {
		t.Fatalf("an area over the waited path: %v", err)
	}
	if _, err := a.Acquire(t.Context(), "y.go", "later"); err != nil {
		t.Fatalf("a path nobody waits for: %v", err)
	}
	if _, err := a.Acquire(t.Context(), "src/x.go", "first"); err != nil {
		t.Fatalf("the first in line: %v", err)
	}
	leave()
	if _, err := a.Release(t.Context(), "src/x.go", "first"); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Acquire(t.Context(), "src/x.go", "later"); err != nil {
		t.Fatalf("once the line is empty: %v", err)
	}

	// A waiter for a and b, b held by another: a is not kept from anyone
	// (no waiter holds up another one that can go, no deadlock).
	if _, err := a.Acquire(t.Context(), "b.go", "busy"); err != nil {
		t.Fatal(err)
	}
	_, leave2, err := st.Enqueue(t.Context(), "both", []store.Key{key("a.go"), key("b.go")})
	if err != nil {
		t.Fatal(err)
	}
	defer leave2()
	if _, err := a.Acquire(t.Context(), "a.go", "busy"); err != nil {
		t.Fatalf("a path whose waiter cannot go yet: %v", err)
	}
}

// A lease of the session that this memory misses (granted through another
// memory) is found by the renewal that publishes, within a quarter of the
// remembered lease, and renewed from then on.
func TestRenewalFindsALeaseItsMemoryMisses(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a publication to be due")
	}
	conn, locker := memoryLockers(t)
	memory := t.TempDir()
	a := locker(4*time.Second, memory)
	if _, err := a.Acquire(t.Context(), "mine.go", "s"); err != nil {
		t.Fatal(err)
	}
	// Another memory's lease for the session: 20 s.
	if _, err := locker(20*time.Second, t.TempDir()).Acquire(t.Context(), "other.go", "s"); err != nil {
		t.Fatal(err)
	}
	cli, err := conn.Client()
	if err != nil {
		t.Fatal(err)
	}
	left := func() int64 {
		resp, err := cli.Get(t.Context(), "/t/locks/"+url.PathEscape("example.com/org/repo")+"/other.go")
		if err != nil || len(resp.Kvs) != 1 {
			t.Fatalf("other.go: %v %v", resp, err)
		}
		ttl, err := cli.TimeToLive(t.Context(), clientv3.LeaseID(resp.Kvs[0].Lease))
		if err != nil {
			t.Fatal(err)
		}
		return ttl.TTL
	}
	time.Sleep(1100 * time.Millisecond) // a quarter of the 4 s lease: the publication is due
	if err := a.KeepSessionAlive(t.Context(), "s"); err != nil {
		t.Fatal(err)
	}
	if got := left(); got < 19 {
		t.Fatalf("the lease A's memory missed has %d s left after A's renewal: not renewed", got)
	}
	data, err := os.ReadFile(filepath.Join(memory, url.PathEscape("example.com/org/repo"), "s"))
	if err != nil || strings.Count(string(data), "\n") != 2 {
		t.Fatalf("A's memory after the renewal that found the lease: %q %v", data, err)
	}
}

// One key named twice (once by path, once by its lock key) is refused
// before anything is read, by Transact and TransactAreas alike, each
// naming the path; more than MaxPaths keys are refused the same way by
// both.
func TestTransactionsRefuseAKeyNamedTwice(t *testing.T) {
	conn := startConn(t)
	root := tempRoot(t)
	st := &etcdstore.Locks{Conn: conn, Repo: "example.com/org/repo", Root: root, Timeout: 30 * time.Second}
	path := filepath.Join(root, "src", "a.go")
	keys := []store.Key{{Path: path}, {Path: filepath.Join(root, "other"), Ref: st.LockPrefix() + "src/a.go"}}
	decided := false
	err := st.Transact(t.Context(), store.Create, keys, func([]store.Slot) ([]*store.Record, error) {
		decided = true
		return nil, nil
	})
	if want := path + " and " + keys[1].Path + " have the same lock key src/a.go"; err == nil || err.Error() != want {
		t.Fatalf("Transact: got %v, want %q", err, want)
	}
	err = st.TransactAreas(t.Context(), store.Create, keys, func([]store.Slot, []store.Slot) ([]*store.Record, []store.Slot, error) {
		decided = true
		return nil, nil, nil
	})
	if want := keys[1].Path + ": named twice in one transaction"; err == nil || err.Error() != want {
		t.Fatalf("TransactAreas: got %v, want %q", err, want)
	}
	if decided {
		t.Fatal("a transaction with a key named twice was decided")
	}
	many := make([]store.Key, etcdstore.MaxPaths+1)
	for i := range many {
		many[i] = store.Key{Path: filepath.Join(root, fmt.Sprintf("f%d.go", i))}
	}
	var tooMany *etcdstore.TooManyError
	if err := st.Transact(t.Context(), store.Create, many, nil); !errors.As(err, &tooMany) {
		t.Fatalf("Transact of %d keys: got %v, want a TooManyError", len(many), err)
	}
	if err := st.TransactAreas(t.Context(), store.Create, many, nil); !errors.As(err, &tooMany) {
		t.Fatalf("TransactAreas of %d keys: got %v, want a TooManyError", len(many), err)
	}
}

// How a session took a lock is kept beside its record, in its last key:
// the lock key's value stays the record, byte for byte; a hook's renewal
// keeps an explicit lock explicit; a release of the hooks' locks leaves
// the others.
func TestHowALockWasTakenIsKeptBesideItsRecord(t *testing.T) {
	conn := startConn(t)
	root, l := checkout(t, conn, 30*time.Second)
	ctx := t.Context()
	hook := core.Claim{Session: "s1", Taken: store.TakenByHook}
	if _, err := l.AcquireClaim(ctx, []string{"a.go", "b.go"}, hook); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Acquire(ctx, "b.go", "s1"); err != nil {
		t.Fatal(err)
	}
	if _, err := l.AcquireClaim(ctx, []string{"b.go"}, hook); err != nil {
		t.Fatal(err)
	}
	cli, err := conn.Client()
	if err != nil {
		t.Fatal(err)
	}
	resp, err := cli.Get(ctx, "t/locks/", clientv3.WithPrefix())
	if err != nil {
		t.Fatal(err)
	}
	for _, kv := range resp.Kvs {
		if _, err := store.DecodeRecord(kv.Value); err != nil || strings.ContainsRune(string(kv.Value), 0) {
			t.Errorf("lock key %s holds %q: want the record alone", kv.Key, kv.Value)
		}
	}
	released, err := l.ReleaseSessionTaken(ctx, "s1", store.TakenByHook)
	if err != nil || len(released) != 1 || released[0].Path != filepath.Join(root, "a.go") {
		t.Fatalf("release of the hooks' locks: %+v %v, want a.go alone", released, err)
	}
	if st, err := l.IsLocked(ctx, "b.go"); err != nil || st.Owner != "s1" {
		t.Fatalf("b.go, taken explicitly: %+v %v", st, err)
	}
}
