//go:build etcd

package etcdstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/agentlock/agentlock/internal/sys/atomicfile"
	"github.com/agentlock/agentlock/store"
)

// Document is the registry of a repository on etcd: one key per session,
// <prefix>/registry/<repo>/s/<session>, and a head key for the rest,
// <prefix>/registry/<repo>/head (store.EntryDocument; package core splits
// and joins the document). An edit writes the keys of the sessions it
// changed, each compared with its revision as read, and the head without
// a comparison: writers of different sessions never make each other retry,
// and the registry has no size limit but a session's own.
//
// Every machine keeps its own copy of the whole registry.md in Local,
// rendered from the keys after every write of its own and whenever a read
// finds the keys changed since its last copy, so that agents and people
// still read a file.
//
// Older versions kept the whole document under one key,
// <prefix>/sessions/<repo>, replaced by compare-and-swap. While there is
// no head key, that key (else the local registry.md, for a project moving
// to etcd) is the registry; the first write splits it into keys and
// deletes it. An older agentlock still running against the cluster after
// that writes the one key again, which this version ignores: upgrade every
// machine of a project together.
type Document struct {
	Conn *Conn
	// Repo is the repository's id.
	Repo string
	// Local is this machine's registry.md.
	Local string
}

var (
	_ store.Document      = (*Document)(nil)
	_ store.EntryDocument = (*Document)(nil)
)

// Key is the key of the whole document as older versions wrote it.
func (d *Document) Key() string { return d.Conn.cfg.Prefix + "/sessions/" + escape(d.Repo) }

// EntriesPrefix is the prefix of the registry's keys.
func (d *Document) EntriesPrefix() string {
	return d.Conn.cfg.Prefix + "/registry/" + escape(d.Repo) + "/"
}

func (d *Document) headKey() string { return d.EntriesPrefix() + "head" }

func (d *Document) entryKey(id string) string {
	if id == "" {
		return d.headKey()
	}
	return d.EntriesPrefix() + "s/" + escape(id)
}

// Where implements store.Document: the keys and the cluster, then the local copy.
func (d *Document) Where() string {
	return fmt.Sprintf("%s (%s, copied to %s)", d.EntriesPrefix(), d.Conn.cfg.Where(), d.Local)
}

// snapshot is the registry as one read saw it.
type snapshot struct {
	head    *mvccpb.KeyValue
	entries map[string]*mvccpb.KeyValue // session id -> its key
	legacy  *mvccpb.KeyValue            // the one-key document of older versions
	// version names what was read (the newest write and the number of
	// keys), to tell whether the local copy is older.
	version string
	rev     int64 // the cluster's revision at the read
}

func (d *Document) read(ctx context.Context) (snapshot, error) {
	cli, err := d.Conn.Client()
	if err != nil {
		return snapshot{}, err
	}
	resp, err := retried(ctx, d.Conn, func(rctx context.Context) (*clientv3.TxnResponse, error) {
		return cli.Txn(rctx).Then(
			clientv3.OpGet(d.EntriesPrefix(), clientv3.WithPrefix()),
			clientv3.OpGet(d.Key()),
		).Commit()
	})
	if err != nil {
		return snapshot{}, d.Conn.wrap("read the registry", err)
	}
	snap := snapshot{entries: map[string]*mvccpb.KeyValue{}, legacy: first(resp.Responses[1].GetResponseRange().Kvs)}
	var newest int64
	kvs := resp.Responses[0].GetResponseRange().Kvs
	for _, kv := range kvs {
		newest = max(newest, kv.ModRevision)
		k := strings.TrimPrefix(string(kv.Key), d.EntriesPrefix())
		if k == "head" {
			snap.head = kv
			continue
		}
		if id, ok := strings.CutPrefix(k, "s/"); ok {
			if id, err := url.PathUnescape(id); err == nil {
				snap.entries[id] = kv
			}
		}
	}
	snap.version = fmt.Sprintf("%d/%d", newest, len(kvs))
	snap.rev = resp.Header.Revision
	return snap, nil
}

