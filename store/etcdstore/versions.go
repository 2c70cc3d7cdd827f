//go:build etcd

package etcdstore

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/agentlock/agentlock/store"
)

// Read versions on etcd (docs/read-versions.md), with the one codec of
// version records (store.EncodeVersion, store.EncodeChange), each record's
// path the key's path relative to the checkout:
//
//	<prefix>/seen/<repo>/<session>/since      when the session began
//	<prefix>/seen/<repo>/<session>/v/<path>   the session's version of a file
//	<prefix>/changed/<repo>/edit/<path>       the file's last edit a hook saw
//	<prefix>/changed/<repo>/hold/<path>       the file's last lock taken by a command
//	<prefix>/changed/<repo>/free/<path>       the file's last lock released
//
// A session's keys are attached to its lease (the one its locks ride on,
// granted when it holds none), so that they go with its expiry as its
// locks do; its finish deletes them. <session> is escaped into one key
// segment. The changes have no lease: one key per file and kind,
// overwritten by the next.

var _ store.Versions = (*Locks)(nil)

func (s *Locks) seenPrefix(session string) string {
	return s.Conn.cfg.Prefix + "/seen/" + escape(s.Repo) + "/" + escape(session) + "/"
}

func (s *Locks) changedKey(kind store.ChangeKind, rel string) string {
	return s.Conn.cfg.Prefix + "/changed/" + escape(s.Repo) + "/" + kind.String() + "/" + rel
}

// changeKinds are the kinds of changes, a key each.
var changeKinds = []store.ChangeKind{store.ChangeEdit, store.ChangeHold, store.ChangeRelease}

// See implements store.Versions: the versions are put under the session's
// lease, with its start unless one is recorded, in one transaction that
// also publishes a lease it granted.
func (s *Locks) See(ctx context.Context, session string, since time.Time, vs []store.Version) error {
	cli, err := s.Conn.Client()
	if err != nil {
		return err
	}
	values := make(map[string]string, len(vs))
	for _, v := range vs {
		rel, err := s.rel(store.Key{Path: v.Path})
		if err != nil {
			return err
		}
		w := v
		w.Path = rel
		line, err := store.EncodeVersion(w)
		if err != nil {
			return err
		}
		values[s.seenPrefix(session)+"v/"+rel] = string(line)
	}
	pause := time.Millisecond
	for range maxAttempts {
		done, err := s.see(ctx, cli, session, since, values)
		if done || err != nil {
			return err
		}
		time.Sleep(pause/2 + rand.N(pause))
		pause = min(pause*2, 50*time.Millisecond)
	}
	return &store.BusyError{Ref: s.seenPrefix(session), Waited: time.Duration(maxAttempts) * 50 * time.Millisecond}
}

// see is one attempt of See; done is false when the session's lease key
// changed meanwhile.
func (s *Locks) see(ctx context.Context, cli *clientv3.Client, session string, since time.Time, values map[string]string) (bool, error) {
	leases := &leaseSet{s: s, cli: cli}
	id, err := leases.forRecord(ctx, store.Record{Session: session}, nil)
	if errors.Is(err, errRetry) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	var ops []clientv3.Op
	for k, v := range values {
		ops = append(ops, clientv3.OpPut(k, v, clientv3.WithLease(id)))
	}
	if !since.IsZero() {
		key := s.seenPrefix(session) + "since"
		ops = append(ops, clientv3.OpTxn(
			[]clientv3.Cmp{clientv3.Compare(clientv3.CreateRevision(key), "=", 0)},
			[]clientv3.Op{clientv3.OpPut(key, string(store.EncodeSince(since)), clientv3.WithLease(id))}, nil))
	}
	ops = append(ops, leases.puts...)
	if len(ops) > maxTxnOps {
		leases.revokeGranted(ctx)
		return false, &TooManyError{Paths: len(values)}
	}
	rctx, cancel := s.Conn.ctx(ctx)
	tr, err := cli.Txn(rctx).If(leases.cmps...).Then(ops...).Commit()
	cancel()
	if err != nil {
		leases.revokeGranted(ctx)
		return false, s.Conn.wrap("record read versions", err)
	}
	if !tr.Succeeded {
		leases.revokeGranted(ctx)
		return false, nil
	}
	leases.markPublished()
	return true, nil
}

// Seen implements store.Versions: every key of the session, in one
// request; those of the paths of keys are returned.
func (s *Locks) Seen(ctx context.Context, session string, keys []store.Key) (store.View, error) {
	var view store.View
	want := map[string]bool{}
	for _, k := range keys {
		rel, err := s.rel(k)
		if err != nil {
			return view, err
		}
		want[rel] = true
	}
	cli, err := s.Conn.Client()
	if err != nil {
		return view, err
	}
	prefix := s.seenPrefix(session)
	resp, err := retried(ctx, s.Conn, func(rctx context.Context) (*clientv3.GetResponse, error) {
		return cli.Get(rctx, prefix, clientv3.WithPrefix())
	})
	if err != nil {
		return view, s.Conn.wrap("read read versions", err)
	}
	for _, kv := range resp.Kvs {
		name := strings.TrimPrefix(string(kv.Key), prefix)
		if name == "since" {
			t, err := store.DecodeSince(string(kv.Key), kv.Value)
			if err != nil {
				view.Damaged = append(view.Damaged, err.(*store.DamagedError))
				continue
			}
			view.Since = t
			continue
		}
		rel, ok := strings.CutPrefix(name, "v/")
		if !ok || len(want) > 0 && !want[rel] {
			continue
		}
		v, err := store.DecodeVersion(string(kv.Key), kv.Value)
		if err == nil && v.Path != rel {
			err = &store.DamagedError{Ref: string(kv.Key), Reason: "records " + store.Clip(v.Path) + ", not its key's path"}
		}
		if err != nil {
			d := err.(*store.DamagedError)
			d.Path = s.localPath(rel)
			view.Damaged = append(view.Damaged, d)
			continue
		}
		v.Path = s.localPath(rel)
		view.Versions = append(view.Versions, v)
	}
	return view, nil
}

