//go:build etcd

package etcdstore

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	"go.etcd.io/etcd/client/pkg/v3/transport"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// DefaultDialTimeout bounds the connection to the cluster and every request
// when Config sets no DialTimeout.
const DefaultDialTimeout = 2 * time.Second

// Config says how to reach a cluster. TLS and authentication options are
// named as etcdctl names them.
type Config struct {
	// Endpoints are the members' host:port.
	Endpoints []string
	// Prefix is the key prefix every key of agentlock lives under, without
	// a trailing '/'.
	Prefix string
	// CACert, Cert and Key are PEM files (etcdctl's --cacert, --cert,
	// --key); any of them makes the connection TLS.
	CACert, Cert, Key string
	// User and Password authenticate (etcdctl's --user, --password).
	User, Password string
	// DialTimeout bounds the connection, and every request whose context
	// has no deadline (DefaultDialTimeout when zero).
	DialTimeout time.Duration
	// DialOptions are more gRPC options of the connection (tests count
	// requests with an interceptor); none from a store URL.
	DialOptions []grpc.DialOption
}

// ParseURL reads a store URL, etcd://host:2379[,host2:2379...]/prefix, into
// the endpoints and prefix of a Config; a query may add dial-timeout=2s
// (and repo=ID: see URLRepo).
func ParseURL(raw string) (Config, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Config{}, fmt.Errorf("store %q: %w", raw, err)
	}
	if u.Scheme != "etcd" {
		return Config{}, fmt.Errorf("store %q: want etcd://host:2379[,host2:2379]/prefix", raw)
	}
	var eps []string
	for _, h := range strings.Split(u.Host, ",") {
		if h = strings.TrimSpace(h); h != "" {
			eps = append(eps, h)
		}
	}
	if len(eps) == 0 {
		return Config{}, fmt.Errorf("store %q: no endpoint (want etcd://host:2379/prefix)", raw)
	}
	prefix := strings.Trim(u.Path, "/")
	if prefix == "" {
		prefix = "agentlock"
	}
	cfg := Config{Endpoints: eps, Prefix: "/" + prefix}
	if d := u.Query().Get("dial-timeout"); d != "" {
		if cfg.DialTimeout, err = time.ParseDuration(d); err != nil || cfg.DialTimeout <= 0 {
			return Config{}, fmt.Errorf("store %q: dial-timeout %q: want a duration like 2s", raw, d)
		}
	}
	return cfg, nil
}

// URLRepo returns the repository id a store URL names in its query
// (etcd://host:2379/prefix?repo=ID), "" when none: for AGENTLOCK_STORE in a
// checkout without an origin remote.
func URLRepo(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return ""
	}
	return u.Query().Get("repo")
}

// Where names the cluster for messages: its endpoints.
func (c Config) Where() string { return "etcd " + strings.Join(c.Endpoints, ",") }

func (c Config) dialTimeout() time.Duration {
	if c.DialTimeout > 0 {
		return c.DialTimeout
	}
	return DefaultDialTimeout
}

// Conn is one connection to a cluster, dialled on first use and shared by
// every store of an invocation (one grpc connection per process).
type Conn struct {
	cfg  Config
	once sync.Once
	cli  *clientv3.Client
	err  error
}

// NewConn returns a connection to the cluster of cfg; nothing is dialled
// until a store uses it.
func NewConn(cfg Config) *Conn { return &Conn{cfg: cfg} }

// Config returns the connection's configuration.
func (c *Conn) Config() Config { return c.cfg }

// Client returns the etcd client, dialling it the first time.
func (c *Conn) Client() (*clientv3.Client, error) {
	c.once.Do(func() { c.cli, c.err = c.dial() })
	return c.cli, c.err
}

func (c *Conn) dial() (*clientv3.Client, error) {
	cc := clientv3.Config{
		Endpoints:   c.cfg.Endpoints,
		DialTimeout: c.cfg.dialTimeout(),
		Username:    c.cfg.User,
		Password:    c.cfg.Password,
		Logger:      zap.NewNop(),
		DialOptions: c.cfg.DialOptions,
	}
	if c.cfg.User != "" && c.cfg.Password == "" {
		if name, pass, ok := strings.Cut(c.cfg.User, ":"); ok {
			cc.Username, cc.Password = name, pass
		}
	}
	if c.cfg.CACert != "" || c.cfg.Cert != "" || c.cfg.Key != "" {
		info := transport.TLSInfo{TrustedCAFile: c.cfg.CACert, CertFile: c.cfg.Cert, KeyFile: c.cfg.Key}
		tc, err := info.ClientConfig()
		if err != nil {
			return nil, fmt.Errorf("%s: TLS: %w", c.cfg.Where(), err)
		}
		tc.MinVersion = tls.VersionTLS12
		cc.TLS = tc
	}
	cli, err := clientv3.New(cc)
	if err != nil {
		return nil, c.wrap("connect", err)
	}
	return cli, nil
}

// Close closes the connection, if it was dialled.
func (c *Conn) Close() error {
	if c.cli != nil {
		return c.cli.Close()
	}
	return nil
}

