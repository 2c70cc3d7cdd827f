//go:build etcd

package etcdstore

import (
	"context"
	"strings"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/agentlock/agentlock/store"
)

var _ store.Areas = (*Locks)(nil)

// TransactAreas implements store.Areas. An area is the key of its folder
// with a final '/' ("<prefix>/locks/<repo>/src/auth/"), so the records
// related to a key are the area keys of its parent folders (one get each)
// and, for an area, the range of keys below it, all read at the
// transaction's revision. The write succeeds only if none of them changed
// since: each parent area key by its revision, the range by a comparison
// on every key in it (no key below the area written after the read). A
// concurrent file acquire below a new area and that area's acquire thus
// exclude each other whichever writes first.
func (s *Locks) TransactAreas(ctx context.Context, mode store.Mode, keys []store.Key, decide store.DecideAreas) error {
	cli, items, err := s.prepare(keys, func(_, again store.Key, _ string) error { return &dupError{path: again.Path} })
	if err != nil {
		return err
	}
	return s.transact(ctx, cli, mode, keys, items, true, decide)
}

type dupError struct{ path string }

func (e *dupError) Error() string { return e.path + ": named twice in one transaction" }

// relatedReads are the reads of the records related to a transaction's
// keys, appended after the keys' own reads.
type relatedReads struct {
	first   int      // index of the first related response
	parents []string // area keys of the parent folders, one get each
	ranges  []string // prefixes below the areas of the transaction, one range each
	ops     []clientv3.Op
}

// relatedOps plans the reads of the records related to items.
func (s *Locks) relatedOps(items []item) relatedReads {
	rr := relatedReads{first: 2 * len(items)}
	own := map[string]bool{}
	for _, it := range items {
		own[it.rel] = true
	}
	seen := map[string]bool{}
	for _, it := range items {
		// Every parent folder, as an area: "a/", "a/b/" for "a/b/c" and for "a/b/c/".
		trimmed := strings.TrimSuffix(it.rel, "/")
		for i := strings.Index(trimmed, "/"); i >= 0; {
			parent := trimmed[:i+1]
			if !seen[parent] && !own[parent] {
				seen[parent] = true
				rr.parents = append(rr.parents, parent)
			}
			j := strings.Index(trimmed[i+1:], "/")
			if j < 0 {
				break
			}
			i += j + 1
		}
		if strings.HasSuffix(it.rel, "/") {
			rr.ranges = append(rr.ranges, it.rel)
		}
	}
	for _, p := range rr.parents {
		rr.ops = append(rr.ops, clientv3.OpGet(s.LockPrefix()+p))
	}
	for _, r := range rr.ranges {
		rr.ops = append(rr.ops, clientv3.OpGet(s.LockPrefix()+r, clientv3.WithPrefix()))
	}
	return rr
}

// results returns the related records read (live ones: an expired lease's
// record is gone, free) and the comparisons that keep them true until the
// write.
func (rr relatedReads) results(s *Locks, resp *clientv3.TxnResponse, items []item) ([]*mvccpb.KeyValue, []clientv3.Cmp) {
	own := map[string]bool{}
	for _, it := range items {
		own[s.LockPrefix()+it.rel] = true
	}
	var kvs []*mvccpb.KeyValue
	var cmps []clientv3.Cmp
	seen := map[string]bool{}
	add := func(kv *mvccpb.KeyValue) {
		if k := string(kv.Key); !own[k] && !seen[k] {
			seen[k] = true
			kvs = append(kvs, kv)
		}
	}
	for i, p := range rr.parents {
		kv := first(resp.Responses[rr.first+i].GetResponseRange().Kvs)
		cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(s.LockPrefix()+p), "=", rev(kv)))
		if kv != nil {
			add(kv)
		}
	}
	for i, r := range rr.ranges {
		for _, kv := range resp.Responses[rr.first+len(rr.parents)+i].GetResponseRange().Kvs {
			add(kv)
		}
		cmps = append(cmps, clientv3.Compare(clientv3.ModRevision(s.LockPrefix()+r), "<", resp.Header.Revision+1).WithPrefix())
	}
	return kvs, cmps
}