// Forget implements store.Versions: every key of the session.
func (s *Locks) Forget(ctx context.Context, session string) error {
	cli, err := s.Conn.Client()
	if err != nil {
		return err
	}
	_, err = retried(ctx, s.Conn, func(rctx context.Context) (*clientv3.DeleteResponse, error) {
		return cli.Delete(rctx, s.seenPrefix(session), clientv3.WithPrefix())
	})
	return s.Conn.wrap("forget read versions", err)
}

// Change implements store.Versions: one put per change, in one request.
func (s *Locks) Change(ctx context.Context, cs []store.Change) error {
	cli, err := s.Conn.Client()
	if err != nil {
		return err
	}
	var ops []clientv3.Op
	for _, c := range cs {
		rel, err := s.rel(store.Key{Path: c.Path})
		if err != nil {
			return err
		}
		w := c
		w.Path = rel
		line, err := store.EncodeChange(w)
		if err != nil {
			return err
		}
		ops = append(ops, clientv3.OpPut(s.changedKey(c.Kind, rel), string(line)))
	}
	if len(ops) == 0 {
		return nil
	}
	if len(ops) > maxTxnOps {
		return &TooManyError{Paths: len(ops)}
	}
	// Putting the same values twice is putting them: retried.
	_, err = retried(ctx, s.Conn, func(rctx context.Context) (*clientv3.TxnResponse, error) {
		return cli.Txn(rctx).Then(ops...).Commit()
	})
	return s.Conn.wrap("record changes", err)
}

// Changed implements store.Versions: every kind of each key's path, in
// one request.
func (s *Locks) Changed(ctx context.Context, keys []store.Key) ([]store.Change, []*store.DamagedError, error) {
	cli, err := s.Conn.Client()
	if err != nil {
		return nil, nil, err
	}
	var ops []clientv3.Op
	var rels []string
	for _, k := range keys {
		rel, err := s.rel(k)
		if err != nil {
			return nil, nil, err
		}
		for _, kind := range changeKinds {
			rels = append(rels, rel)
			ops = append(ops, clientv3.OpGet(s.changedKey(kind, rel)))
		}
	}
	if len(ops) == 0 {
		return nil, nil, nil
	}
	if len(ops) > maxTxnOps {
		return nil, nil, &TooManyError{Paths: len(keys)}
	}
	resp, err := retried(ctx, s.Conn, func(rctx context.Context) (*clientv3.TxnResponse, error) {
		return cli.Txn(rctx).Then(ops...).Commit()
	})
	if err != nil {
		return nil, nil, s.Conn.wrap("read changes", err)
	}
	var out []store.Change
	var damaged []*store.DamagedError
	for i, r := range resp.Responses {
		kv := first(r.GetResponseRange().Kvs)
		if kv == nil {
			continue
		}
		rel := rels[i]
		c, err := decodeChange(kv.Key, kv.Value, rel)
		if err != nil {
			d := err.(*store.DamagedError)
			d.Path = s.localPath(rel)
			damaged = append(damaged, d)
			continue
		}
		c.Path = s.localPath(rel)
		out = append(out, c)
	}
	return out, damaged, nil
}

// decodeChange decodes a change key's value, which must be about rel.
func decodeChange(key, value []byte, rel string) (store.Change, error) {
	c, err := store.DecodeChange(string(key), value)
	if err == nil && c.Path != rel {
		err = &store.DamagedError{Ref: string(key), Reason: "records " + store.Clip(c.Path) + ", not its key's path"}
	}
	return c, err
}

// Damaged implements store.Versions: every version and change key of the
// repository, decoded.
func (s *Locks) Damaged(ctx context.Context) ([]*store.DamagedError, error) {
	cli, err := s.Conn.Client()
	if err != nil {
		return nil, err
	}
	seen := s.Conn.cfg.Prefix + "/seen/" + escape(s.Repo) + "/"
	changed := s.Conn.cfg.Prefix + "/changed/" + escape(s.Repo) + "/"
	resp, err := retried(ctx, s.Conn, func(rctx context.Context) (*clientv3.TxnResponse, error) {
		return cli.Txn(rctx).Then(clientv3.OpGet(seen, clientv3.WithPrefix()), clientv3.OpGet(changed, clientv3.WithPrefix())).Commit()
	})
	if err != nil {
		return nil, s.Conn.wrap("read read versions", err)
	}
	var out []*store.DamagedError
	for _, kv := range resp.Responses[0].GetResponseRange().Kvs {
		_, name, _ := strings.Cut(strings.TrimPrefix(string(kv.Key), seen), "/")
		var err error
		if name == "since" {
			_, err = store.DecodeSince(string(kv.Key), kv.Value)
		} else {
			_, err = store.DecodeVersion(string(kv.Key), kv.Value)
		}
		if err != nil {
			out = append(out, err.(*store.DamagedError))
		}
	}
	for _, kv := range resp.Responses[1].GetResponseRange().Kvs {
		_, rel, _ := strings.Cut(strings.TrimPrefix(string(kv.Key), changed), "/")
		if _, err := decodeChange(kv.Key, kv.Value, rel); err != nil {
			d := err.(*store.DamagedError)
			d.Path = s.localPath(rel)
			out = append(out, d)
		}
	}
	return out, nil
}
