//go:build etcd

package etcdstore

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/agentlock/agentlock/store"
)

// The waiters of a repository stand in line as etcd's concurrency.Mutex
// has them do: each one puts a key under <prefix>/queue/<repo>/, attached
// to a lease of its own that its process keeps alive while it waits, and
// the keys' creation revisions order them. An acquire (a waiter's or
// anyone's) that would take a free or stale lock is refused while an
// earlier waiter for an overlapping path stands in line and could take all
// of its paths now: the first to come goes first, and a waiter that cannot
// go yet (another of its paths is held) keeps nobody else waiting.
//
// A waiter whose process dies loses its place when its lease expires:
// within the lock timeout, and waitTTL seconds at most.

// waitTTL bounds the lease of a place in line, in seconds.
const waitTTL = 5

var _ store.Queue = (*Locks)(nil)

func (s *Locks) queuePrefix() string {
	return s.Conn.cfg.Prefix + "/queue/" + escape(s.Repo) + "/"
}

// waiter is one place in line as read.
type waiter struct {
	session string
	since   time.Time
	rels    []string
	rev     int64 // the key's creation revision: the order of the line
}

// encodeWaiter is a place's value: the session, when it came (µs) and the
// keys it waits for, one a line.
func encodeWaiter(session string, since time.Time, rels []string) string {
	return session + "\n" + strconv.FormatInt(since.UnixMicro(), 10) + "\n" + strings.Join(rels, "\n")
}

func decodeWaiter(kv *mvccpb.KeyValue) (waiter, bool) {
	parts := strings.Split(string(kv.Value), "\n")
	if len(parts) < 3 || parts[0] == "" {
		return waiter{}, false
	}
	us, err := strconv.ParseInt(parts[1], 10, 64)
	if err != nil {
		return waiter{}, false
	}
	return waiter{session: parts[0], since: time.UnixMicro(us), rels: parts[2:], rev: kv.CreateRevision}, true
}

// conflicts reports whether two key suffixes exclude each other: the same
// record, or an area and what it covers.
func conflicts(a, b string) bool { return a == b || store.Overlap(a, b) }

func (w waiter) waitsFor(rel string) bool {
	return slices.ContainsFunc(w.rels, func(r string) bool { return conflicts(r, rel) })
}

// Enqueue implements store.Queue.
func (s *Locks) Enqueue(ctx context.Context, session string, keys []store.Key) (<-chan struct{}, func(), error) {
	cli, err := s.Conn.Client()
	if err != nil {
		return nil, nil, err
	}
	rels := make([]string, 0, len(keys))
	for _, k := range keys {
		r, err := s.rel(k)
		if err != nil {
			return nil, nil, err
		}
		rels = append(rels, r)
	}
	// The place lasts until leave, not until ctx: ctx bounds the wait,
	// and leave is what ends it.
	ctx, cancel := context.WithCancel(clientv3.WithRequireLeader(context.WithoutCancel(ctx)))
	id, rev, err := s.stand(ctx, cli, session, rels)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	changes := make(chan struct{}, 1)
	send := func() {
		select {
		case changes <- struct{}{}:
		default:
		}
	}
	var wg sync.WaitGroup
	// From the revision of the place on: nothing that happens after it is
	// missed, whenever the watches start.
	locks := cli.Watch(ctx, s.LockPrefix(), clientv3.WithPrefix(), clientv3.WithFilterPut(), clientv3.WithRev(rev+1))
	line := cli.Watch(ctx, s.queuePrefix(), clientv3.WithPrefix(), clientv3.WithFilterPut(), clientv3.WithRev(rev+1))
	wg.Add(2)
	go func() {
		defer wg.Done()
		for resp := range locks {
			changed := resp.Err() != nil
			for _, ev := range resp.Events {
				r := strings.TrimPrefix(string(ev.Kv.Key), s.LockPrefix())
				changed = changed || slices.ContainsFunc(rels, func(mine string) bool { return conflicts(mine, r) })
			}
			if changed {
				send()
			}
		}
	}()
	go func() {
		defer wg.Done()
		for resp := range line {
			if resp.Err() != nil || len(resp.Events) > 0 {
				send() // someone left the line: perhaps the one ahead
			}
		}
	}()
	var mu sync.Mutex
	current := id
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			ka, err := cli.KeepAlive(ctx, current)
			if err == nil {
				for range ka {
				}
			}
			if ctx.Err() != nil {
				return
			}
			// The place expired (this process stalled for longer than
			// its lease): stand in line again, at its end.
			time.Sleep(100 * time.Millisecond)
			if next, _, err := s.stand(ctx, cli, session, rels); err == nil {
				mu.Lock()
				current = next
				mu.Unlock()
				send()
			}
		}
	}()
	leave := sync.OnceFunc(func() {
		cancel()
		wg.Wait()
		mu.Lock()
		last := current
		mu.Unlock()
		rctx, rcancel := s.Conn.ctx(context.Background())
		_, _ = cli.Revoke(rctx, last) // else it expires in waitTTL seconds
		rcancel()
	})
	return changes, leave, nil
}

