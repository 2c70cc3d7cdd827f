package workspace

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentlock/agentlock/store"
)

// A path's project decides where its lock lives, wherever the command that
// locks it runs: a file of a project on etcd is locked on that etcd even by
// a command started in /tmp or in a project on lock files, and a store that
// cannot be used (no etcd in this build, an unreadable store file) is an
// error, never a fallback to lock files that no other machine reads.
//
// router is the lock store behind a workspace's Locker. It sends each key
// to the store of the key's project: the workspace's own store for the
// records of its own project and for records a Scan named (Key.Ref), the
// lock files (each path's own lock folder) for projects without a
// distributed store, and that project's distributed store otherwise. One
// transaction stays on one store: keys of two stores are refused, since no
// atomic step spans two stores.
type router struct {
	w     *Workspace
	own   store.Locks // the workspace's own store: Scan, Ref keys, its project
	files store.Locks // the lock files of every project on lock files
	// byProject caches the store of each other project met.
	byProject map[string]routed
}

// routed is the store a key goes to, and its name for messages.
type routed struct {
	locks store.Locks
	name  string
}

var (
	_ store.Locks   = (*router)(nil)
	_ store.Areas   = (*router)(nil)
	_ store.Watcher = (*router)(nil)
	_ store.Queue   = (*router)(nil)
	_ store.Index   = (*indexedRouter)(nil)

	_ store.SessionRenewer = (*renewingRouter)(nil)
)

// indexedRouter is a router whose own store keeps per-session indexes
// (the lock files): RenewSession then reads only what the session noted.
type indexedRouter struct {
	*router
	idx store.Index
}

// renewingRouter is a router whose own store renews a whole session at
// once (etcd's leases).
type renewingRouter struct {
	*router
	renewer store.SessionRenewer
}

// RenewSession implements store.SessionRenewer with the own store's.
func (r *renewingRouter) RenewSession(ctx context.Context, session string, list bool) ([]store.Slot, error) {
	return r.renewer.RenewSession(ctx, session, list)
}

// newRouter returns the lock store of w.
func newRouter(w *Workspace) store.Locks {
	files := w.settings.fileLocks(w.settings.lockDirFor, w.LockDir)
	files.Document = w.RegistryPath // for the feed
	r := &router{w: w, own: files, files: files, byProject: map[string]routed{}}
	if w.locks == nil && w.repo != nil {
		// Every lock file goes through the mapping, which leaves the
		// paths outside the repository as they are: one store.
		own := &repoLocks{inner: files, r: w.repo, s: w.settings}
		r.own, r.files = own, own
		return &indexedRouter{router: r, idx: own}
	}
	if w.locks != nil {
		r.own = w.locks
		if renewer, ok := w.locks.(store.SessionRenewer); ok {
			return &renewingRouter{router: r, renewer: renewer}
		}
		return r
	}
	return &indexedRouter{router: r, idx: files}
}

// storeName names the store of a workspace for messages.
func storeName(w *Workspace) string {
	if w.spec.Set() {
		return w.spec.URL
	}
	return "lock files"
}

// route returns the store of k.
func (r *router) route(ctx context.Context, k store.Key) (routed, error) {
	own := routed{locks: r.own, name: storeName(r.w)}
	if k.Ref != "" || k.Path == "" {
		return own, nil
	}
	p := strings.TrimSuffix(k.Path, "/")
	if p == "" {
		p = "/"
	}
	project := r.w.settings.projectOf(p)
	if project == r.w.Project || r.w.repo != nil && project != "" && GitCommonDir(project) == r.w.repo.common {
		return own, nil
	}
	if got, ok := r.byProject[project]; ok {
		return got, nil
	}
	other, err := Open(ctx, p, r.w.settings)
	if err != nil {
		return routed{}, fmt.Errorf("the lock of %s: %w", k.Path, err)
	}
	got := routed{locks: r.files, name: "lock files"}
	switch {
	case other.Project == r.w.Project:
		// A repository not set up for agentlock: its paths are kept
		// here (see Settings.redirected).
		got = own
	case other.locks != nil:
		got = routed{locks: other.locks, name: storeName(other)}
	}
	r.byProject[project] = got
	return got, nil
}

