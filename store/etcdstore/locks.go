//go:build etcd

package etcdstore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/agentlock/agentlock/store"
)

// maxTxnOps is etcd's default bound on the operations of one transaction
// (etcd --max-txn-ops): a transaction over more is refused by the server.
const maxTxnOps = 128

// MaxPaths is how many records one transaction may name: each takes two
// reads and, written, two puts and two comparisons, and room is left for
// the session's lease.
const MaxPaths = (maxTxnOps - 8) / 2

// TooManyError refuses a transaction over more records than one etcd
// transaction can hold.
type TooManyError struct {
	Paths int
}

func (e *TooManyError) Error() string {
	return fmt.Sprintf("%d paths in one step are more than one etcd transaction holds (at most %d paths, fewer in deep folders: etcd --max-txn-ops %d): "+
		"take them in smaller groups, or lock their folder as an area (a path ending in /)", e.Paths, MaxPaths, maxTxnOps)
}

// maxAttempts bounds how many times a transaction re-reads after another
// process changed one of its keys between its read and its write.
const maxAttempts = 64

// Locks is the lock store of one checkout of a repository on etcd. It is
// safe for concurrent use by goroutines and by processes on any machine
// sharing the cluster.
type Locks struct {
	Conn *Conn
	// Repo is the repository's id, the same in every checkout.
	Repo string
	// Root is the checkout's root (a real path): lock keys name paths
	// relative to it.
	Root string
	// Timeout is the lease's length (rounded up to whole seconds; etcd may
	// raise a very short one to its minimum).
	Timeout time.Duration
	// Now is the clock the records are judged by (time.Now when nil).
	Now func() time.Time
	// Memory is a folder of this machine where the store remembers the
	// leases of the sessions it serves, so that renewing a session is one
	// request (see memory.go), shared by every checkout on the cluster
	// (Backend gives one per user and cluster); "" remembers nothing, and
	// renewing a session reads its leases first.
	Memory string
}

var (
	_ store.Locks          = (*Locks)(nil)
	_ store.Watcher        = (*Locks)(nil)
	_ store.SessionRenewer = (*Locks)(nil)
	_ store.Feed           = (*Locks)(nil)
)

func (s *Locks) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Where names the lock space for people: the repository id and the
// cluster (agentlock status shows it).
func (s *Locks) Where() string {
	return "repository " + s.Repo + " on " + s.Conn.cfg.Where() + " " + s.Conn.cfg.Prefix
}

// escape makes a repository id one key segment.
func escape(repo string) string { return url.PathEscape(repo) }

// LockPrefix is the prefix of every lock key of the repository.
func (s *Locks) LockPrefix() string {
	return s.Conn.cfg.Prefix + "/locks/" + escape(s.Repo) + "/"
}

func (s *Locks) lastPrefix() string {
	return s.Conn.cfg.Prefix + "/last/" + escape(s.Repo) + "/"
}

// leaseKey is where the lease of a session's locks in this repository,
// at this timeout, is published: one lease per (repository, session,
// timeout), so that a lock taken with a long timeout never rides on a
// short lease granted for another lock, and no other repository's user
// can shorten this one's.
func (s *Locks) leaseKey(session string) string {
	return s.leasePrefix() + session + "/" + strconv.FormatInt(s.ttl(), 10)
}

// leasePrefix is the prefix of the repository's lease keys.
func (s *Locks) leasePrefix() string {
	return s.Conn.cfg.Prefix + "/leases/" + escape(s.Repo) + "/"
}

// leaseValue is a lease key's value: the lease id and when it was last
// kept alive, so that a listing learns every session's last renewal in the
// request that reads the locks.
func leaseValue(id clientv3.LeaseID, renewed time.Time) string {
	return strconv.FormatInt(int64(id), 16) + "|" + strconv.FormatInt(renewed.UnixMicro(), 10)
}

