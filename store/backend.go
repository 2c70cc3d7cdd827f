package store

import (
	"strings"
	"time"
)

// Spec names a project's store and how to reach it: its URL, whose scheme
// picks the backend ("file:" or none for the lock files, "etcd://..."),
// and the options of the backends that dial a service (named as etcdctl
// names them).
type Spec struct {
	// URL is etcd://host:2379[,host2:2379...]/prefix; empty (or "file:")
	// for the lock files.
	URL string
	// CACert, Cert and Key are PEM files for TLS.
	CACert, Cert, Key string
	// User is the user name, or name:password; Password the password.
	User, Password string
	// RepoID is the repository's id; empty for the normalised URL of the
	// checkout's origin remote.
	RepoID string
	// DialTimeout bounds the connection, and each request whose context
	// has no deadline of its own; zero for the backend's default.
	DialTimeout time.Duration
	// Scope is "repository" when every git worktree of the repository
	// shares the project's home and lock space (package workspace reads
	// it from the shared home's store file); empty for one per checkout.
	Scope string
}

// Scheme is the URL's scheme: "file" for the lock files.
func (s Spec) Scheme() string {
	scheme, _, ok := strings.Cut(s.URL, ":")
	if !ok || scheme == "" {
		return "file"
	}
	return scheme
}

// Set reports whether the spec names a store other than the lock files.
func (s Spec) Set() bool { return s.Scheme() != "file" }

// Checkout is what a backend opens the stores of: one checkout of a
// repository on this machine.
type Checkout struct {
	// Root is the checkout's root, a real path.
	Root string
	// Registry is this machine's copy of the registry (registry.md).
	Registry string
	// Timeout is the staleness timeout of the locks it takes.
	Timeout time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
}

// Backend opens the stores of the projects whose store URL has one scheme.
// One Backend serves every project of an invocation, so that they share
// its connections, and is closed once at the end.
type Backend interface {
	// Open returns the lock store and the registry of a checkout on the
	// store of spec. Nothing is dialled yet.
	Open(spec Spec, co Checkout) (Locks, Document, error)
	// Close releases the backend's connections.
	Close() error
}