// ctx returns the context of one request made for the caller's ctx: done
// when ctx is, bounded by ctx's deadline when it has one and by the dial
// timeout otherwise (a caller that sets no deadline never waits on an
// unreachable cluster for longer), and failing at once when the member has
// no leader (a quorum lost).
func (c *Conn) ctx(ctx context.Context) (context.Context, context.CancelFunc) {
	var cancel context.CancelFunc
	if _, ok := ctx.Deadline(); ok {
		ctx, cancel = context.WithCancel(ctx)
	} else {
		ctx, cancel = context.WithTimeout(ctx, c.cfg.dialTimeout())
	}
	return clientv3.WithRequireLeader(ctx), cancel
}

// ErrUnavailable matches the errors of a cluster that cannot be reached or
// cannot serve (no quorum).
var ErrUnavailable = errors.New("etcd store unavailable")

// UnavailableError reports a request the cluster did not serve.
type UnavailableError struct {
	Where string // the endpoints
	Op    string
	Err   error
}

func (e *UnavailableError) Error() string {
	return fmt.Sprintf("%s: %s: the cluster did not answer (unreachable, or no quorum): %v", e.Where, e.Op, e.Err)
}

// Unwrap returns the client's error.
func (e *UnavailableError) Unwrap() error { return e.Err }

// Is makes errors.Is(err, ErrUnavailable) true.
func (e *UnavailableError) Is(target error) bool { return target == ErrUnavailable }

// wrap names the cluster and the operation in a client error, and marks
// the errors of a cluster that did not answer (see Unanswered).
func (c *Conn) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if Unanswered(err) {
		return &UnavailableError{Where: c.cfg.Where(), Op: op, Err: err}
	}
	return fmt.Errorf("%s: %s: %w", c.cfg.Where(), op, err)
}

// Unanswered reports whether err, from the etcd client, means that the
// cluster did not answer the request: unreachable, without a quorum, or
// between two leaders (an election). Every such error is worded the same
// way (UnavailableError), whatever shape the client gave it:
//
//   - the request's context ended (its deadline: the cluster did not
//     answer in time), as a Go error or as a gRPC status;
//   - a gRPC status Unavailable, DeadlineExceeded or Canceled, and the
//     status Unknown of a server error etcd does not map to a code (see
//     unansweredUnknown: a deadline met on the server's side comes back
//     as "rpc error: code = Unknown desc = context deadline exceeded", a
//     member killed mid-request as "… desc = raft: stopped");
//   - an etcd server error (rpctypes.EtcdError, which has a Code() but
//     no GRPCStatus(), so that status.FromError misses it) with one of
//     those codes — "leader changed", "no leader", "request timed out",
//     "server stopped", "unhealthy cluster" — or "not leader";
//   - a stream cut short (io.EOF, io.ErrUnexpectedEOF: a lease renewal's
//     stream whose member went away).
func Unanswered(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, rpctypes.ErrNotLeader) {
		return true
	}
	var server rpctypes.EtcdError
	if errors.As(err, &server) && unansweredCode(server.Code()) {
		return true
	}
	if s, ok := status.FromError(err); ok {
		if unansweredCode(s.Code()) {
			return true
		}
		if s.Code() == codes.Unknown && slices.ContainsFunc(unansweredUnknown, func(m string) bool { return strings.Contains(s.Message(), m) }) {
			return true
		}
	}
	return strings.Contains(err.Error(), "no leader")
}

// unansweredUnknown are the messages, in a gRPC status Unknown, of the
// server errors etcd does not map to a code that mean it did not answer:
// a context ended on its side, its raft node stopped (a member killed
// mid-request), a proposal dropped (a leadership handed over mid-write),
// a request timed out (a leader transfer that took too long).
var unansweredUnknown = []string{
	context.DeadlineExceeded.Error(), context.Canceled.Error(),
	"raft: stopped", "raft proposal dropped", "etcdserver: request timed out",
}

// unansweredCode: the gRPC codes of a request the cluster did not answer.
func unansweredCode(c codes.Code) bool {
	return c == codes.Unavailable || c == codes.DeadlineExceeded || c == codes.Canceled
}

// retryPause is how long an idempotent request waits before its one
// retry (see retried): a leader change is over within tens of
// milliseconds (a read that met one succeeded ~30 ms later).
const retryPause = 50 * time.Millisecond

// retried runs the idempotent request f (a read, or the renewal of
// leases) with a context bounded as Conn.ctx says, and, when the cluster
// did not answer it (Unanswered) for any reason but that bound or the
// caller's context ending, runs it once more after retryPause, within the
// same bound: the request met an election ("leader changed") or a member
// going away, and the next one reaches the new leader or another member.
// Never for a write: a write whose answer was lost may have applied.
func retried[T any](ctx context.Context, c *Conn, f func(context.Context) (T, error)) (T, error) {
	rctx, cancel := c.ctx(ctx)
	defer cancel()
	v, err := f(rctx)
	if err == nil || !Unanswered(err) || rctx.Err() != nil {
		return v, err
	}
	t := time.NewTimer(retryPause)
	defer t.Stop()
	select {
	case <-rctx.Done():
		return v, err
	case <-t.C:
	}
	return f(rctx)
}