// leaseRenewals returns, per lease, when it was last kept alive, from the
// lease keys kvs (a key written by an older build, without the time, is
// left out: its records' stamps stand).
func leaseRenewals(kvs []*mvccpb.KeyValue) map[int64]time.Time {
	out := map[int64]time.Time{}
	for _, kv := range kvs {
		_, at, ok := strings.Cut(string(kv.Value), "|")
		us, err := strconv.ParseInt(at, 10, 64)
		if !ok || err != nil || kv.Lease == 0 {
			continue
		}
		if t := time.UnixMicro(us); t.After(out[kv.Lease]) {
			out[kv.Lease] = t
		}
	}
	return out
}

// ttl is the lease length in whole seconds.
func (s *Locks) ttl() int64 {
	return max(1, int64(math.Ceil(s.Timeout.Seconds())))
}

// rel returns the key suffix of a key: the path relative to the root, or
// the Ref a Scan returned.
func (s *Locks) rel(k store.Key) (string, error) {
	if k.Ref != "" {
		r, ok := strings.CutPrefix(k.Ref, s.LockPrefix())
		if !ok || r == "" {
			return "", fmt.Errorf("%s: not a lock key of %s", k.Ref, s.LockPrefix())
		}
		return r, nil
	}
	r, err := filepath.Rel(s.Root, k.Path)
	if err != nil || r == "." || r == ".." || strings.HasPrefix(r, "../") || filepath.IsAbs(r) {
		return "", fmt.Errorf("%s is outside the checkout %s: the etcd store locks the files of its own repository only", k.Path, s.Root)
	}
	r = filepath.ToSlash(r)
	if store.IsArea(k.Path) {
		r += "/" // an area: the folder and everything below it
	}
	return r, nil
}

// localPath is the real path, in this checkout, of a key suffix.
func (s *Locks) localPath(rel string) string {
	p := filepath.Join(s.Root, filepath.FromSlash(rel))
	if strings.HasSuffix(rel, "/") {
		p += "/" // an area's record keeps its final "/"
	}
	return p
}

// encode is a record's value: the lock record format every backend
// stores (store.EncodeRecord).
func encode(r store.Record) string { return string(store.EncodeRecord(r)) }

// decode decodes a value (store.DecodeRecord); an error is a
// *store.CorruptError naming the key ref.
func decode(ref string, v []byte) (store.Record, error) {
	rec, err := store.DecodeRecord(v)
	if err != nil {
		return store.Record{}, store.NewCorruptError(ref, v, err.Error())
	}
	return rec, nil
}

// How a session took a lock (store.Taken) is kept beside its record, in
// the value of its last key, which every write of the record puts in the
// same transaction: the record, then a NUL and the note ("hook",
// "explicit"), which no record holds. The lock key's value stays the
// record alone. An older agentlock reads the last key's record and takes
// the record's path from the key, never from the value, so the note is
// no damage to it.

// lastValue is the value of a last key: the record's value v and, unless
// unknown, how its session took it.
func lastValue(v string, how store.Taken) string {
	if how == store.TakenUnknown {
		return v
	}
	return v + "\x00" + how.String()
}

// recordOfLast is the record's part of a last key's value.
func recordOfLast(v []byte) []byte {
	if i := bytes.IndexByte(v, 0); i >= 0 {
		return v[:i]
	}
	return v
}

// noteOf is how the live record of it was taken: the note of its last key
// when that key holds the same record (both are written together;
// TakenUnknown otherwise: a record written by an older agentlock).
func noteOf(it item) store.Taken {
	if it.live == nil || it.last == nil {
		return store.TakenUnknown
	}
	i := bytes.IndexByte(it.last.Value, 0)
	if i < 0 || !bytes.Equal(it.last.Value[:i], it.live.Value) {
		return store.TakenUnknown
	}
	return store.ParseTaken(string(it.last.Value[i+1:]))
}

// item is one key of a transaction as read.
type item struct {
	rel        string
	live, last *mvccpb.KeyValue
}

