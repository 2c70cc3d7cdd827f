//go:build etcd

package etcdstore

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentlock/agentlock/store"
)

// Backend is the store.Backend of etcd:// URLs: one connection per cluster
// (and credentials) for every checkout of an invocation.
type Backend struct {
	mu    sync.Mutex
	conns map[connKey]*Conn
	repos map[string]string // checkout root -> repository id
}

var _ store.Backend = (*Backend)(nil)

// connKey names one connection: everything that changes how it dials.
type connKey struct {
	endpoints, prefix, caCert, cert, key, user, password string
	dial                                                 time.Duration
}

// NewBackend returns an etcd backend with no connection yet.
func NewBackend() *Backend {
	return &Backend{conns: map[connKey]*Conn{}, repos: map[string]string{}}
}

// configOf turns a store spec into a client configuration.
func configOf(spec store.Spec) (Config, error) {
	cfg, err := ParseURL(spec.URL)
	if err != nil {
		return cfg, err
	}
	cfg.CACert, cfg.Cert, cfg.Key = spec.CACert, spec.Cert, spec.Key
	cfg.User, cfg.Password = spec.User, spec.Password
	if spec.DialTimeout > 0 {
		cfg.DialTimeout = spec.DialTimeout
	}
	return cfg, nil
}

// Open implements store.Backend.
func (b *Backend) Open(spec store.Spec, co store.Checkout) (store.Locks, store.Document, error) {
	cfg, err := configOf(spec)
	if err != nil {
		return nil, nil, err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	key := connKey{strings.Join(cfg.Endpoints, ","), cfg.Prefix, cfg.CACert, cfg.Cert, cfg.Key, cfg.User, cfg.Password, cfg.DialTimeout}
	conn, ok := b.conns[key]
	if !ok {
		conn = NewConn(cfg)
		b.conns[key] = conn
	}
	repo := spec.RepoID
	if repo == "" {
		repo = URLRepo(spec.URL)
	}
	if repo == "" {
		if repo, ok = b.repos[co.Root]; !ok {
			if repo, err = RepoID(co.Root); err != nil {
				return nil, nil, fmt.Errorf("store %s: %w", spec.URL, err)
			}
			b.repos[co.Root] = repo
		}
	}
	return &Locks{Conn: conn, Repo: repo, Root: co.Root, Timeout: co.Timeout, Now: co.Now, Memory: memoryFolder(cfg, co)},
		&Document{Conn: conn, Repo: repo, Local: co.Registry}, nil
}

// memoryFolder is where this machine remembers the sessions' leases on the
// cluster of cfg (see Locks.Memory): one folder per user and cluster, so
// that every checkout of a repository a session works in shares it; the
// project's home when the user has no cache folder.
func memoryFolder(cfg Config, co store.Checkout) string {
	if !memoryWorks {
		return ""
	}
	if dir, err := os.UserCacheDir(); err == nil {
		eps := slices.Sorted(slices.Values(cfg.Endpoints))
		sum := sha256.Sum256([]byte(strings.Join(eps, ",") + "\x00" + cfg.Prefix))
		return filepath.Join(dir, "agentlock", "etcd-leases", hex.EncodeToString(sum[:8]))
	}
	if co.Registry != "" {
		return filepath.Join(filepath.Dir(co.Registry), "etcd", "leases")
	}
	return ""
}

// Close implements store.Backend: it closes every connection dialled.
func (b *Backend) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	var errs []error
	for k, c := range b.conns {
		errs = append(errs, c.Close())
		delete(b.conns, k)
	}
	return errors.Join(errs...)
}
