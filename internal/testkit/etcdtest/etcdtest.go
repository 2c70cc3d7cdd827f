//go:build etcd

package etcdtest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// Member is one etcd member started by a test.
type Member struct {
	Name       string
	Dir        string
	ClientURL  url.URL
	PeerURL    url.URL
	cluster    string
	state      string
	etcd       *embed.Etcd
	tickMs     uint
	electionMs uint
}

// Cluster is a set of members.
type Cluster struct {
	Members []*Member
}

// freePort returns a loopback port nobody listens on now.
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// Start starts a cluster of n members in the test's temporary folder and
// waits until it serves; the members are stopped when the test ends. A
// cluster that cannot start skips the test, loudly — and fails it under
// CI=true, where nothing stops it from starting (proctest.Unavailable).
func Start(t testing.TB, n int) *Cluster {
	t.Helper()
	c, err := StartIn(t.TempDir(), n)
	if err != nil {
		proctest.Unavailable(t, "ETCD SKIPPED: cannot start an embedded etcd: %v", err)
	}
	t.Cleanup(c.Stop)
	return c
}

// portAttempts bounds how often StartIn picks new ports after losing one.
const portAttempts = 10

// StartIn starts a cluster of n members with their data in dir and waits
// until it serves. The caller stops it.
//
// The ports are picked by the kernel (freePort) before etcd binds them,
// since every member must know its peers' ports: another process may take
// one in between. A member that then cannot bind its port is no failure
// of the test: the cluster is stopped, its data removed, and started again
// on new ports, so a lost race costs a retry, never a skip.
func StartIn(dir string, n int) (*Cluster, error) {
	return startRetrying(dir, n, freePort)
}

// StartOn starts a one-member cluster with its data in dir, whose clients
// connect to 127.0.0.1:port (its peer port is free, picked as StartIn
// picks it; port 0 picks the client port too), and waits until it serves.
// The caller stops it. A port another process holds is an error matching
// syscall.EADDRINUSE.
func StartOn(dir string, port int) (*Cluster, error) {
	if port == 0 {
		return StartIn(dir, 1)
	}
	// startIn picks a member's client port, then its peer port.
	picks := 0
	return startRetrying(dir, 1, func() (int, error) {
		picks++
		if picks%2 == 1 {
			return port, nil
		}
		return freePort()
	})
}

// startRetrying is StartIn with the ports picked by pick.
func startRetrying(dir string, n int, pick func() (int, error)) (*Cluster, error) {
	for attempt := 1; ; attempt++ {
		c, err := startIn(dir, n, pick)
		if err == nil || !isAddrInUse(err) || attempt == portAttempts {
			return c, err
		}
		for i := range n {
			if err := os.RemoveAll(filepath.Join(dir, memberName(i))); err != nil {
				return nil, err
			}
		}
	}
}

// memberName is the name, and the folder in dir, of member i.
func memberName(i int) string { return fmt.Sprintf("m%d", i) }

// isAddrInUse reports whether err is a bind to a port another process took.
func isAddrInUse(err error) bool {
	return errors.Is(err, syscall.EADDRINUSE) || strings.Contains(err.Error(), "address already in use")
}

// startIn is one attempt of StartIn.
func startIn(dir string, n int, pick func() (int, error)) (*Cluster, error) {
	c := &Cluster{}
	var peers []string
	for i := range n {
		cp, err := pick()
		if err != nil {
			return nil, err
		}
		pp, err := pick()
		if err != nil {
			return nil, err
		}
		m := &Member{
			Name:       memberName(i),
			Dir:        filepath.Join(dir, memberName(i)),
			ClientURL:  url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", cp)},
			PeerURL:    url.URL{Scheme: "http", Host: fmt.Sprintf("127.0.0.1:%d", pp)},
			state:      embed.ClusterStateFlagNew,
			tickMs:     50,
			electionMs: 500,
		}
		peers = append(peers, m.Name+"="+m.PeerURL.String())
		c.Members = append(c.Members, m)
	}
	for _, m := range c.Members {
		m.cluster = strings.Join(peers, ",")
	}
	errs := make(chan error, n)
	for _, m := range c.Members {
		go func() { errs <- m.start() }()
	}
	var first error
	for range n {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first != nil {
		c.Stop()
		return nil, first
	}
	return c, nil
}

func (m *Member) start() error {
	cfg := embed.NewConfig()
	cfg.Name = m.Name
	cfg.Dir = m.Dir
	cfg.ListenClientUrls = []url.URL{m.ClientURL}
	cfg.AdvertiseClientUrls = []url.URL{m.ClientURL}
	cfg.ListenPeerUrls = []url.URL{m.PeerURL}
	cfg.AdvertisePeerUrls = []url.URL{m.PeerURL}
	cfg.InitialCluster = m.cluster
	cfg.ClusterState = m.state
	cfg.InitialClusterToken = "agentlock-test"
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.NewNop())
	cfg.TickMs = m.tickMs
	cfg.ElectionMs = m.electionMs
	cfg.UnsafeNoFsync = true
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return err
	}
	select {
	case <-e.Server.ReadyNotify():
	case err := <-e.Err():
		e.Close()
		return err
	case <-time.After(20 * time.Second):
		e.Close()
		return fmt.Errorf("member %s not ready after 20s", m.Name)
	}
	m.etcd = e
	return nil
}