// list returns the entries of a snapshot, head first.
func (snap snapshot) list() []store.Entry {
	out := []store.Entry{{Data: snap.head.Value}}
	for id, kv := range snap.entries {
		out = append(out, store.Entry{ID: id, Data: kv.Value})
	}
	return out
}

// whole is the document of a snapshot without a head: the one key of
// older versions, else the local copy.
func (d *Document) whole(snap snapshot) ([]byte, error) {
	if snap.legacy != nil {
		d.syncLocal(snap.legacy.Value)
		return snap.legacy.Value, nil
	}
	return d.readLocal()
}

// Read implements store.Document: the document as a whole, while the
// cluster keeps it so; the local copy otherwise (package core reads the
// entries through ReadEntries).
func (d *Document) Read(ctx context.Context) ([]byte, error) {
	snap, err := d.read(ctx)
	if err != nil {
		return nil, err
	}
	if snap.head == nil {
		return d.whole(snap)
	}
	return d.readLocal()
}

// ReadEntries implements store.EntryDocument.
func (d *Document) ReadEntries(ctx context.Context, render func([]store.Entry) ([]byte, error)) ([]store.Entry, []byte, error) {
	snap, err := d.read(ctx)
	if err != nil {
		return nil, nil, err
	}
	if snap.head == nil {
		whole, err := d.whole(snap)
		return nil, whole, err
	}
	entries := snap.list()
	d.refreshCopy(ctx, snap.version, entries, render)
	return entries, nil, nil
}

// Edit implements store.Document for a caller that edits the document
// whole: the registry engine edits entries (EditEntries), so this refuses.
func (d *Document) Edit(context.Context, func(old []byte) ([]byte, error)) error {
	return errors.New("the etcd registry is kept per session: edit it through package core")
}

// maxEntryOps bounds the writes of one transaction of a registry edit,
// within etcd's --max-txn-ops; maxEntryBytes its size, within
// --max-request-bytes (1.5 MiB by default).
const (
	maxEntryOps   = maxTxnOps - 8
	maxEntryBytes = 1 << 20
)

// EditEntries implements store.EntryDocument.
func (d *Document) EditEntries(ctx context.Context, change func(entries []store.Entry, whole []byte) ([]store.Entry, error), render func([]store.Entry) ([]byte, error)) error {
	cli, err := d.Conn.Client()
	if err != nil {
		return err
	}
	pause := time.Millisecond
	for range maxAttempts {
		snap, err := d.read(ctx)
		if err != nil {
			return err
		}
		var entries []store.Entry
		var whole []byte
		if snap.head == nil {
			if whole, err = d.whole(snap); err != nil {
				return err
			}
		} else {
			entries = snap.list()
		}
		out, err := change(entries, whole)
		if err != nil {
			return err
		}
		if out == nil {
			if snap.head != nil {
				d.refreshCopy(ctx, snap.version, entries, render)
			}
			return nil
		}
		var cmps []clientv3.Cmp
		var ops []clientv3.Op
		var head *store.Entry
		if snap.head == nil {
			// The first write: the document becomes keys, as it is (change
			// answers the split of whole, and runs again on the keys once
			// they exist), so that two machines splitting it at once write
			// the same keys. The sessions go first, in as many writes as
			// they need (nothing reads them before the head exists), then
			// the head, once, if nobody split the document meanwhile.
			var sessions []store.Entry
			for i := range out {
				if out[i].ID == "" {
					head = &out[i]
				} else if out[i].Data != nil {
					sessions = append(sessions, out[i])
				}
			}
			if head == nil {
				return errors.New("registry: the first write of the registry on etcd has no head entry")
			}
			if err := d.putAll(ctx, cli, sessions); err != nil {
				return err
			}
			cmps = append(cmps, clientv3.Compare(clientv3.CreateRevision(d.headKey()), "=", 0),
				clientv3.Compare(clientv3.ModRevision(d.Key()), "=", rev(snap.legacy)))
			ops = append(ops, clientv3.OpPut(d.headKey(), string(head.Data)))
			if snap.legacy != nil {
				ops = append(ops, clientv3.OpDelete(d.Key()))
			}
		} else {
			size := 0
			for _, en := range out {
				k := d.entryKey(en.ID)
				size += len(k) + len(en.Data)
				if en.ID != "" {
					cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(k), "=", rev(snap.entries[en.ID])))
				}
				if en.Data == nil {
					ops = append(ops, clientv3.OpDelete(k))
				} else {
					ops = append(ops, clientv3.OpPut(k, string(en.Data)))
				}
			}
			if len(ops) > maxEntryOps || size > maxEntryBytes {
				return fmt.Errorf("registry: one edit changes %d sessions (%d bytes), more than one etcd transaction holds", len(out), size)
			}
		}
		rctx, cancel := d.Conn.ctx(ctx)
		resp, err := cli.Txn(rctx).If(cmps...).Then(ops...).Commit()
		cancel()
		if err != nil {
			return d.Conn.wrap("write the registry", err)
		}
		if !resp.Succeeded {
			time.Sleep(pause/2 + rand.N(pause))
			pause = min(pause*2, 50*time.Millisecond)
			continue
		}
		if snap.head == nil && whole != nil {
			continue // split as it was: now the change, on the keys
		}
		// This machine's copy, from what was read and written.
		all := map[string][]byte{}
		for _, en := range entries {
			all[en.ID] = en.Data
		}
		for _, en := range out {
			if en.Data == nil {
				delete(all, en.ID)
			} else {
				all[en.ID] = en.Data
			}
		}
		merged := make([]store.Entry, 0, len(all))
		for id, data := range all {
			merged = append(merged, store.Entry{ID: id, Data: data})
		}
		// The copy is of the registry at this write, unless another
		// write came between the read and this one: then the next read
		// renders it again.
		version := ""
		if resp.Header.Revision == snap.rev+1 {
			version = fmt.Sprintf("%d/%d", resp.Header.Revision, len(merged))
		}
		d.refreshCopy(ctx, version, merged, render)
		return nil
	}
	return &store.BusyError{Ref: d.EntriesPrefix(), Waited: time.Duration(maxAttempts) * 50 * time.Millisecond}
}