// slot presents an item to the engine with the lease's verdict
// (store.Liveness): a live key is fresh, whatever its stamp and the clocks
// say; a key whose lease expired, known from its last record, is stale
// with its owner — except in Update mode, where the session lost it:
// renewing or releasing finds no lock. Stamps are never rewritten.
func (s *Locks) slot(k store.Key, it item, mode store.Mode, renewed map[int64]time.Time) store.Slot {
	k.Ref = s.LockPrefix() + it.rel
	sl := store.Slot{Key: k}
	path := s.localPath(it.rel)
	switch {
	case it.live != nil:
		rec, err := decode(k.Ref, it.live.Value)
		if err != nil {
			sl.Err = err
			return sl
		}
		rec.Path = path
		live := &store.Liveness{Fresh: true}
		if at, ok := renewed[it.live.Lease]; ok {
			live.Renewed, live.Until = at, at.Add(s.Timeout)
		}
		sl.Record, sl.Liveness = rec, live
		how := noteOf(it)
		sl.Beside = func() (store.Taken, error) { return how, nil }
	case it.last != nil && mode != store.Update:
		rec, err := decode(s.lastPrefix()+it.rel, recordOfLast(it.last.Value))
		if err != nil {
			return sl // a lock that expired: nothing live to protect
		}
		rec.Path = path
		sl.Record, sl.Liveness = rec, &store.Liveness{Fresh: false}
	}
	return sl
}

func rev(kv *mvccpb.KeyValue) int64 {
	if kv == nil {
		return 0
	}
	return kv.ModRevision
}

// Transact implements store.Locks as optimistic transactions: read every
// key at one revision, decide, then write in one etcd transaction that
// succeeds only if none of the keys changed since the read; otherwise read
// and decide again. decide may therefore run more than once; only the
// answer of the run that is written counts.
func (s *Locks) Transact(ctx context.Context, mode store.Mode, keys []store.Key, decide store.Decide) error {
	cli, items, err := s.prepare(keys, func(first, again store.Key, rel string) error {
		return fmt.Errorf("%s and %s have the same lock key %s", first.Path, again.Path, rel)
	})
	if err != nil {
		return err
	}
	return s.transact(ctx, cli, mode, keys, items, false, func(slots, _ []store.Slot) ([]*store.Record, []store.Slot, error) {
		next, err := decide(slots)
		return next, nil, err
	})
}

// prepare returns the client and the items of a transaction on keys: at
// most MaxPaths of them, each with its key relative to the store. Two keys
// with the same relative key are an error, which dup makes from the first
// key, the second and their relative key.
func (s *Locks) prepare(keys []store.Key, dup func(first, again store.Key, rel string) error) (*clientv3.Client, []item, error) {
	cli, err := s.Conn.Client()
	if err != nil {
		return nil, nil, err
	}
	if len(keys) > MaxPaths {
		return nil, nil, &TooManyError{Paths: len(keys)}
	}
	items := make([]item, len(keys))
	seen := map[string]int{}
	for i, k := range keys {
		r, err := s.rel(k)
		if err != nil {
			return nil, nil, err
		}
		if j, ok := seen[r]; ok {
			return nil, nil, dup(keys[j], k, r)
		}
		seen[r] = i
		items[i].rel = r
	}
	return cli, items, nil
}

// transact runs attempts until one is written or decided; areas reads the
// records related to the keys through areas too.
func (s *Locks) transact(ctx context.Context, cli *clientv3.Client, mode store.Mode, keys []store.Key, items []item, areas bool, decide store.DecideAreas) error {
	pause := time.Millisecond
	for range maxAttempts {
		done, err := s.attempt(ctx, cli, mode, keys, items, areas, decide)
		if done || err != nil {
			return err
		}
		time.Sleep(pause/2 + rand.N(pause))
		pause = min(pause*2, 50*time.Millisecond)
	}
	return &store.BusyError{Ref: s.LockPrefix(), Waited: time.Duration(maxAttempts) * 50 * time.Millisecond}
}