// one returns the one store of keys, or an error when they need two.
func (r *router) one(ctx context.Context, keys []store.Key) (store.Locks, error) {
	if len(keys) == 0 {
		return r.own, nil
	}
	first, err := r.route(ctx, keys[0])
	if err != nil {
		return nil, err
	}
	for _, k := range keys[1:] {
		got, err := r.route(ctx, k)
		if err != nil {
			return nil, err
		}
		if got.locks != first.locks {
			return nil, fmt.Errorf("%s (in %s) and %s (in %s) are kept in different stores: lock them in separate commands",
				keys[0].Path, first.name, k.Path, got.name)
		}
	}
	return first.locks, nil
}

// Transact implements store.Locks on the one store of keys.
func (r *router) Transact(ctx context.Context, mode store.Mode, keys []store.Key, decide store.Decide) error {
	s, err := r.one(ctx, keys)
	if err != nil {
		return err
	}
	return s.Transact(ctx, mode, keys, decide)
}

// Scan implements store.Locks: the records of the workspace's own store.
func (r *router) Scan(ctx context.Context) ([]store.Slot, error) { return r.own.Scan(ctx) }

// TransactAreas implements store.Areas on the one store of keys.
func (r *router) TransactAreas(ctx context.Context, mode store.Mode, keys []store.Key, decide store.DecideAreas) error {
	s, err := r.one(ctx, keys)
	if err != nil {
		return err
	}
	as, ok := s.(store.Areas)
	if !ok {
		return fmt.Errorf("this store cannot hold area locks")
	}
	return as.TransactAreas(ctx, mode, keys, decide)
}

// Watch implements store.Watcher on the one store of keys; a store that
// cannot watch gives a channel that never fires (the waiter's timer still
// retries).
func (r *router) Watch(ctx context.Context, keys []store.Key) (<-chan struct{}, func(), error) {
	s, err := r.one(ctx, keys)
	if err != nil {
		return nil, nil, err
	}
	if w, ok := s.(store.Watcher); ok {
		return w.Watch(ctx, keys)
	}
	return make(chan struct{}), func() {}, nil
}

// Enqueue implements store.Queue on the one store of keys; an error when
// that store keeps no queue (the waiter then watches: see Watch).
func (r *router) Enqueue(ctx context.Context, session string, keys []store.Key) (<-chan struct{}, func(), error) {
	s, err := r.one(ctx, keys)
	if err != nil {
		return nil, nil, err
	}
	if q, ok := s.(store.Queue); ok {
		return q.Enqueue(ctx, session, keys)
	}
	return nil, nil, errNoQueue
}

// errNoQueue: the store of the keys keeps no queue of waiters.
var errNoQueue = errors.New("this lock store keeps no queue of waiters")

// Note implements store.Index: the keys kept in the lock files are noted
// in their folders' indexes; the others' stores keep no index.
func (r *indexedRouter) Note(ctx context.Context, session string, keys []store.Key) error {
	var mine []store.Key
	for _, k := range keys {
		got, err := r.route(ctx, k)
		if err != nil {
			return err
		}
		if got.locks == r.files {
			mine = append(mine, k)
		}
	}
	if len(mine) == 0 {
		return nil
	}
	return r.idx.Note(ctx, session, mine)
}

// Noted implements store.Index with the own store's index.
func (r *indexedRouter) Noted(ctx context.Context, session string, visit func(keys []store.Key, complete bool) ([]store.Key, error)) error {
	return r.idx.Noted(ctx, session, visit)
}

// Changes implements store.Feed: the feed of the workspace's own store.
func (r *router) Changes(ctx context.Context) (<-chan struct{}, error) { return r.own.Changes(ctx) }

// Changes returns the change feed of the workspace's store (store.Feed):
// a value whenever its locks or its registry may have changed, wherever
// the change was made — on etcd, any machine's; with the lock files, a
// write in the lock folder or the registry's folder on this machine.
func (w *Workspace) Changes(ctx context.Context) (<-chan struct{}, error) {
	return w.lockStore().Changes(ctx)
}
