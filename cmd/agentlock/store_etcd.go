//go:build etcd

package main

import (
	"fmt"
	"time"

	"github.com/agentlock/agentlock/internal/store"
	"github.com/agentlock/agentlock/internal/store/etcdstore"
	"github.com/agentlock/agentlock/workspace"
)

// etcdBuild is true in the build that links the etcd store.
const etcdBuild = true

// delegate runs nothing in the etcd build: it is the build the default one
// hands over to.
func delegate([]string) {}

// etcdRemote opens etcd stores, one connection per cluster for the whole
// invocation.
type etcdRemote struct {
	conns map[string]*etcdstore.Conn // by configuration
	repos map[string]string          // checkout root -> repository id
}

// newRemote returns the invocation's opener of distributed stores.
func newRemote() workspace.Remote {
	return &etcdRemote{conns: map[string]*etcdstore.Conn{}, repos: map[string]string{}}
}

// etcdConfig turns a store spec into a client configuration.
func etcdConfig(spec workspace.StoreSpec) (etcdstore.Config, error) {
	cfg, err := etcdstore.ParseURL(spec.URL)
	if err != nil {
		return cfg, usagef("%v", err)
	}
	cfg.CACert, cfg.Cert, cfg.Key = spec.CACert, spec.Cert, spec.Key
	cfg.User, cfg.Password = spec.User, spec.Password
	if spec.DialTimeout > 0 {
		cfg.DialTimeout = spec.DialTimeout
	}
	return cfg, nil
}

// Open implements workspace.Remote.
func (r *etcdRemote) Open(spec workspace.StoreSpec, project, registry string, timeout time.Duration, now func() time.Time) (store.Locks, store.Document, error) {
	cfg, err := etcdConfig(spec)
	if err != nil {
		return nil, nil, err
	}
	key := fmt.Sprintf("%#v", cfg)
	conn, ok := r.conns[key]
	if !ok {
		conn = etcdstore.NewConn(cfg)
		r.conns[key] = conn
	}
	repo := spec.RepoID
	if repo == "" {
		repo = etcdstore.URLRepo(spec.URL)
	}
	if repo == "" {
		if repo, ok = r.repos[project]; !ok {
			if repo, err = etcdstore.RepoID(project); err != nil {
				return nil, nil, fmt.Errorf("store %s: %w", spec.URL, err)
			}
			r.repos[project] = repo
		}
	}
	return &etcdstore.Locks{Conn: conn, Repo: repo, Root: project, Timeout: timeout, Now: now},
		&etcdstore.Document{Conn: conn, Repo: repo, Local: registry}, nil
}

// hookHandOver does nothing in the etcd build: it has the etcd store.
func hookHandOver(*config, []string, []byte) {}

// haveEtcdBuild is true: this is the etcd build.
func haveEtcdBuild() bool { return true }