// attempt is one read-decide-write; done is false when another process
// changed a key in between.
func (s *Locks) attempt(ctx context.Context, cli *clientv3.Client, mode store.Mode, keys []store.Key, items []item, areas bool, decide store.DecideAreas) (bool, error) {
	ops := make([]clientv3.Op, 0, 2*len(items))
	for _, it := range items {
		ops = append(ops, clientv3.OpGet(s.LockPrefix()+it.rel), clientv3.OpGet(s.lastPrefix()+it.rel))
	}
	var rel relatedReads
	if areas {
		rel = s.relatedOps(items)
		ops = append(ops, rel.ops...)
	}
	if mode == store.Read {
		// The sessions' last renewals, in the same request.
		ops = append(ops, clientv3.OpGet(s.leasePrefix(), clientv3.WithPrefix()))
	}
	if mode == store.Create {
		// The waiters in line (see queue.go), in the same request.
		ops = append(ops, clientv3.OpGet(s.queuePrefix(), clientv3.WithPrefix()))
	}
	if len(ops) > maxTxnOps {
		return false, &TooManyError{Paths: len(items)}
	}
	resp, err := retried(ctx, s.Conn, func(rctx context.Context) (*clientv3.TxnResponse, error) {
		return cli.Txn(rctx).Then(ops...).Commit()
	})
	if errors.Is(err, rpctypes.ErrTooManyOps) {
		return false, &TooManyError{Paths: len(items)}
	}
	if err != nil {
		return false, s.Conn.wrap("read locks", err)
	}
	var renewed map[int64]time.Time
	for i := range items {
		items[i].live = first(resp.Responses[2*i].GetResponseRange().Kvs)
		items[i].last = first(resp.Responses[2*i+1].GetResponseRange().Kvs)
	}
	var relatedKVs []*mvccpb.KeyValue
	var cmps []clientv3.Cmp
	if areas {
		relatedKVs, cmps = rel.results(s, resp, items)
	}
	if mode == store.Read {
		renewed = leaseRenewals(resp.Responses[len(resp.Responses)-1].GetResponseRange().Kvs)
	}
	slots := make([]store.Slot, len(items))
	for i := range items {
		slots[i] = s.slot(keys[i], items[i], mode, renewed)
	}
	related := make([]store.Slot, 0, len(relatedKVs))
	for _, kv := range relatedKVs {
		r := strings.TrimPrefix(string(kv.Key), s.LockPrefix())
		related = append(related, s.slot(store.Key{Path: s.localPath(r)}, item{rel: r, live: kv}, store.Read, renewed))
	}
	next, release, err := decide(slots, related)
	if err != nil || mode == store.Read {
		return true, err
	}
	if len(next) != len(items) {
		return false, fmt.Errorf("lock store: %d records decided for %d keys", len(next), len(items))
	}
	if mode == store.Create {
		line := resp.Responses[len(resp.Responses)-1].GetResponseRange().Kvs
		if err := s.checkLine(ctx, cli, items, next, line); err != nil {
			return true, err
		}
	}
	var writes []clientv3.Op
	// expect is what each written lock key holds once the write applied
	// ("" when deleted), to tell, when the answer is lost, whether it did.
	expect := map[string]string{}
	for _, r := range release {
		writes = append(writes, clientv3.OpDelete(r.Key.Ref))
	}
	leases := &leaseSet{s: s, cli: cli}
	for i, it := range items {
		lk, lastk := s.LockPrefix()+it.rel, s.lastPrefix()+it.rel
		cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(lk), "=", rev(it.live)),
			clientv3.Compare(clientv3.ModRevision(lastk), "=", rev(it.last)))
		rec := next[i]
		switch {
		case rec == nil:
		case rec.Free():
			if it.live != nil {
				writes = append(writes, clientv3.OpDelete(lk))
				expect[lk] = ""
			}
			if it.last != nil {
				writes = append(writes, clientv3.OpDelete(lastk))
			}
		case mode == store.Update && it.live == nil:
			return false, fmt.Errorf("%s: lock store: cannot write a lock that does not exist in update mode", lk)
		default:
			id, err := leases.forRecord(ctx, *rec, it.live)
			if errors.Is(err, errRetry) {
				return false, nil
			}
			if err != nil {
				return false, err
			}
			w := *rec
			if w.Path == "" {
				w.Path = s.localPath(it.rel)
			}
			v := encode(w)
			how := rec.Taken
			if how == store.TakenUnknown && it.live != nil {
				if old, err := decode(lk, it.live.Value); err == nil && old.Session == rec.Session {
					how = noteOf(it) // a renewal keeps the note
				}
			}
			writes = append(writes, clientv3.OpPut(lk, v, clientv3.WithLease(id)), clientv3.OpPut(lastk, lastValue(v, how)))
			expect[lk] = v
		}
	}
	if len(writes) == 0 {
		return true, nil
	}
	cmps = append(cmps, leases.cmps...)
	writes = append(writes, leases.puts...)
	if len(cmps) > maxTxnOps || len(writes) > maxTxnOps {
		leases.revokeGranted(ctx)
		return false, &TooManyError{Paths: len(items)}
	}
	rctx, cancel := s.Conn.ctx(ctx)
	tr, err := cli.Txn(rctx).If(cmps...).Then(writes...).Commit()
	cancel()
	if errors.Is(err, rpctypes.ErrTooManyOps) {
		leases.revokeGranted(ctx)
		return false, &TooManyError{Paths: len(items)}
	}
	if err != nil {
		// The answer may be lost while the write applied (a leader
		// change, a stall): read again before answering, so that a lock
		// taken is never reported as failed (and left held), nor a lock
		// not taken as taken.
		applied, rerr := s.applied(ctx, cli, expect)
		if rerr == nil && applied {
			leases.markPublished()
			return true, nil
		}
		leases.revokeGranted(ctx)
		if rerr != nil {
			return false, s.Conn.wrap("write locks (and read them again to see whether the write applied)", errors.Join(err, rerr))
		}
		return false, s.Conn.wrap("write locks", err)
	}
	if !tr.Succeeded {
		leases.revokeGranted(ctx)
		return false, nil
	}
	leases.markPublished()
	return true, nil
}