// putAll writes entries without comparisons, in transactions within
// etcd's limits.
func (d *Document) putAll(ctx context.Context, cli *clientv3.Client, entries []store.Entry) error {
	for len(entries) > 0 {
		var ops []clientv3.Op
		size := 0
		for len(entries) > 0 && len(ops) < maxEntryOps {
			k := d.entryKey(entries[0].ID)
			n := len(k) + len(entries[0].Data)
			if len(ops) > 0 && size+n > maxEntryBytes {
				break
			}
			ops = append(ops, clientv3.OpPut(k, string(entries[0].Data)))
			size += n
			entries = entries[1:]
		}
		rctx, cancel := d.Conn.ctx(ctx)
		_, err := cli.Txn(rctx).Then(ops...).Commit()
		cancel()
		if err != nil {
			return d.Conn.wrap("write the registry's sessions", err)
		}
	}
	return nil
}

// refreshCopy rewrites the local copy from entries unless it was rendered
// from the registry at version already ("" when unknown), best effort:
// the keys are the authority.
func (d *Document) refreshCopy(ctx context.Context, version string, entries []store.Entry, render func([]store.Entry) ([]byte, error)) {
	mark := d.Local + ".etcd-version"
	if version != "" {
		if cur, err := os.ReadFile(mark); err == nil && string(cur) == version {
			if _, err := os.Stat(d.Local); err == nil {
				return
			}
		}
	}
	data, err := render(entries)
	if err != nil {
		return
	}
	// The copy and its mark change together, so that two processes
	// refreshing at once never leave one's copy under the other's mark.
	if err := os.MkdirAll(filepath.Dir(d.Local), 0o700); err != nil {
		return
	}
	if unlock, err := lockFile(ctx, mark+".lock"); err == nil {
		defer unlock()
	}
	_ = os.WriteFile(mark, nil, 0o644) // until the copy is written: a crash leaves no false mark
	if err := d.writeLocal(data); err != nil {
		return
	}
	// Not synced: a mark lost or torn by a crash only renders the copy
	// again.
	_ = os.WriteFile(mark, []byte(version), 0o644)
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
