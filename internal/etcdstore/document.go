//go:build etcd

package etcdstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/agentlock/agentlock/internal/atomicfile"
	"github.com/agentlock/agentlock/store"
)

// Document is the registry of a repository on etcd: the whole of
// registry.md under one key, <prefix>/sessions/<repo>, replaced by
// compare-and-swap on its revision. Every machine keeps its own copy in
// Local, rewritten from the key on every write and whenever a read finds it
// different, so that agents and people still read a file.
//
// One key for the whole document, not one per session: the registry engine
// (package core) edits the document as a whole, and one compare-and-swap
// keeps every edit whole without a second format.
type Document struct {
	Conn *Conn
	// Repo is the repository's id.
	Repo string
	// Local is this machine's registry.md.
	Local string
}

var _ store.Document = (*Document)(nil)

// Key is the document's key.
func (d *Document) Key() string { return d.Conn.cfg.Prefix + "/sessions/" + escape(d.Repo) }

// Where implements store.Document: the key and the cluster, then the local copy.
func (d *Document) Where() string {
	return fmt.Sprintf("%s (%s, copied to %s)", d.Key(), d.Conn.cfg.Where(), d.Local)
}

// get reads the document and its revision (0 when there is none).
func (d *Document) get(ctx context.Context) ([]byte, int64, error) {
	cli, err := d.Conn.Client()
	if err != nil {
		return nil, 0, err
	}
	rctx, cancel := d.Conn.ctx(ctx)
	defer cancel()
	resp, err := cli.Get(rctx, d.Key())
	if err != nil {
		return nil, 0, d.Conn.wrap("read the registry", err)
	}
	kv := first(resp.Kvs)
	if kv == nil {
		return nil, 0, nil
	}
	return kv.Value, kv.ModRevision, nil
}

// Read implements store.Document. When the cluster holds no registry yet,
// the local file is the document (a project moving to etcd keeps its
// sessions). A local copy that differs from the cluster's is rewritten.
func (d *Document) Read(ctx context.Context) ([]byte, error) {
	data, _, err := d.get(ctx)
	if err != nil {
		return nil, err
	}
	if data == nil {
		return d.readLocal()
	}
	d.syncLocal(data)
	return data, nil
}

// Edit implements store.Document: read with its revision, change, write if
// the revision is still the same, else again; then copy to the local file.
func (d *Document) Edit(ctx context.Context, change func(old []byte) ([]byte, error)) error {
	cli, err := d.Conn.Client()
	if err != nil {
		return err
	}
	for range maxAttempts {
		old, rv, err := d.get(ctx)
		if err != nil {
			return err
		}
		if old == nil {
			if old, err = d.readLocal(); err != nil {
				return err
			}
		}
		next, err := change(old)
		if err != nil {
			return err
		}
		if next == nil {
			if rv != 0 {
				d.syncLocal(old)
			}
			return nil
		}
		rctx, cancel := d.Conn.ctx(ctx)
		resp, err := cli.Txn(rctx).If(clientv3.Compare(clientv3.ModRevision(d.Key()), "=", rv)).
			Then(clientv3.OpPut(d.Key(), string(next))).Commit()
		cancel()
		if err != nil {
			return d.Conn.wrap("write the registry", err)
		}
		if resp.Succeeded {
			return d.writeLocal(next)
		}
	}
	return &store.BusyError{Ref: d.Key(), Waited: 0}
}

func (d *Document) readLocal() ([]byte, error) {
	data, err := os.ReadFile(d.Local)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", d.Local, err)
	}
	return data, nil
}

func (d *Document) writeLocal(data []byte) error {
	if err := os.MkdirAll(filepath.Dir(d.Local), 0o700); err != nil {
		return fmt.Errorf("registry copy: %w", err)
	}
	if err := atomicfile.Write(d.Local, data, 0o644); err != nil {
		return fmt.Errorf("registry copy: %w", err)
	}
	return nil
}

// syncLocal rewrites the local copy when it differs, best effort: the
// cluster's document is the authority.
func (d *Document) syncLocal(data []byte) {
	if cur, err := os.ReadFile(d.Local); err == nil && bytes.Equal(cur, data) {
		return
	}
	_ = d.writeLocal(data)
}
