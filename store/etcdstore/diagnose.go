//go:build etcd

package etcdstore

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"

	"github.com/agentlock/agentlock/store"
)

var _ store.Diagnoser = (*Locks)(nil)

// maxSkew is the clock difference doctor tolerates between this machine and
// the cluster. Leases do not depend on clocks; the stamps people read do.
const maxSkew = 2 * time.Second

// Diagnose implements store.Diagnoser: every member reachable and its
// version; the clock skew to the cluster; a lease of the timeout's length
// granted as asked; how the registry is kept.
func (s *Locks) Diagnose(ctx context.Context) []store.Diagnosis {
	cfg := s.Conn.cfg
	reach := store.Diagnosis{Name: "store-reachable"}
	cli, err := s.Conn.Client()
	if err != nil {
		reach.Problem, reach.Detail = true, err.Error()
		reach.Fix = "start etcd, or check the endpoints, TLS files and user in .agent-registry/store (agentlock init --store ...)"
		return []store.Diagnosis{reach}
	}
	var ok, down []string
	for _, ep := range cfg.Endpoints {
		rctx, cancel := s.Conn.ctx(ctx)
		st, err := cli.Status(rctx, ep)
		cancel()
		if err != nil {
			down = append(down, fmt.Sprintf("%s (%v)", ep, s.Conn.wrap("status", err)))
			continue
		}
		ok = append(ok, fmt.Sprintf("%s etcd %s", ep, st.Version))
	}
	switch {
	case len(ok) == 0:
		reach.Problem, reach.Detail = true, "no member answers: "+strings.Join(down, "; ")
		reach.Fix = "start etcd, or check the endpoints, TLS files and user in .agent-registry/store"
		return []store.Diagnosis{reach}
	case len(down) > 0:
		reach.Warn, reach.Detail = true, "serving: "+strings.Join(ok, ", ")+"; down: "+strings.Join(down, "; ")
		reach.Fix = "restart the members that are down before the cluster loses its quorum"
	default:
		reach.Detail = "serving: " + strings.Join(ok, ", ")
	}
	out := []store.Diagnosis{reach, s.repoID(), s.clockSkew(ctx), s.leaseTTL(ctx), s.registryFormat(ctx)}
	return out
}

// registryFormat says how the cluster keeps the repository's registry,
// and warns when an older agentlock wrote the whole document again under
// its one key after this version split it into one key per session: that
// machine's sessions are not in the registry the others read.
func (s *Locks) registryFormat(ctx context.Context) store.Diagnosis {
	d := store.Diagnosis{Name: "store-registry"}
	doc := &Document{Conn: s.Conn, Repo: s.Repo}
	snap, err := doc.read(ctx)
	switch {
	case err != nil:
		d.Warn, d.Detail = true, "cannot read the registry: "+err.Error()
	case snap.head == nil && snap.legacy != nil:
		d.Detail = "one key, " + doc.Key() + ", as earlier versions wrote it: the next registry write splits it into one key per session"
	case snap.head == nil:
		d.Detail = "no registry on the cluster yet (the first write brings this checkout's registry.md along)"
	case snap.legacy != nil:
		d.Warn = true
		d.Detail = fmt.Sprintf("one key per session (%d), but an older agentlock wrote the whole registry to %s since: the sessions it registered are not in the registry the others read", len(snap.entries), doc.Key())
		d.Fix = "upgrade agentlock on every machine of the project, then delete that key (etcdctl del " + doc.Key() + ")"
	default:
		d.Detail = fmt.Sprintf("one key per session (%d sessions) under %s", len(snap.entries), doc.EntriesPrefix())
	}
	return d
}

// repoID says which repository's lock space this checkout uses: every
// checkout of one repository must show the same id.
func (s *Locks) repoID() store.Diagnosis {
	return store.Diagnosis{Name: "store-repo", Detail: "repository id " + s.Repo + " (the same in every checkout of this repository: " +
		"the origin remote, normalised, or repo-id in .agent-registry/store)"}
}

// clockSkew compares this machine's clock with the Date header of a
// member's /version (one-second resolution).
func (s *Locks) clockSkew(ctx context.Context) store.Diagnosis {
	d := store.Diagnosis{Name: "store-clock"}
	cfg := s.Conn.cfg
	scheme := "http"
	hc := &http.Client{Timeout: cfg.dialTimeout()}
	if cfg.CACert != "" || cfg.Cert != "" || cfg.Key != "" {
		scheme = "https"
		info := transport.TLSInfo{TrustedCAFile: cfg.CACert, CertFile: cfg.Cert, KeyFile: cfg.Key}
		tc, err := info.ClientConfig()
		if err != nil {
			d.Warn, d.Detail = true, "cannot compare clocks: "+err.Error()
			return d
		}
		hc.Transport = &http.Transport{TLSClientConfig: tc}
	}
	rctx, cancel := s.Conn.ctx(ctx)
	defer cancel()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, scheme+"://"+cfg.Endpoints[0]+"/version", nil)
	if err != nil {
		d.Warn, d.Detail = true, "cannot compare clocks: "+err.Error()
		return d
	}
	before := time.Now()
	resp, err := hc.Do(req)
	after := time.Now()
	if err != nil {
		d.Warn, d.Detail = true, "cannot compare clocks: "+err.Error()
		return d
	}
	resp.Body.Close()
	server, err := http.ParseTime(resp.Header.Get("Date"))
	if err != nil {
		d.Warn, d.Detail = true, "cannot compare clocks: the member sends no Date"
		return d
	}
	local := before.Add(after.Sub(before) / 2)
	skew := local.Sub(server)
	// Date has a resolution of one second.
	if skew > maxSkew+time.Second || skew < -maxSkew {
		d.Warn = true
		d.Detail = fmt.Sprintf("this machine's clock is %s off the cluster's (%s)", skew.Round(time.Millisecond), cfg.Endpoints[0])
		d.Fix = "synchronise the clocks (NTP): leases do not depend on them, but the ages agentlock shows do"
		return d
	}
	d.Detail = fmt.Sprintf("within %s of the cluster's (%s)", maxSkew+time.Second, cfg.Endpoints[0])
	return d
}

// leaseTTL grants a lease of the timeout's length and checks that the
// cluster keeps it as asked (a member may raise a short TTL to its
// minimum), then revokes it.
func (s *Locks) leaseTTL(ctx context.Context) store.Diagnosis {
	d := store.Diagnosis{Name: "store-lease"}
	cli, err := s.Conn.Client()
	if err != nil {
		d.Problem, d.Detail = true, err.Error()
		return d
	}
	rctx, cancel := s.Conn.ctx(ctx)
	defer cancel()
	g, err := cli.Grant(rctx, s.ttl())
	if err != nil {
		d.Problem, d.Detail = true, s.Conn.wrap("grant a lease", err).Error()
		d.Fix = "check that the user may grant leases (etcd role permissions)"
		return d
	}
	defer cli.Revoke(ctx, g.ID)
	ttl, err := cli.TimeToLive(ctx, g.ID)
	if err != nil {
		d.Problem, d.Detail = true, s.Conn.wrap("read a lease", err).Error()
		return d
	}
	if ttl.GrantedTTL != s.ttl() {
		d.Warn = true
		d.Detail = fmt.Sprintf("asked for a lease of %d s (the timeout), the cluster granted %d s", s.ttl(), ttl.GrantedTTL)
		d.Fix = "use a longer timeout (--timeout, AGENTLOCK_TIMEOUT): locks would outlive it"
		return d
	}
	d.Detail = fmt.Sprintf("a lease of %d s (the timeout) is granted as asked", s.ttl())
	return d
}
