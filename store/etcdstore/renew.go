//go:build etcd

package etcdstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/agentlock/agentlock/store"
)

// RenewSession implements store.SessionRenewer. A session's locks in the
// repository hang on its leases, one per timeout it used; renewing them
// is one keep-alive stream carrying every lease, whatever the number of
// locks: one round trip when the leases are remembered (Locks.Memory) and
// list is false. Records are never rewritten.
//
// More requests only when needed: a read of the session's leases when
// nothing is remembered (the first renewal on this machine, a store
// without memory); a read of the records when list asks for them; and,
// at most every quarter of the lease, a write publishing the renewal's
// time on the lease keys, for listings (which show a renewal that old),
// that reads the session's leases too, to find any the memory misses.
func (s *Locks) RenewSession(ctx context.Context, session string, list bool) ([]store.Slot, error) {
	cli, err := s.Conn.Client()
	if err != nil {
		return nil, err
	}
	leases, published, ok := s.recall(session)
	if !ok {
		// Nothing remembered: the cluster says which leases the session
		// has here, and they are remembered for the next renewal.
		resp, err := retried(ctx, s.Conn, func(rctx context.Context) (*clientv3.GetResponse, error) {
			return cli.Get(rctx, s.leasePrefix()+session+"/", clientv3.WithPrefix())
		})
		if err != nil {
			return nil, s.Conn.wrap("read the session's leases", err)
		}
		leases = sessionLeases(resp.Kvs)
		if err := s.remember(ctx, session, leases); err != nil {
			return nil, err
		}
	}
	alive, dead, err := s.keepAlive(ctx, cli, leases)
	if err != nil {
		return nil, err
	}
	var problems []error
	if err := s.forget(ctx, session, dead); err != nil {
		problems = append(problems, err)
	}
	now := s.now()
	period := time.Duration(s.ttl()) * time.Second / 4
	if len(leases) > 0 {
		period = time.Duration(minTTL(leases)) * time.Second / 4
	}
	if !ok || now.Sub(published) > period {
		// Due: the renewal is published on the session's lease keys, for
		// listings (one write for all of them), and the session's leases
		// are read in the same request, so that one this machine does not
		// remember (taken through another checkout's memory, say) is
		// found, remembered and renewed within that period.
		var ops []clientv3.Op
		for _, l := range alive {
			ops = append(ops, clientv3.OpPut(s.leasePrefix()+session+"/"+strconv.FormatInt(l.ttl, 10),
				leaseValue(l.id, now), clientv3.WithLease(l.id)))
		}
		ops = append(ops, clientv3.OpGet(s.leasePrefix()+session+"/", clientv3.WithPrefix()))
		rctx, cancel := s.Conn.ctx(ctx)
		resp, err := cli.Txn(rctx).Then(ops...).Commit()
		cancel()
		if err != nil {
			problems = append(problems, s.Conn.wrap("publish the renewal", err))
		} else {
			s.published(session, now)
			var missed []lease
			for _, l := range sessionLeases(resp.Responses[len(ops)-1].GetResponseRange().Kvs) {
				if !slices.Contains(leases, l) {
					missed = append(missed, l)
				}
			}
			if len(missed) > 0 {
				if err := s.remember(ctx, session, missed); err != nil {
					problems = append(problems, err)
				}
				more, _, err := s.keepAlive(ctx, cli, missed)
				if err != nil {
					problems = append(problems, err)
				}
				alive = append(alive, more...)
			}
		}
	}
	if !list {
		return nil, errors.Join(problems...)
	}
	slots, err := s.sessionSlots(ctx, cli, session, alive, now)
	return slots, errors.Join(append(problems, err)...)
}

// sessionLeases returns the leases of a session's lease keys.
func sessionLeases(kvs []*mvccpb.KeyValue) []lease {
	var out []lease
	for _, kv := range kvs {
		k := string(kv.Key)
		ttl, err := strconv.ParseInt(k[strings.LastIndexByte(k, '/')+1:], 10, 64)
		if err != nil || kv.Lease == 0 {
			continue
		}
		out = append(out, lease{ttl: ttl, id: clientv3.LeaseID(kv.Lease)})
	}
	return out
}