// stand puts a place in line for session and returns its lease and the
// revision it was written at.
func (s *Locks) stand(ctx context.Context, cli *clientv3.Client, session string, rels []string) (clientv3.LeaseID, int64, error) {
	rctx, cancel := context.WithTimeout(ctx, s.Conn.cfg.dialTimeout())
	defer cancel()
	// No longer than the timeout: a crash never holds a path up for
	// longer than it would hold a lock.
	g, err := cli.Grant(rctx, min(waitTTL, s.ttl()))
	if err != nil {
		return 0, 0, s.Conn.wrap("stand in line", err)
	}
	key := s.queuePrefix() + strconv.FormatInt(int64(g.ID), 16)
	resp, err := cli.Put(rctx, key, encodeWaiter(session, s.now(), rels), clientv3.WithLease(g.ID))
	if err != nil {
		_, _ = cli.Revoke(rctx, g.ID)
		return 0, 0, s.Conn.wrap("stand in line", err)
	}
	return g.ID, resp.Header.Revision, nil
}

// checkLine refuses the records next would take from nobody (free or
// stale) while a waiter that came earlier than the taker for one of them
// stands in line and could take all of its records now. line is the
// queue as the transaction read it.
func (s *Locks) checkLine(ctx context.Context, cli *clientv3.Client, items []item, next []*store.Record, line []*mvccpb.KeyValue) error {
	if len(line) == 0 {
		return nil
	}
	var waiters []waiter
	for _, kv := range line {
		if w, ok := decodeWaiter(kv); ok {
			waiters = append(waiters, w)
		}
	}
	slices.SortFunc(waiters, func(a, b waiter) int { return cmp.Compare(a.rev, b.rev) })
	type ahead struct {
		w   waiter
		rel string
	}
	var candidates []ahead
	for i, it := range items {
		rec := next[i]
		if rec == nil || rec.Free() {
			continue
		}
		if it.live != nil {
			if cur, err := decode("", it.live.Value); err == nil && cur.Session == rec.Session {
				continue // a renewal takes nothing from anyone
			}
		}
		// The taker's own place, if it stands in line for this record.
		own := int64(math.MaxInt64)
		for _, w := range waiters {
			if w.session == rec.Session && w.waitsFor(it.rel) {
				own = min(own, w.rev)
			}
		}
		for _, w := range waiters {
			if w.rev >= own {
				break
			}
			if w.session != rec.Session && w.waitsFor(it.rel) {
				candidates = append(candidates, ahead{w, it.rel})
			}
		}
	}
	checked := map[int64]bool{}
	for _, c := range candidates {
		if checked[c.w.rev] {
			continue
		}
		checked[c.w.rev] = true
		ready, err := s.ready(ctx, cli, c.w)
		if err != nil {
			return err
		}
		if ready {
			return &store.QueuedError{Path: s.localPath(c.rel), Ahead: c.w.session, Since: max(s.now().Sub(c.w.since), 0)}
		}
	}
	return nil
}

// ready reports whether the waiter w could take all of its records now:
// no live lock of another session is on them or excludes them through an
// area. When that cannot be read in one transaction, w counts as ready:
// the first to come keeps its place.
func (s *Locks) ready(ctx context.Context, cli *clientv3.Client, w waiter) (bool, error) {
	items := make([]item, len(w.rels))
	var ops []clientv3.Op
	for i, r := range w.rels {
		items[i].rel = r
		ops = append(ops, clientv3.OpGet(s.LockPrefix()+r))
	}
	ops = append(ops, s.relatedOps(items).ops...)
	if len(ops) > maxTxnOps {
		return true, nil
	}
	resp, err := retried(ctx, s.Conn, func(rctx context.Context) (*clientv3.TxnResponse, error) {
		return cli.Txn(rctx).Then(ops...).Commit()
	})
	if err != nil {
		return false, s.Conn.wrap("read the locks of the waiter ahead", err)
	}
	for _, r := range resp.Responses {
		for _, kv := range r.GetResponseRange().Kvs {
			if rec, err := decode("", kv.Value); err != nil || rec.Session != w.session {
				return false, nil
			}
		}
	}
	return true, nil
}
