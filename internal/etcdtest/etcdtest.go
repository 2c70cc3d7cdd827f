//go:build etcd

package etcdtest

import (
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
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
// cluster that cannot start skips the test, loudly.
func Start(t testing.TB, n int) *Cluster {
	t.Helper()
	c, err := StartIn(t.TempDir(), n)
	if err != nil {
		t.Skipf("ETCD SKIPPED: cannot start an embedded etcd: %v", err)
	}
	t.Cleanup(c.Stop)
	return c
}

// StartIn starts a cluster of n members with their data in dir and waits
// until it serves. The caller stops it.
func StartIn(dir string, n int) (*Cluster, error) {
	c := &Cluster{}
	var peers []string
	for i := range n {
		cp, err := freePort()
		if err != nil {
			return nil, err
		}
		pp, err := freePort()
		if err != nil {
			return nil, err
		}
		m := &Member{
			Name:       fmt.Sprintf("m%d", i),
			Dir:        filepath.Join(dir, fmt.Sprintf("m%d", i)),
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

// Restart starts a stopped member again on the same ports and data.
func (m *Member) Restart(t testing.TB) {
	t.Helper()
	m.state = embed.ClusterStateFlagExisting
	if err := m.start(); err != nil {
		t.Fatalf("etcdtest: restart %s: %v", m.Name, err)
	}
}

// Stop stops every member.
func (c *Cluster) Stop() {
	for _, m := range c.Members {
		m.Stop()
	}
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