// applied reports whether every lock key of expect holds what the write
// put there ("" for a key it deleted), read in one request. A value holds
// the session and a stamp to the microsecond: no other write gives it.
func (s *Locks) applied(ctx context.Context, cli *clientv3.Client, expect map[string]string) (bool, error) {
	if len(expect) == 0 {
		return false, nil
	}
	keys := make([]string, 0, len(expect))
	ops := make([]clientv3.Op, 0, len(expect))
	for k := range expect {
		keys = append(keys, k)
		ops = append(ops, clientv3.OpGet(k))
	}
	resp, err := retried(ctx, s.Conn, func(rctx context.Context) (*clientv3.TxnResponse, error) {
		return cli.Txn(rctx).Then(ops...).Commit()
	})
	if err != nil {
		return false, err
	}
	for i, k := range keys {
		got := ""
		if kv := first(resp.Responses[i].GetResponseRange().Kvs); kv != nil {
			got = string(kv.Value)
		}
		if got != expect[k] {
			return false, nil
		}
	}
	return true, nil
}

func first(kvs []*mvccpb.KeyValue) *mvccpb.KeyValue {
	if len(kvs) == 0 {
		return nil
	}
	return kvs[0]
}

// errRetry asks for another attempt: a lease expired between the read and
// the write.
var errRetry = errors.New("retry")

// leaseSet finds, renews or grants the leases of one transaction's writes.
type leaseSet struct {
	s       *Locks
	cli     *clientv3.Client
	renewed map[clientv3.LeaseID]bool
	session map[string]clientv3.LeaseID
	granted []clientv3.LeaseID
	// cmps and puts publish a granted lease under the session's lease key,
	// in the same transaction as the locks.
	cmps []clientv3.Cmp
	puts []clientv3.Op
	// published are the sessions whose renewal the puts publish.
	published []string
}

