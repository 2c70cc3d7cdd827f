package workspace

import (
	"context"
	"errors"
	"time"

	"github.com/agentlock/agentlock/store"
)

// Read versions travel the same roads as locks: a path's version and
// changes live in the store of its lock (router), under its lock identity
// (repoLocks maps a worktree's path to the repository's), so that a
// version and a lock always speak of the same file.

var (
	_ store.Versions = (*router)(nil)
	_ store.Versions = (*repoLocks)(nil)
)

// ErrNoVersions: the store of a path keeps no read versions (a backend
// that does not implement store.Versions).
var ErrNoVersions = errors.New("this lock store keeps no read versions")

// versionsOf returns the versions of a routed store.
func versionsOf(s store.Locks) (store.Versions, error) {
	if v, ok := s.(store.Versions); ok {
		return v, nil
	}
	return nil, ErrNoVersions
}

// byStore groups keys by the store that keeps their records, in the order
// first met.
func (r *router) byStore(ctx context.Context, keys []store.Key) ([]store.Versions, map[store.Versions][]store.Key, error) {
	var order []store.Versions
	by := map[store.Versions][]store.Key{}
	for _, k := range keys {
		got, err := r.route(ctx, k)
		if err != nil {
			return nil, nil, err
		}
		v, err := versionsOf(got.locks)
		if err != nil {
			return nil, nil, err
		}
		if _, ok := by[v]; !ok {
			order = append(order, v)
		}
		by[v] = append(by[v], k)
	}
	return order, by, nil
}

// See implements store.Versions on the store of each version's path; a
// session start alone (no version) goes to the workspace's own store.
func (r *router) See(ctx context.Context, session string, since time.Time, vs []store.Version) error {
	if len(vs) == 0 {
		own, err := versionsOf(r.own)
		if err != nil {
			return err
		}
		return own.See(ctx, session, since, nil)
	}
	keys := make([]store.Key, len(vs))
	for i, v := range vs {
		keys[i] = store.Key{Path: v.Path}
	}
	order, by, err := r.byStore(ctx, keys)
	if err != nil {
		return err
	}
	for _, s := range order {
		var mine []store.Version
		for _, v := range vs {
			for _, k := range by[s] {
				if k.Path == v.Path {
					mine = append(mine, v)
					break
				}
			}
		}
		if err := s.See(ctx, session, since, mine); err != nil {
			return err
		}
	}
	return nil
}

// Seen implements store.Versions: the views of each store, joined; the
// session began at the earliest start any of them knows.
func (r *router) Seen(ctx context.Context, session string, keys []store.Key) (store.View, error) {
	var view store.View
	if len(keys) == 0 {
		// Every version of the session: the workspace's own store's.
		own, err := versionsOf(r.own)
		if err != nil {
			return view, err
		}
		return own.Seen(ctx, session, nil)
	}
	order, by, err := r.byStore(ctx, keys)
	if err != nil {
		return view, err
	}
	for _, s := range order {
		got, err := s.Seen(ctx, session, by[s])
		if err != nil {
			return view, err
		}
		if view.Since.IsZero() || !got.Since.IsZero() && got.Since.Before(view.Since) {
			view.Since = got.Since
		}
		view.Versions = append(view.Versions, got.Versions...)
		view.Damaged = append(view.Damaged, got.Damaged...)
	}
	return view, nil
}

// Forget implements store.Versions on the workspace's own store.
func (r *router) Forget(ctx context.Context, session string) error {
	own, err := versionsOf(r.own)
	if err != nil {
		return err
	}
	return own.Forget(ctx, session)
}

// Change implements store.Versions on the store of each change's path.
func (r *router) Change(ctx context.Context, cs []store.Change) error {
	for _, c := range cs {
		got, err := r.route(ctx, store.Key{Path: c.Path})
		if err != nil {
			return err
		}
		v, err := versionsOf(got.locks)
		if err != nil {
			return err
		}
		if err := v.Change(ctx, []store.Change{c}); err != nil {
			return err
		}
	}
	return nil
}

// Changed implements store.Versions on the store of each key's path.
func (r *router) Changed(ctx context.Context, keys []store.Key) ([]store.Change, []*store.DamagedError, error) {
	order, by, err := r.byStore(ctx, keys)
	if err != nil {
		return nil, nil, err
	}
	var out []store.Change
	var damaged []*store.DamagedError
	for _, s := range order {
		cs, ds, err := s.Changed(ctx, by[s])
		if err != nil {
			return nil, nil, err
		}
		out = append(out, cs...)
		damaged = append(damaged, ds...)
	}
	return out, damaged, nil
}

// Damaged implements store.Versions on the workspace's own store.
func (r *router) Damaged(ctx context.Context) ([]*store.DamagedError, error) {
	own, err := versionsOf(r.own)
	if err != nil {
		return nil, err
	}
	return own.Damaged(ctx)
}

// inner returns the versions of the repository's store.
func (l *repoLocks) versions() (store.Versions, error) { return versionsOf(l.inner) }

// See implements store.Versions under the repository's identities.
func (l *repoLocks) See(ctx context.Context, session string, since time.Time, vs []store.Version) error {
	v, err := l.versions()
	if err != nil {
		return err
	}
	in := make([]store.Version, len(vs))
	for i, x := range vs {
		in[i] = x
		in[i].Path = l.r.canon(l.s, x.Path)
	}
	return v.See(ctx, session, since, in)
}

// Seen implements store.Versions, each path shown as this worktree's.
func (l *repoLocks) Seen(ctx context.Context, session string, keys []store.Key) (store.View, error) {
	v, err := l.versions()
	if err != nil {
		return store.View{}, err
	}
	view, err := v.Seen(ctx, session, l.inKeys(keys))
	for i := range view.Versions {
		view.Versions[i].Path = l.r.local(view.Versions[i].Path)
	}
	for _, d := range view.Damaged {
		d.Path = l.r.local(d.Path)
	}
	return view, err
}

// Forget implements store.Versions.
func (l *repoLocks) Forget(ctx context.Context, session string) error {
	v, err := l.versions()
	if err != nil {
		return err
	}
	return v.Forget(ctx, session)
}

// Change implements store.Versions under the repository's identities.
func (l *repoLocks) Change(ctx context.Context, cs []store.Change) error {
	v, err := l.versions()
	if err != nil {
		return err
	}
	in := make([]store.Change, len(cs))
	for i, c := range cs {
		in[i] = c
		in[i].Path = l.r.canon(l.s, c.Path)
	}
	return v.Change(ctx, in)
}

// Changed implements store.Versions, each path shown as this worktree's.
func (l *repoLocks) Changed(ctx context.Context, keys []store.Key) ([]store.Change, []*store.DamagedError, error) {
	v, err := l.versions()
	if err != nil {
		return nil, nil, err
	}
	cs, ds, err := v.Changed(ctx, l.inKeys(keys))
	for i := range cs {
		cs[i].Path = l.r.local(cs[i].Path)
	}
	for _, d := range ds {
		d.Path = l.r.local(d.Path)
	}
	return cs, ds, err
}

// Damaged implements store.Versions, each path shown as this worktree's.
func (l *repoLocks) Damaged(ctx context.Context) ([]*store.DamagedError, error) {
	v, err := l.versions()
	if err != nil {
		return nil, err
	}
	ds, err := v.Damaged(ctx)
	for _, d := range ds {
		d.Path = l.r.local(d.Path)
	}
	return ds, err
}