func minTTL(leases []lease) int64 {
	m := leases[0].ttl
	for _, l := range leases[1:] {
		m = min(m, l.ttl)
	}
	return m
}

// keepAlive keeps leases alive on one keep-alive stream (one round trip:
// every request is sent before the first answer is read), and says which
// are alive and which the cluster no longer has.
func (s *Locks) keepAlive(ctx context.Context, cli *clientv3.Client, leases []lease) (alive []lease, dead []clientv3.LeaseID, err error) {
	if len(leases) == 0 {
		return nil, nil, nil
	}
	// Renewing a lease twice is renewing it: the request is retried.
	ttl, err := retried(ctx, s.Conn, func(rctx context.Context) (map[clientv3.LeaseID]int64, error) {
		return keepAliveOnce(rctx, cli, leases)
	})
	if err != nil {
		return nil, nil, s.Conn.wrap("renew the session's leases", err)
	}
	for _, l := range leases {
		t, answered := ttl[l.id]
		switch {
		case !answered:
			return nil, nil, fmt.Errorf("%s: renew the session's leases: no answer for lease %x", s.Conn.cfg.Where(), int64(l.id))
		case t <= 0:
			dead = append(dead, l.id) // expired: its locks are gone
		default:
			alive = append(alive, l)
		}
	}
	return alive, dead, nil
}

// keepAliveOnce renews leases in one keep-alive stream and returns the
// TTL the cluster gave each one it answered for (0 for an expired one).
func keepAliveOnce(ctx context.Context, cli *clientv3.Client, leases []lease) (map[clientv3.LeaseID]int64, error) {
	stream, err := pb.NewLeaseClient(cli.ActiveConnection()).LeaseKeepAlive(ctx)
	if err != nil {
		return nil, err
	}
	for _, l := range leases {
		if err := stream.Send(&pb.LeaseKeepAliveRequest{ID: int64(l.id)}); err != nil {
			return nil, err
		}
	}
	if err := stream.CloseSend(); err != nil {
		return nil, err
	}
	ttl := map[clientv3.LeaseID]int64{}
	for range leases {
		resp, err := stream.Recv()
		if err != nil {
			return nil, err
		}
		ttl[clientv3.LeaseID(resp.ID)] = resp.TTL
	}
	return ttl, nil
}

// sessionSlots reads the records session holds on the leases alive, with
// the renewal's time.
func (s *Locks) sessionSlots(ctx context.Context, cli *clientv3.Client, session string, alive []lease, now time.Time) ([]store.Slot, error) {
	resp, err := retried(ctx, s.Conn, func(rctx context.Context) (*clientv3.GetResponse, error) {
		return cli.Get(rctx, s.LockPrefix(), clientv3.WithPrefix())
	})
	if err != nil {
		return nil, s.Conn.wrap("list locks", err)
	}
	renewed := map[int64]time.Time{}
	for _, l := range alive {
		renewed[int64(l.id)] = now
	}
	var slots []store.Slot
	for _, kv := range resp.Kvs {
		rec, err := decode("", kv.Value)
		if err != nil || rec.Session != session {
			continue
		}
		if _, ok := renewed[kv.Lease]; !ok {
			continue
		}
		r := strings.TrimPrefix(string(kv.Key), s.LockPrefix())
		slots = append(slots, s.slot(store.Key{Path: s.localPath(r)}, item{rel: r, live: kv}, store.Read, renewed))
	}
	return slots, nil
}

// sessionLeaseOf returns the lease of kvs (the session's lease keys, as
// read) at ttl, if any.
func sessionLeaseOf(kvs []*mvccpb.KeyValue, key string) *mvccpb.KeyValue {
	i := slices.IndexFunc(kvs, func(kv *mvccpb.KeyValue) bool { return string(kv.Key) == key })
	if i < 0 {
		return nil
	}
	return kvs[i]
}