// Stop stops the member (its data stays, for Restart).
func (m *Member) Stop() {
	if m.etcd != nil {
		m.etcd.Close()
		m.etcd = nil
	}
}

// Kill stops the member abruptly, as a crash would: its raft node stops at
// once, without handing its leadership to a peer (Stop hands it over),
// then its listeners close. Its data stays, for Restart.
func (m *Member) Kill() {
	if m.etcd != nil {
		m.etcd.Server.HardStop()
		m.etcd.Close()
		m.etcd = nil
	}
}

// Running reports whether the member runs (started, not stopped).
func (m *Member) Running() bool { return m.etcd != nil }

// Restart starts a stopped member again on the same ports and data.
func (m *Member) Restart(t testing.TB) {
	t.Helper()
	if err := m.StartAgain(); err != nil {
		t.Fatal(err)
	}
}

// StartAgain is Restart for a goroutine other than the test's: it returns
// the member's failure to start.
func (m *Member) StartAgain() error {
	m.state = embed.ClusterStateFlagExisting
	if err := m.start(); err != nil {
		return fmt.Errorf("etcdtest: restart %s: %w", m.Name, err)
	}
	return nil
}

// Stop stops every member.
func (c *Cluster) Stop() {
	for _, m := range c.Members {
		m.Stop()
	}
}

// Leader returns the member that leads the cluster when every running
// member names it as their leader, and nil while they do not agree (an
// election) or it does not run.
func (c *Cluster) Leader() *Member {
	var lead uint64
	for _, m := range c.Members {
		if m.etcd == nil {
			continue
		}
		l := uint64(m.etcd.Server.Leader())
		if l == 0 || lead != 0 && l != lead {
			return nil
		}
		lead = l
	}
	for _, m := range c.Members {
		if m.etcd != nil && uint64(m.etcd.Server.MemberID()) == lead {
			return m
		}
	}
	return nil
}

// WaitLeader waits, at most limit, until the running members agree on a
// leader (see Leader), and returns it; it fails the test past limit.
func (c *Cluster) WaitLeader(t testing.TB, limit time.Duration) *Member {
	t.Helper()
	m, err := c.AwaitLeader(limit)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// AwaitLeader is WaitLeader for a goroutine other than the test's: past
// limit, it returns an error.
func (c *Cluster) AwaitLeader(limit time.Duration) (*Member, error) {
	deadline := time.Now().Add(limit)
	for {
		if m := c.Leader(); m != nil {
			return m, nil
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("etcdtest: no leader after %s", limit)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// MoveLeader hands the leadership of lead, the leader, to another running
// member, and returns it once it leads (within limit).
func (c *Cluster) MoveLeader(lead *Member, limit time.Duration) (*Member, error) {
	if lead.etcd == nil {
		return nil, fmt.Errorf("etcdtest: %s does not run", lead.Name)
	}
	for _, m := range c.Members {
		if m == lead || m.etcd == nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), limit)
		defer cancel()
		if err := lead.etcd.Server.MoveLeader(ctx, uint64(lead.etcd.Server.MemberID()), uint64(m.etcd.Server.MemberID())); err != nil {
			return nil, fmt.Errorf("etcdtest: move the leadership from %s to %s: %w", lead.Name, m.Name, err)
		}
		return m, nil
	}
	return nil, fmt.Errorf("etcdtest: no other running member to lead")
}

// Endpoints are the members' client host:port.
func (c *Cluster) Endpoints() []string {
	var eps []string
	for _, m := range c.Members {
		eps = append(eps, m.ClientURL.Host)
	}
	return eps
}

// URL is a store URL for the cluster with prefix.
func (c *Cluster) URL(prefix string) string {
	return "etcd://" + strings.Join(c.Endpoints(), ",") + "/" + prefix
}