// forRecord returns the lease a record is written with, kept alive for a
// whole timeout from now: the session's lease for this repository and
// timeout (granted when there is none). A lock its owner takes again with
// another timeout moves to that timeout's lease. Every lease of the
// session the read shows is remembered (see Locks.Memory) before the
// transaction attaches a lock to it, so that a renewal never misses one.
func (l *leaseSet) forRecord(ctx context.Context, rec store.Record, _ *mvccpb.KeyValue) (clientv3.LeaseID, error) {
	if id, ok := l.session[rec.Session]; ok {
		return id, nil
	}
	if l.session == nil {
		l.session = map[string]clientv3.LeaseID{}
	}
	key := l.s.leaseKey(rec.Session)
	resp, err := retried(ctx, l.s.Conn, func(rctx context.Context) (*clientv3.GetResponse, error) {
		return l.cli.Get(rctx, l.s.leasePrefix()+rec.Session+"/", clientv3.WithPrefix())
	})
	if err != nil {
		return 0, l.s.Conn.wrap("read the session's lease", err)
	}
	known := sessionLeases(resp.Kvs)
	cur := sessionLeaseOf(resp.Kvs, key)
	if cur != nil && cur.Lease != 0 {
		if err := l.s.remember(ctx, rec.Session, known); err != nil {
			return 0, err
		}
		id, err := l.renew(ctx, clientv3.LeaseID(cur.Lease))
		if err == nil {
			l.session[rec.Session] = id
			l.puts = append(l.puts, clientv3.OpPut(key, leaseValue(id, l.s.now()), clientv3.WithLease(id)))
			l.published = append(l.published, rec.Session)
		}
		return id, err
	}
	rctx, cancel := l.s.Conn.ctx(ctx)
	g, err := l.cli.Grant(rctx, l.s.ttl())
	cancel()
	if err != nil {
		return 0, l.s.Conn.wrap("grant a lease", err)
	}
	l.granted = append(l.granted, g.ID)
	if err := l.s.remember(ctx, rec.Session, append(known, lease{ttl: l.s.ttl(), id: g.ID})); err != nil {
		return 0, err
	}
	l.session[rec.Session] = g.ID
	l.cmps = append(l.cmps, clientv3.Compare(clientv3.ModRevision(key), "=", rev(cur)))
	l.puts = append(l.puts, clientv3.OpPut(key, leaseValue(g.ID, l.s.now()), clientv3.WithLease(g.ID)))
	l.published = append(l.published, rec.Session)
	return g.ID, nil
}

// renew keeps the lease id alive for another whole TTL, once per
// transaction; errRetry when it has expired.
func (l *leaseSet) renew(ctx context.Context, id clientv3.LeaseID) (clientv3.LeaseID, error) {
	if l.renewed[id] {
		return id, nil
	}
	// Renewing a lease twice is renewing it: the request is retried.
	_, err := retried(ctx, l.s.Conn, func(rctx context.Context) (*clientv3.LeaseKeepAliveResponse, error) {
		return l.cli.KeepAliveOnce(rctx, id)
	})
	if errors.Is(err, rpctypes.ErrLeaseNotFound) {
		return 0, errRetry
	}
	if err != nil {
		return 0, l.s.Conn.wrap("renew the lease", err)
	}
	if l.renewed == nil {
		l.renewed = map[clientv3.LeaseID]bool{}
	}
	l.renewed[id] = true
	return id, nil
}

// markPublished notes in the memory of the sessions whose lease keys the
// transaction wrote that their renewal is published.
func (l *leaseSet) markPublished() {
	for _, session := range l.published {
		l.s.published(session, l.s.now())
	}
}

// revokeGranted revokes the leases granted for a transaction that was not
// written, best effort: an orphan lease expires on its own.
func (l *leaseSet) revokeGranted(ctx context.Context) {
	ctx = context.WithoutCancel(ctx) // a write that failed for ctx still cleans up
	for _, id := range l.granted {
		rctx, cancel := l.s.Conn.ctx(ctx)
		_, _ = l.cli.Revoke(rctx, id)
		cancel()
	}
}

