package workspace

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/agentlock/agentlock/core"
)

// The interval of a renewal loop (heartbeat --every, heartbeat-loop, the
// wrapper scripts): agent-registry 0.2's default, a floor below which the
// loop would only hammer the lock store (the shortest timeout,
// core.MinTimeout, is that long too), and a bound.
const (
	DefaultRenewEvery = 30 * time.Second
	MinRenewEvery     = 100 * time.Millisecond
	MaxRenewEvery     = 24 * time.Hour
)

// CheckRenewEvery refuses a renewal interval outside MinRenewEvery to
// MaxRenewEvery; name says what gave it ("--every").
func CheckRenewEvery(name string, every time.Duration) error {
	if every < MinRenewEvery || every > MaxRenewEvery {
		return fmt.Errorf("%s %s: must be from %s to %s", name, every, MinRenewEvery, MaxRenewEvery)
	}
	return nil
}

// Renewal is the outcome of renewing one path.
type Renewal struct {
	// Path is the path's real path when known, else the path as given.
	Path string
	// Lease is the renewed lock; zero when the lock was lost.
	Lease core.Lease
	// Refused is set when another session holds the lock, or took an
	// area around it (or a lock inside it) while it was stale.
	Refused *core.NotOwnerError
	// NoLock is set when the path has no lock to renew.
	NoLock bool
}

// Lost reports whether the lock was not renewed.
func (r Renewal) Lost() bool { return r.Refused != nil || r.NoLock }

// RenewPaths renews session's lock on each of paths, in order (see
// core.Locker.Heartbeat). A lost lock does not stop the others; any other
// error stops at that path, returning what was done before it.
func (w *Workspace) RenewPaths(ctx context.Context, paths []string, session string) ([]Renewal, error) {
	locker := w.Locker()
	out := make([]Renewal, 0, len(paths))
	for _, p := range paths {
		lease, err := locker.Heartbeat(ctx, p, session)
		r := Renewal{Path: lease.Path, Lease: lease}
		switch {
		case errors.As(err, &r.Refused):
			r.Path, r.Lease = r.Refused.Path, core.Lease{}
		case errors.Is(err, core.ErrNoLock):
			real, rerr := core.LockPath(p, "")
			if rerr != nil {
				return out, rerr
			}
			r.Path, r.NoLock = real, true
		case err != nil:
			return out, err
		}
		out = append(out, r)
	}
	return out, nil
}

// RenewSession renews every lock session owns in the workspace's lock
// store, found by owner, however many there are (including none): one
// renewal of the whole session where the store can (etcd's lease). A lock
// that another session took over meanwhile is simply not the session's
// any more. notices are what the store repaired on the way (a rebuilt
// index), for a warning; err joins the records it could not read, which
// were skipped while the others were renewed.
func (w *Workspace) RenewSession(ctx context.Context, session string) (renewed []core.State, notices []error, err error) {
	renewed, err = w.Locker().RenewSession(ctx, session)
	notices, err = core.Notices(err)
	return renewed, notices, err
}

// KeepSessionAlive is RenewSession without the list of the renewed locks,
// for the callers that print none (the renew hook, heartbeat without
// --verbose): on etcd it is one round trip.
func (w *Workspace) KeepSessionAlive(ctx context.Context, session string) (notices []error, err error) {
	return core.Notices(w.Locker().KeepSessionAlive(ctx, session))
}

// KeepRenewing calls renew at once and then every interval until renew
// fails (its error is returned), watching reports that the process that
// bounds the loop is gone, or ctx is done (both return nil). It polls
// watching more often than it renews, so that the loop does not outlive
// that process by a whole interval. It is the one renewal loop of
// agentlock: heartbeat --every, heartbeat-loop and the wrapper scripts'
// heartbeat --all --every all run it.
func KeepRenewing(ctx context.Context, every time.Duration, watching func() bool, renew func() error) error {
	if err := CheckRenewEvery("renewal interval", every); err != nil {
		return err
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	poll := time.NewTicker(min(every, 250*time.Millisecond))
	defer poll.Stop()
	if err := renew(); err != nil {
		return err
	}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-poll.C:
			if !watching() {
				return nil
			}
		case <-tick.C:
			if err := renew(); err != nil {
				return err
			}
		}
	}
}