// Scan implements store.Locks: every lock of the repository, live or
// expired, read at one revision, with the paths of this checkout.
func (s *Locks) Scan(ctx context.Context) ([]store.Slot, error) {
	cli, err := s.Conn.Client()
	if err != nil {
		return nil, err
	}
	resp, err := retried(ctx, s.Conn, func(rctx context.Context) (*clientv3.TxnResponse, error) {
		return cli.Txn(rctx).Then(
			clientv3.OpGet(s.LockPrefix(), clientv3.WithPrefix()),
			clientv3.OpGet(s.lastPrefix(), clientv3.WithPrefix()),
			clientv3.OpGet(s.leasePrefix(), clientv3.WithPrefix()),
		).Commit()
	})
	if err != nil {
		return nil, s.Conn.wrap("list locks", err)
	}
	byRel := map[string]*item{}
	var order []string
	get := func(rel string) *item {
		it, ok := byRel[rel]
		if !ok {
			it = &item{rel: rel}
			byRel[rel] = it
			order = append(order, rel)
		}
		return it
	}
	for _, kv := range resp.Responses[0].GetResponseRange().Kvs {
		get(strings.TrimPrefix(string(kv.Key), s.LockPrefix())).live = kv
	}
	for _, kv := range resp.Responses[1].GetResponseRange().Kvs {
		get(strings.TrimPrefix(string(kv.Key), s.lastPrefix())).last = kv
	}
	renewed := leaseRenewals(resp.Responses[2].GetResponseRange().Kvs)
	slots := make([]store.Slot, 0, len(order))
	for _, rel := range order {
		slots = append(slots, s.slot(store.Key{}, *byRel[rel], store.Read, renewed))
	}
	return slots, nil
}

// Watch implements store.Watcher with etcd watches on the lock keys: a
// deletion (a release, or the owner's lease expiring) is a change.
func (s *Locks) Watch(ctx context.Context, keys []store.Key) (<-chan struct{}, func(), error) {
	cli, err := s.Conn.Client()
	if err != nil {
		return nil, nil, err
	}
	changes := make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(clientv3.WithRequireLeader(ctx))
	var wg sync.WaitGroup
	for _, k := range keys {
		r, err := s.rel(k)
		if err != nil {
			cancel()
			return nil, nil, err
		}
		wc := cli.Watch(ctx, s.LockPrefix()+r)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for resp := range wc {
				changed := resp.Err() != nil
				for _, ev := range resp.Events {
					if ev.Type == mvccpb.DELETE {
						changed = true
					}
				}
				if changed {
					select {
					case changes <- struct{}{}:
					default:
					}
				}
			}
		}()
	}
	return changes, sync.OnceFunc(func() { cancel(); wg.Wait() }), nil
}

// Changes implements store.Feed with one etcd watch on the repository's
// locks (live and last records) and one on its registry: every put and
// delete, an expired lease's included, is a change.
func (s *Locks) Changes(ctx context.Context) (<-chan struct{}, error) {
	cli, err := s.Conn.Client()
	if err != nil {
		return nil, err
	}
	changes := make(chan struct{}, 1)
	send := func() {
		select {
		case changes <- struct{}{}:
		default:
		}
	}
	// The watches start at the revision read here, not when the cluster
	// gets round to registering them: a change made after Changes
	// returns is never missed (a reader that reads the store once the
	// feed is set up sees every later change reported).
	head, err := retried(ctx, s.Conn, func(rctx context.Context) (*clientv3.GetResponse, error) {
		return cli.Get(rctx, s.LockPrefix(), clientv3.WithPrefix(), clientv3.WithCountOnly())
	})
	if err != nil {
		return nil, s.Conn.wrap("start the change feed", err)
	}
	from := clientv3.WithRev(head.Header.Revision + 1)
	ctx = clientv3.WithRequireLeader(ctx)
	for _, w := range []clientv3.WatchChan{
		cli.Watch(ctx, s.LockPrefix(), clientv3.WithPrefix(), from),
		cli.Watch(ctx, s.lastPrefix(), clientv3.WithPrefix(), from),
		cli.Watch(ctx, s.Conn.cfg.Prefix+"/sessions/"+escape(s.Repo), clientv3.WithPrefix(), from),
		cli.Watch(ctx, s.Conn.cfg.Prefix+"/registry/"+escape(s.Repo)+"/", clientv3.WithPrefix(), from),
	} {
		go func() {
			for resp := range w {
				if resp.Err() != nil || len(resp.Events) > 0 {
					send()
				}
			}
		}()
	}
	return changes, nil
}
