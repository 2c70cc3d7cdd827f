package core

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/agentlock/agentlock/store"
)

// DefaultTimeout is how long a lock stays valid after its last renewal when
// the caller sets no timeout; it is agent-registry 0.2's default.
const DefaultTimeout = store.DefaultTimeout

// Locker is the lock manager. A lock gives one session the right to change
// one path until the session releases it or stops renewing it for longer
// than the timeout. Its state is a record in a store (a lock file, with the
// file store), so it outlives the short process that took it; the store
// makes each read-decide-write atomic and holds nothing once a method
// returns.
//
// A Locker holds no state between calls and is safe for concurrent use by
// goroutines and by any number of processes sharing the store, including
// the agent-registry 0.2 Python scripts pointed at the same lock folder.
// Get one from package workspace.
//
// Locks are advisory: they protect the agents that consult them, not the
// writes of a program that ignores them.
type Locker struct {
	store    store.Locks
	timeout  time.Duration
	hookIdle time.Duration
	clock    func() time.Time
	cwd      string
	realPath func(path, cwd string) (string, error)
}

// Options configure a Locker.
type Options struct {
	// Timeout is the age after which an unrenewed lock is stale and may be
	// taken by another session; zero means DefaultTimeout. The store
	// judges each record (store.Slot.Liveness) and must be given the same
	// timeout (package workspace does); the Locker reports it, and uses it
	// only to show the time left of a record whose store gave no end.
	Timeout time.Duration
	// Now is the clock; nil means time.Now. Timestamps are compared across
	// processes, so it must be the wall clock in production.
	Now func() time.Time
	// Cwd is the folder relative paths are taken from; empty means the
	// process working directory.
	Cwd string
	// RealPath resolves a path as RealPath does; nil means RealPath.
	// Package workspace gives one that resolves each path once per
	// command.
	RealPath func(path, cwd string) (string, error)
	// HookIdle bounds how long a lock a pre-edit hook took
	// (store.TakenByHook) stays held once its session stops using it
	// (issue 36, docs/lock-lifetime.md): a hook lock whose record was last
	// written — by the acquisition of the hook that let its last edit
	// through — longer ago is Idle, free for any session to take, like a
	// stale lock; a session renewal (RenewSession, KeepSessionAlive) does
	// not renew it, and frees the session's own once idle. Zero: a hook
	// lock lives like any other, until released or expired. Every process
	// of a project must be given the same bound (package workspace does).
	HookIdle time.Duration
}

// NewLocker returns a Locker on the records of s. Package workspace gives
// one on a project's lock files.
func NewLocker(s store.Locks, opts Options) *Locker {
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.RealPath == nil {
		opts.RealPath = RealPath
	}
	return &Locker{store: s, timeout: opts.Timeout, hookIdle: max(opts.HookIdle, 0), clock: opts.Now, cwd: opts.Cwd, realPath: opts.RealPath}
}

// Timeout is the age after which an unrenewed lock is stale.
func (l *Locker) Timeout() time.Duration { return l.timeout }

// HookIdle is the idle bound of the locks hooks take (Options.HookIdle);
// zero for none.
func (l *Locker) HookIdle() time.Duration { return l.hookIdle }

// Lease is a lock held by a session, as just stored.
type Lease struct {
	Path    string    // real path of the locked file
	Session string    // owner
	Stamp   time.Time // last renewal
	// StaleOwner is the session whose expired lock this acquisition took
	// over, if any.
	StaleOwner string
	// Renewed is true when the session already held the lock and the
	// acquisition only renewed it.
	Renewed bool
	// Corrupt is set when this acquisition took over a record that could
	// not be read and that nobody had written for longer than the timeout
	// (left, for one, by a process killed in the middle of a write). It
	// says what was there.
	Corrupt *CorruptError
	// FromParent is set when a sub-agent's acquisition took the lock from
	// its parent session, whose hooks had taken it (see Claim.Parent): the
	// parent's id.
	FromParent string
	// Unindexed is set when the lock was taken but the session's index of
	// its locks (store.Index) could not list it — a folder or a symbolic
	// link in the index file's place: renewals then find the session's
	// locks by a scan and report the index (IndexRepairedError).
	Unindexed *IndexRepairedError
}

// State is what the store says about a lock at one instant.
type State struct {
	// Path is the real path (from the request, or from the record in a
	// listing; empty for a 0.1.0 record, which does not say).
	Path string
	// Ref is the store's name for the record (the lock file, with the file
	// store), for people and for a record whose path is unknown.
	Ref   string
	Owner string        // session recorded; empty when free
	Stamp time.Time     // last renewal; zero when free
	Age   time.Duration // time since the last renewal
	Left  time.Duration // time until the lock is stale (zero or negative once stale)
	Stale bool          // an owner is recorded but the lock has expired
	// Legacy is true for the two-field agent-registry 0.1.0 format, which
	// does not record the path.
	Legacy bool
	// Corrupt is set, with Stale, when the record cannot be read but nobody
	// has written it for longer than the timeout: Age is then the time
	// since it was last written. Such a record is no live lock; an acquire
	// takes it over. (A corrupt record written more recently is an error,
	// never a State.)
	Corrupt *CorruptError
	// Via is set when Path's own record is free (or stale, or the
	// caller's) but a record related to it through an area is held: an
	// area that covers Path (ending in "/"), or, when Path is an area, a
	// lock or area inside it. Owner, Stamp, Age and Left are then Via's.
	Via string
	// Taken says how Owner took the lock, where it was read: in a listing
	// (List), for the lock that refused an acquisition (HeldError.Taken),
	// and for a lock judged idle; TakenUnknown elsewhere, and for a record
	// whose note is lost (which every rule reads as explicit).
	Taken store.Taken
	// Used, for a lock a hook took under an idle bound, is when its
	// record was last written: the last edit its hooks let through (see
	// Options.HookIdle); zero otherwise.
	Used time.Time
	// Idle is set, with Stale, for a lock a hook took that went unused for
	// longer than the idle bound (Options.HookIdle): no longer held, it is
	// taken over like a stale lock. Left is then negative: the time since
	// the bound passed.
	Idle bool
}

// Area reports whether the lock is an area lock: a folder and every path
// below it. Its Path ends in "/".
func (s State) Area() bool { return store.IsArea(s.Path) }

// Locked reports whether a session holds a valid (fresh) lock.
func (s State) Locked() bool { return s.Owner != "" && !s.Stale }

// Name names the lock for people: its real path, or the store's name for
// it when the record does not say (the 0.1.0 format).
func (s State) Name() string {
	if s.Path == "" {
		return s.Ref
	}
	return s.Path
}

// Check is the answer of CheckAndWarn: whether the calling session may
// change the path, and why not.
type Check struct {
	State
	// OK is true when the path is free, stale, or held by the caller.
	OK bool
	// Warning explains a refusal, or a stale lock that an acquire would take
	// over; empty otherwise.
	Warning string
}

// now returns the clock's time at the precision a record keeps, so that a
// Lease and the record it describes agree.
func (l *Locker) now() time.Time { return l.clock().Round(time.Microsecond) }

// key resolves path to the key of its lock: its real path, followed by
// "/" for an area — a path written with a final "/", or an existing
// folder.
func (l *Locker) key(path string) (store.Key, error) {
	real, err := l.realPath(path, l.cwd)
	if err != nil {
		return store.Key{}, err
	}
	return store.Key{Path: AreaPath(path, real)}, nil
}

// LockPath returns the path that names the lock of path, relative paths
// taken from cwd (the process working directory when empty): its real
// path, followed by "/" when path names an area (see AreaPath).
func LockPath(path, cwd string) (string, error) {
	real, err := RealPath(path, cwd)
	if err != nil {
		return "", err
	}
	return AreaPath(path, real), nil
}

// AreaPath returns the lock path of a path written as path whose real path
// is real: real followed by "/" when path names an area (it ends in "/",
// or real is an existing folder), else real.
func AreaPath(path, real string) string {
	if store.IsArea(real) {
		return real // the root
	}
	if strings.HasSuffix(path, "/") {
		return real + "/"
	}
	if info, err := os.Stat(real); err == nil && info.IsDir() {
		return real + "/"
	}
	return real
}

// state is the state of a slot read from the store, on the store's
// verdict (store.Liveness: the lock files' stamp plus the timeout, etcd's
// lease): the engine judges no record's freshness itself and forges no
// stamp. A held record that comes without a verdict (no store of
// agentlock's gives one) is taken as fresh, never taken over.
func (l *Locker) state(slot store.Slot, now time.Time) State {
	s := State{Path: slot.Key.Path, Ref: slot.Key.Ref}
	rec := slot.Record
	if rec.Free() {
		return s
	}
	s.Owner, s.Stamp, s.Legacy = rec.Session, rec.Stamp, rec.Path == ""
	if s.Path == "" {
		s.Path = rec.Path // a listing learns the path from the record
	}
	live := slot.Liveness
	if live == nil {
		live = &store.Liveness{Fresh: true}
	}
	if !live.Renewed.IsZero() && live.Renewed.After(rec.Stamp) {
		s.Stamp = live.Renewed
	}
	s.Age, s.Left, s.Stale = max(now.Sub(s.Stamp), 0), l.left(live, s.Stamp, now), !live.Fresh
	if l.hookIdle > 0 && !s.Stale && now.Sub(rec.Stamp) > l.hookIdle {
		// Maybe an idle hook lock: only then is the note beside read, so
		// that judging a lock in use costs nothing more.
		l.judgeUse(slot, &s, now)
	}
	return s
}

// stateTaken is state with how the record's owner took it (State.Taken,
// read from beside the record when it is held).
func (l *Locker) stateTaken(slot store.Slot, now time.Time) State {
	s := l.state(slot, now)
	if s.Owner != "" && s.Taken == store.TakenUnknown {
		l.judgeUse(slot, &s, now)
	}
	return s
}

// judgeUse completes s, the state of slot's held record, with how its owner
// took it, and judges a lock a hook took by the idle bound: unused (its
// record unwritten) for longer, it is Idle and Stale; in use, it is left
// until the bound passes, or the timeout if sooner. A note that cannot be
// read counts as explicit (TakenUnknown): such a lock is never idle.
func (l *Locker) judgeUse(slot store.Slot, s *State, now time.Time) {
	taken, err := slot.HowTaken()
	if err != nil {
		return
	}
	s.Taken = taken
	if taken != store.TakenByHook || l.hookIdle <= 0 {
		return
	}
	// Under an idle bound, session renewals leave the record as its last
	// use wrote it: its stamp is that use.
	s.Used = slot.Record.Stamp
	if s.Stale {
		return
	}
	left := s.Used.Add(l.hookIdle).Sub(now)
	s.Left = min(s.Left, left)
	if left < 0 {
		s.Idle, s.Stale = true, true
	}
}

// left is the time left before a record whose last renewal was at stamp
// stops being fresh, by the store's verdict live: zero or negative once
// stale; while fresh, never less than a millisecond, even past the time
// the store expected (a lease kept alive since, clocks that differ).
func (l *Locker) left(live *store.Liveness, stamp, now time.Time) time.Duration {
	until := live.Until
	if until.IsZero() {
		until = stamp.Add(l.timeout)
	}
	left := until.Sub(now)
	switch {
	case !live.Fresh:
		left = min(left, 0)
	case left <= 0:
		left = time.Millisecond
	}
	return left
}

// staleCorrupt returns the *CorruptError of a slot whose record cannot be
// decoded and that its store judged stale (the lock files: content nobody
// wrote for longer than the timeout is no live lock, whatever it holds).
// A corrupt record without that verdict stays an error, since it may be
// a live lock damaged a moment ago, which must not be overwritten.
func (l *Locker) staleCorrupt(slot store.Slot) (*CorruptError, bool) {
	var corrupt *CorruptError
	if !errors.As(slot.Err, &corrupt) || slot.Liveness == nil || slot.Liveness.Fresh {
		return nil, false
	}
	return corrupt, true
}

// corruptState is the state of a stale corrupt slot: its age is the time
// since it was last written.
func (l *Locker) corruptState(slot store.Slot, corrupt *CorruptError, now time.Time) State {
	s := State{Path: slot.Key.Path, Ref: slot.Key.Ref, Stale: true, Corrupt: corrupt}
	if !slot.Written.IsZero() {
		s.Age = max(now.Sub(slot.Written), 0)
	}
	s.Left = l.left(slot.Liveness, slot.Written, now)
	return s
}

// Acquire takes the lock on path for session, or renews it when session
// already holds it. A stale lock of another session is taken over and its
// owner reported in Lease.StaleOwner. When another session holds a fresh
// lock, Acquire changes nothing and returns a *HeldError (errors.Is
// ErrLocked) naming it.
func (l *Locker) Acquire(ctx context.Context, path, session string) (Lease, error) {
	leases, err := l.AcquireAll(ctx, []string{path}, session)
	if err != nil {
		return Lease{}, err
	}
	return leases[0], nil
}

// AcquireAll takes the locks on all paths for session, or none of them. The
// store takes every record in one fixed order, the decision is made with
// all of them held, and all records are written or none: two sessions
// asking for overlapping sets can neither deadlock nor end up each holding
// part of what they asked for. The leases come back in the order of paths
// (a path named twice is locked once). When any path is held by another
// session the error joins one *HeldError per held path.
//
// A path ending in "/", or an existing folder, is an area (see the package
// documentation): it is refused while another session holds a fresh lock
// at or below it or an area around it, and a path inside another
// session's area is refused with HeldError.Via naming the area. Stale
// locks of other sessions below an area are freed when it is taken. With
// a store that cannot hold areas (no store.Areas), an area fails with
// ErrNoAreas.
func (l *Locker) AcquireAll(ctx context.Context, paths []string, session string) ([]Lease, error) {
	return l.AcquireClaim(ctx, paths, Claim{Session: session, Taken: store.TakenExplicit})
}

// Claim is who asks for locks, and how (AcquireClaim).
type Claim struct {
	// Session is the session to lock for.
	Session string
	// Parent is, for a sub-agent's session ("<parent>/<sub-agent id>",
	// ChildSession), the session it works for; "" otherwise. A sub-agent
	// takes over what its parent's hooks took (Lease.FromParent), never
	// what the parent took explicitly; sub-agents of one parent exclude
	// each other as other sessions do; a parent may not take what a live
	// sub-agent of its holds. A refusal says the relation (HeldError.Relation).
	// A sub-agent may work inside its parent's areas.
	Parent string
	// Taken says how the session takes the locks: store.TakenExplicit
	// (agentlock acquire, register --claim, the MCP server; TakenUnknown
	// counts as explicit) or store.TakenByHook (a pre-edit hook's gate).
	// It is kept beside each record (store.Record.Taken). A hook's
	// acquisition of a lock the session already holds keeps what is kept
	// there: a lock taken explicitly stays explicit.
	Taken store.Taken
}

// AcquireClaim is AcquireAll for a Claim: the locks are taken as it says.
func (l *Locker) AcquireClaim(ctx context.Context, paths []string, c Claim) ([]Lease, error) {
	session := c.Session
	if c.Taken == store.TakenUnknown {
		c.Taken = store.TakenExplicit
	}
	if err := ValidateSession(session); err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("acquire: no path given")
	}
	var keys []store.Key
	index := make([]int, len(paths)) // path i -> its key
	seen := map[string]int{}
	for i, p := range paths {
		k, err := l.key(p)
		if err != nil {
			return nil, fmt.Errorf("acquire %s: %w", ShortPath(p), err)
		}
		j, ok := seen[k.Path]
		if !ok {
			j = len(keys)
			seen[k.Path] = j
			keys = append(keys, k)
		}
		index[i] = j
	}
	leases := make([]Lease, len(keys))
	decide := func(slots, related []store.Slot) ([]*store.Record, []store.Slot, error) {
		// Judged with every record held: a stale lock is taken over only by
		// the process that read it here, so two takers are serialised and
		// the second sees the first as a fresh owner.
		now := l.now()
		var refusals []error
		next := make([]*store.Record, len(slots))
		for i, slot := range slots {
			var corrupt *CorruptError
			if slot.Err != nil {
				var stale bool
				if corrupt, stale = l.staleCorrupt(slot); !stale {
					return nil, nil, fmt.Errorf("%s: %w", slot.Key.Path, slot.Err)
				}
				// Unreadable and unwritten for longer than the timeout:
				// taken over like a dead owner's lock (Record is free).
			}
			s := l.state(slot, now)
			leases[i] = Lease{Path: s.Path, Session: session, Stamp: now, Corrupt: corrupt}
			taken := c.Taken
			switch {
			case s.Owner == "":
			case s.Owner == session:
				leases[i].Renewed = true
				if taken == store.TakenByHook {
					taken = store.TakenUnknown // what is kept beside stays
				}
			case s.Stale:
				leases[i].StaleOwner = s.Owner
			default:
				rel := c.Relate(s.Owner)
				if rel == Parent {
					ok, err := c.mayTakeFromParent(slot)
					if err != nil {
						return nil, nil, fmt.Errorf("%s: %w", s.Path, err)
					}
					if ok {
						leases[i].FromParent = s.Owner
						break
					}
				}
				s = l.stateTaken(slot, now)
				held := &HeldError{Path: s.Path, Owner: s.Owner, Age: s.Age, Left: s.Left, Relation: rel, Taken: s.Taken}
				if !s.Used.IsZero() {
					held.Unused = max(now.Sub(s.Used), 0)
				}
				refusals = append(refusals, held)
			}
			next[i] = &store.Record{Session: session, Stamp: now, Path: s.Path, Taken: taken}
		}
		release, areaRefusals, err := l.judgeRelated(keys, related, c, now)
		if err != nil {
			return nil, nil, err
		}
		refusals = append(refusals, areaRefusals...)
		if len(refusals) > 0 {
			return nil, nil, errors.Join(refusals...)
		}
		return next, release, nil
	}
	var err error
	if as, ok := l.store.(store.Areas); ok {
		err = as.TransactAreas(ctx, store.Create, keys, decide)
	} else if slices.ContainsFunc(keys, func(k store.Key) bool { return store.IsArea(k.Path) }) {
		err = ErrNoAreas
	} else {
		err = l.store.Transact(ctx, store.Create, keys, func(slots []store.Slot) ([]*store.Record, error) {
			next, _, err := decide(slots, nil)
			return next, err
		})
	}
	var queued *store.QueuedError
	if errors.As(err, &queued) {
		err = &HeldError{Path: queued.Path, Owner: queued.Ahead, Age: queued.Since, Queued: true}
	}
	if err != nil {
		return nil, wrapUnlessRefusal("acquire", err)
	}
	// Listed in the session's index once the records are written, never
	// before: a renewal that read the list in between would find the
	// record not yet the session's and drop it from the list for good.
	// Missing the lock for that one renewal is harmless: it was just
	// stamped.
	if idx, ok := l.store.(store.Index); ok {
		if err := idx.Note(ctx, session, keys); err != nil {
			// The locks are taken all the same: renewals that cannot use
			// the index find them by a scan (eachIndexed).
			for i := range leases {
				leases[i].Unindexed = &IndexRepairedError{Session: session, Err: err}
			}
		}
	}
	out := make([]Lease, len(paths))
	for i := range paths {
		out[i] = leases[index[i]]
	}
	return out, nil
}

// judgeRelated judges the records that exclude keys through an area, read
// in the same transaction (see store.DecideAreas): a fresh one of another
// session refuses the key it covers or is covered by; a stale one of
// another session is to be freed (the store does so only in a transaction
// over an area, which alone must free them: a file inside a stale area
// needs nothing freed). A record that cannot be read is an error unless
// nobody has written it for longer than the timeout.
func (l *Locker) judgeRelated(keys []store.Key, related []store.Slot, c Claim, now time.Time) (release []store.Slot, refusals []error, err error) {
	session := c.Session
	exclusive := slices.ContainsFunc(keys, func(k store.Key) bool { return store.IsArea(k.Path) })
	for _, slot := range related {
		if slot.Err != nil {
			if _, stale := l.staleCorrupt(slot); !stale {
				return nil, nil, fmt.Errorf("%s: %w", name(slot), slot.Err)
			}
			continue
		}
		s := l.state(slot, now)
		switch {
		case s.Owner == "" || s.Owner == session:
		case s.Stale:
			if exclusive {
				release = append(release, slot)
			}
		default:
			rel := c.Relate(s.Owner)
			for _, k := range keys {
				if !store.Overlap(k.Path, s.Path) {
					continue
				}
				if rel == Parent && store.Covers(s.Path, k.Path) {
					continue // a sub-agent works inside its parent's areas
				}
				refusals = append(refusals, &HeldError{Path: k.Path, Owner: s.Owner, Age: s.Age, Left: s.Left, Via: s.Path, Relation: rel})
				break
			}
		}
	}
	return release, refusals, nil
}

// name names a slot for an error: its path, else its store name.
func name(slot store.Slot) string {
	if slot.Key.Path != "" {
		return slot.Key.Path
	}
	return slot.Key.Ref
}

// AcquireAllWait is AcquireAll retried while another session holds one of
// the paths, until every path is taken, another error occurs, or ctx is
// done; then the last refusal is returned. It retries as soon as the store
// reports a change to one of the locks (a release, say) when the store can
// (store.Watcher), and when the lock that refused it expires; otherwise
// after pauses that grow from 50ms to 1s with random jitter, so that
// sessions waiting for the same paths do not retry in step.
func (l *Locker) AcquireAllWait(ctx context.Context, paths []string, session string) ([]Lease, error) {
	return l.AcquireClaimWait(ctx, paths, Claim{Session: session, Taken: store.TakenExplicit})
}

// AcquireClaimWait is AcquireAllWait for a Claim (see AcquireClaim).
func (l *Locker) AcquireClaimWait(ctx context.Context, paths []string, c Claim) ([]Lease, error) {
	session := c.Session
	// Watch before the first attempt, so that a release between a refusal
	// and the wait is not missed.
	watched := slices.Clone(paths)
	changes, stop, queued := l.watch(ctx, watched, session)
	defer func() { stop() }()
	pause := 50 * time.Millisecond
	// Each attempt runs to its end, bounded by the store's own bounds:
	// the wait's deadline ends the waiting, never an attempt half-way (a
	// request cut by it would report a store error, not the refusal).
	attempt := context.WithoutCancel(ctx)
	for {
		leases, err := l.AcquireClaim(attempt, paths, c)
		if !errors.Is(err, ErrLocked) {
			return leases, err
		}
		// Refused through an area: its record is the one whose release
		// frees the path, so it is watched too (watching starts again).
		more := false
		for _, e := range Unjoin(err) {
			var held *HeldError
			if errors.As(e, &held) && held.Via != "" && !slices.Contains(watched, held.Via) {
				watched = append(watched, held.Via)
				more = true
			}
		}
		if more && !queued {
			stop()
			changes, stop, _ = l.watch(ctx, watched, session)
			continue
		}
		// Retry when a lock file changes, when the lock that refused us
		// expires, or after a growing pause that covers stores without
		// notifications.
		wait := pause/2 + rand.N(pause)
		var held *HeldError
		if errors.As(err, &held) && held.Left > 0 {
			wait = min(wait, held.Left+time.Millisecond)
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil, err
		case <-changes:
			timer.Stop()
		case <-timer.C:
			pause = min(pause*3/2, time.Second)
		}
	}
}

// Unjoin returns the errors joined in err (errors.Join), err alone, or
// none for nil: the one reading of a joined error every front end uses.
func Unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}

// watch returns the store's change notifications for the locks of paths,
// or a channel that never fires when the store has none. On a store that
// queues waiters (store.Queue), session stands in line for paths until
// stop; queued is then true, and the notifications cover the areas that
// exclude paths too.
func (l *Locker) watch(ctx context.Context, paths []string, session string) (changes <-chan struct{}, stop func(), queued bool) {
	none := func() {}
	keys := make([]store.Key, 0, len(paths))
	for _, p := range paths {
		k, err := l.key(p)
		if err != nil {
			return nil, none, false // AcquireAll reports it
		}
		keys = append(keys, k)
	}
	if q, ok := l.store.(store.Queue); ok {
		changes, stop, err := q.Enqueue(ctx, session, keys)
		if err == nil {
			return changes, stop, true
		}
		// Not in line: waiting still works, unfairly, as without a queue.
	}
	w, ok := l.store.(store.Watcher)
	if !ok {
		return nil, none, false
	}
	changes, stop, err := w.Watch(ctx, keys)
	if err != nil {
		return nil, none, false // polling still works
	}
	return changes, stop, false
}

// wrapUnlessRefusal adds op to an error, except to the refusals, which
// already name the path and are matched by type.
func wrapUnlessRefusal(op string, err error) error {
	if errors.Is(err, ErrLocked) {
		return err
	}
	return fmt.Errorf("%s: %w", op, err)
}

// Release frees the lock on path held by session and returns the state it
// released. Any id a lock record can hold is accepted (see
// ValidateExistingSession), as for Heartbeat, ReleaseSession and
// RenewSession: they act on locks that exist. A path with no lock returns a free State (Owner empty) and no
// error: releasing is idempotent. A lock held by another session, fresh or
// stale, is left untouched and a *NotOwnerError returned.
func (l *Locker) Release(ctx context.Context, path, session string) (State, error) {
	if err := ValidateExistingSession(session); err != nil {
		return State{}, err
	}
	var released State
	err := l.edit(ctx, path, func(s State) (*store.Record, error) {
		released = s
		switch s.Owner {
		case "":
			return nil, nil
		case session:
			return &store.Record{}, nil
		default:
			return nil, &NotOwnerError{Path: s.Path, Owner: s.Owner}
		}
	})
	if err != nil {
		return State{}, fmt.Errorf("release: %w", err)
	}
	return released, nil
}

// ForceRelease frees the lock on path whoever owns it, even when its record
// is corrupt, and returns what it held. It is for people clearing a lock by
// hand; agents use Release.
func (l *Locker) ForceRelease(ctx context.Context, path string) (State, error) {
	k, err := l.key(path)
	if err != nil {
		return State{}, fmt.Errorf("force release %s: %w", ShortPath(path), err)
	}
	var released State
	err = l.store.Transact(ctx, store.Update, []store.Key{k}, func(slots []store.Slot) ([]*store.Record, error) {
		released = l.state(slots[0], l.now())
		// What a corrupt record held is unknown, not "free": the
		// caller must not say it was not locked.
		var corrupt *CorruptError
		if errors.As(slots[0].Err, &corrupt) {
			released.Corrupt = corrupt
		}
		return []*store.Record{{}}, nil
	})
	if err != nil {
		return State{}, fmt.Errorf("force release %s: %w", ShortPath(k.Path), err)
	}
	return released, nil
}

// ForceReleaseIf is ForceRelease on a condition judged inside the same
// critical section as the release: allow sees the lock's current state and
// returns nil to release it, or an error to leave it untouched (the error
// is returned as it is, unwrapped, so that a caller matches its own
// types). A front end that showed a person a lock and asks to release
// "that one" passes a condition that compares owner and stamp: nothing
// can change the record between the check and the write. A record that
// cannot be read is never released this way (ForceRelease is for that);
// a path with no lock file is not created.
func (l *Locker) ForceReleaseIf(ctx context.Context, path string, allow func(State) error) (State, error) {
	k, err := l.key(path)
	if err != nil {
		return State{}, fmt.Errorf("force release %s: %w", ShortPath(path), err)
	}
	var released State
	var refused error
	err = l.store.Transact(ctx, store.Update, []store.Key{k}, func(slots []store.Slot) ([]*store.Record, error) {
		if slots[0].Err != nil {
			return nil, slots[0].Err
		}
		released = l.state(slots[0], l.now())
		if refused = allow(released); refused != nil {
			return nil, refused
		}
		return []*store.Record{{}}, nil
	})
	if refused != nil {
		return released, refused
	}
	if err != nil {
		return State{}, fmt.Errorf("force release %s: %w", ShortPath(k.Path), err)
	}
	return released, nil
}

// Heartbeat renews the lock on path held by session, so that its age starts
// again from zero. It fails with ErrNoLock when the path has no lock (and
// creates nothing), and with a *NotOwnerError when another session holds it.
// A session may renew its own lock even after it went stale, as long as no
// other session has taken it over, nor taken a lock it covers or an area
// that covers it (then a *NotOwnerError with Via: see renewStale).
func (l *Locker) Heartbeat(ctx context.Context, path, session string) (Lease, error) {
	if err := ValidateExistingSession(session); err != nil {
		return Lease{}, err
	}
	k, err := l.key(path)
	if err != nil {
		return Lease{}, fmt.Errorf("heartbeat: %s: %w", ShortPath(path), err)
	}
	s, stamp, err := l.renewKey(ctx, k, session, false)
	switch {
	case err != nil:
		return Lease{}, fmt.Errorf("heartbeat: %w", err)
	case s.Owner == "":
		return Lease{}, fmt.Errorf("heartbeat: %s: %w", s.Path, ErrNoLock)
	case s.Owner != session:
		return Lease{}, fmt.Errorf("heartbeat: %w", &NotOwnerError{Path: s.Path, Owner: s.Owner})
	}
	return Lease{Path: s.Path, Session: session, Stamp: stamp, Renewed: true}, nil
}

// errRecheck stops the plain renewal of a stale record: renewStale judges
// it with the records around it.
var errRecheck = errors.New("a stale record is renewed with the records around it")

// renewKey renews the record k when session owns it, and returns its
// state before and the stamp it now holds. A record session does not
// own is returned as it is, unchanged, with a zero stamp. A stale record of session is
// renewed only when no other session took, meanwhile, a lock it covers or
// an area that covers it (see renewStale): else a *NotOwnerError with Via.
//
// A session's renewal (whole) under an idle bound (Options.HookIdle)
// leaves a lock a hook took as it is, zero stamp, since its record's stamp
// is its last use; one already idle is released (its state comes back
// Idle). A renewal of the one path (Heartbeat) renews any lock: the
// session says it uses it.
func (l *Locker) renewKey(ctx context.Context, k store.Key, session string, whole bool) (State, time.Time, error) {
	var got State
	var stamp time.Time
	err := l.store.Transact(ctx, store.Update, []store.Key{k}, func(slots []store.Slot) ([]*store.Record, error) {
		if slots[0].Err != nil {
			return nil, slots[0].Err
		}
		now := l.now()
		got, stamp = l.state(slots[0], now), time.Time{}
		if got.Owner != session {
			return []*store.Record{nil}, nil
		}
		if whole && l.hookIdle > 0 {
			if got.Taken == store.TakenUnknown {
				l.judgeUse(slots[0], &got, now)
			}
			switch {
			case got.Idle:
				return []*store.Record{{}}, nil
			case got.Taken == store.TakenByHook:
				return []*store.Record{nil}, nil
			}
		}
		if _, areas := l.store.(store.Areas); areas && got.Stale && got.Path != "" {
			return nil, errRecheck
		}
		stamp = now
		return []*store.Record{{Session: session, Stamp: stamp, Path: got.Path}}, nil
	})
	if errors.Is(err, errRecheck) {
		return l.renewStale(ctx, store.Key{Path: got.Path, Ref: got.Ref}, session)
	}
	if err != nil {
		return State{}, time.Time{}, err
	}
	return got, stamp, nil
}

// renewStale renews session's stale record k in one transaction with the
// records that exclude it through an area, as an acquisition would: once
// an area went stale, another session may take a file inside it (nothing
// needs freeing for that), and the area, renewed, would cover a live lock
// of another session. Then it is refused with a *NotOwnerError naming the
// other lock (Via), and nothing is written.
func (l *Locker) renewStale(ctx context.Context, k store.Key, session string) (State, time.Time, error) {
	var got State
	var stamp time.Time
	decide := func(slots, related []store.Slot) ([]*store.Record, []store.Slot, error) {
		now := l.now()
		if slots[0].Err != nil {
			return nil, nil, slots[0].Err
		}
		got, stamp = l.state(slots[0], now), time.Time{}
		if got.Owner != session {
			return []*store.Record{nil}, nil, nil
		}
		release, refusals, err := l.judgeRelated([]store.Key{k}, related, Claim{Session: session}, now)
		if err != nil {
			return nil, nil, err
		}
		for _, r := range refusals {
			var held *HeldError
			if errors.As(r, &held) {
				return nil, nil, &NotOwnerError{Path: got.Path, Owner: held.Owner, Via: held.Via}
			}
		}
		stamp = now
		return []*store.Record{{Session: session, Stamp: now, Path: got.Path}}, release, nil
	}
	if err := l.store.(store.Areas).TransactAreas(ctx, store.Create, []store.Key{k}, decide); err != nil {
		return State{}, time.Time{}, err
	}
	return got, stamp, nil
}

// edit runs one read-decide-write of the lock of path. decide sees the
// current state and returns the record to write, or nil to leave it as it
// is. A path without a lock is free, and its record is not created.
func (l *Locker) edit(ctx context.Context, path string, decide func(State) (*store.Record, error)) error {
	k, err := l.key(path)
	if err != nil {
		return fmt.Errorf("%s: %w", ShortPath(path), err)
	}
	return l.editKey(ctx, k, decide)
}

// editKey is edit for a key.
func (l *Locker) editKey(ctx context.Context, k store.Key, decide func(State) (*store.Record, error)) error {
	return l.store.Transact(ctx, store.Update, []store.Key{k}, func(slots []store.Slot) ([]*store.Record, error) {
		if slots[0].Err != nil {
			return nil, slots[0].Err
		}
		next, err := decide(l.state(slots[0], l.now()))
		return []*store.Record{next}, err
	})
}

// IsLocked reads the state of the lock on path without changing anything.
// The store reads it atomically, so it never sees a half-written record. A
// path without a lock is free. A stale lock is reported with Stale set and
// is not Locked.
func (l *Locker) IsLocked(ctx context.Context, path string) (State, error) {
	return l.inspect(ctx, path, "")
}

// inspect is IsLocked as seen by session (any session when empty). When
// the path's own record holds nothing fresh (or holds session's), a fresh
// record related to it through an area is reported instead, with Via
// naming it: an area that covers the path, or, for an area, a lock or
// area inside it. Another session's is named before session's own.
func (l *Locker) inspect(ctx context.Context, path, session string) (State, error) {
	k, err := l.key(path)
	if err != nil {
		return State{}, fmt.Errorf("check %s: %w", ShortPath(path), err)
	}
	var s State
	decide := func(slots, related []store.Slot) ([]*store.Record, []store.Slot, error) {
		now := l.now()
		if slots[0].Err != nil {
			corrupt, stale := l.staleCorrupt(slots[0])
			if !stale {
				return nil, nil, slots[0].Err
			}
			s = l.corruptState(slots[0], corrupt, now)
		} else {
			s = l.stateTaken(slots[0], now)
		}
		if s.Locked() && (session == "" || s.Owner != session) {
			return nil, nil, nil
		}
		var own *State
		for _, slot := range related {
			if slot.Err != nil || !store.Overlap(slot.Record.Path, s.Path) {
				continue
			}
			a := l.state(slot, now)
			if !a.Locked() {
				continue
			}
			via := State{Path: s.Path, Ref: s.Ref, Owner: a.Owner, Stamp: a.Stamp, Age: a.Age, Left: a.Left, Via: a.Path}
			if session == "" || a.Owner != session {
				s = via
				return nil, nil, nil
			}
			if own == nil {
				own = &via
			}
		}
		if own != nil && !s.Locked() {
			s = *own
		}
		return nil, nil, nil
	}
	if as, ok := l.store.(store.Areas); ok {
		err = as.TransactAreas(ctx, store.Read, []store.Key{k}, decide)
	} else {
		err = l.store.Transact(ctx, store.Read, []store.Key{k}, func(slots []store.Slot) ([]*store.Record, error) {
			_, _, err := decide(slots, nil)
			return nil, err
		})
	}
	if err != nil {
		return State{}, fmt.Errorf("check %s: %w", ShortPath(k.Path), err)
	}
	return s, nil
}

// CheckAndWarn tells session whether it may change path: OK when the path is
// free, stale, or already held by session. Warning says, in words an agent
// can act on, who holds the path, or that a stale lock will be taken over.
// Nothing is modified.
func (l *Locker) CheckAndWarn(ctx context.Context, path, session string) (Check, error) {
	s, err := l.inspect(ctx, path, session)
	if err != nil {
		return Check{}, err
	}
	c := Check{State: s, OK: true}
	switch {
	case s.Corrupt != nil:
		c.Warning = fmt.Sprintf("%s has an unreadable lock record (%s) not written for %s; acquiring it takes it over",
			s.Path, s.Corrupt.Reason, roundDuration(s.Age))
	case s.Owner == "" || s.Owner == session:
	case s.Idle:
		c.Warning = fmt.Sprintf("%s has an idle lock of %s (its hooks took it for an edit %s ago); acquiring it takes it over",
			s.Path, s.Owner, roundDuration(max(l.now().Sub(s.Used), 0)))
	case s.Stale:
		c.Warning = fmt.Sprintf("%s has a stale lock of %s (not renewed for %s); acquiring it takes it over",
			s.Path, s.Owner, roundDuration(s.Age))
	default:
		c.OK = false
		c.Warning = (&HeldError{Path: s.Path, Owner: s.Owner, Age: s.Age, Left: s.Left, Via: s.Via}).Error() +
			"; do not modify it"
	}
	return c, nil
}

// List reads every lock of the workspace and returns their states, sorted
// by real path (records of the 0.1.0 format, which do not say their path,
// come last by Ref). Free locks are included, with an empty Owner. A record
// that cannot be read is returned in the second slice (a *CorruptError when
// it cannot be parsed) instead of failing the listing.
func (l *Locker) List(ctx context.Context) ([]State, []error, error) {
	slots, err := l.store.Scan(ctx)
	if err != nil {
		return nil, nil, err
	}
	now := l.now()
	states := make([]State, 0, len(slots))
	var problems []error
	for _, slot := range slots {
		if slot.Err != nil {
			problems = append(problems, slot.Err)
			continue
		}
		states = append(states, l.stateTaken(slot, now))
	}
	slices.SortFunc(states, func(a, b State) int {
		if (a.Path == "") != (b.Path == "") {
			if b.Path == "" {
				return -1
			}
			return 1
		}
		if c := strings.Compare(a.Path, b.Path); c != 0 {
			return c
		}
		return strings.Compare(a.Ref, b.Ref)
	})
	return states, problems, nil
}

// ReleaseSession releases every lock of the workspace that session owns,
// and every lock of its sub-agents (the sessions "<session>/<sub-agent
// id>", ChildSession): a session's release --all and its finish end its
// sub-agents' locks too. They are found by reading every record (not from
// any list the session kept), and it returns what it released. Locks of
// other sessions are never touched; a corrupt record is reported in the
// error and skipped.
func (l *Locker) ReleaseSession(ctx context.Context, session string) ([]State, error) {
	family := func(owner string) bool { return owner == session || IsChildOf(owner, session) }
	released, err := l.eachOwnedBy(ctx, session, family, func(k store.Key) (*State, error) {
		var got *State
		err := l.editKey(ctx, k, func(now State) (*store.Record, error) {
			got = nil
			if !family(now.Owner) {
				return nil, nil
			}
			got = &now
			return &store.Record{}, nil
		})
		return got, err
	})
	if idx, ok := l.store.(store.Index); ok && err == nil {
		// The session's index lists none of what was just released, so
		// that it stays as short as what the session holds.
		err = l.pruneIndex(ctx, idx, session)
	}
	if err != nil {
		return released, fmt.Errorf("release locks of %s: %w", session, err)
	}
	return released, nil
}

// ReleaseSessionTaken releases the locks of the workspace that session
// owns and took how (store.Taken: store.TakenByHook, the locks a turn's
// edits took, say), each judged inside its own transaction by what is
// kept beside its record, and returns what it released. A lock whose note
// is lost reads as TakenUnknown and is released only when how is
// TakenUnknown; locks of other sessions are never touched.
func (l *Locker) ReleaseSessionTaken(ctx context.Context, session string, how store.Taken) ([]State, error) {
	released, err := l.eachOwned(ctx, session, func(k store.Key) (*State, error) {
		var got *State
		err := l.store.Transact(ctx, store.Update, []store.Key{k}, func(slots []store.Slot) ([]*store.Record, error) {
			got = nil
			if slots[0].Err != nil {
				return nil, slots[0].Err
			}
			now := l.state(slots[0], l.now())
			if now.Owner != session {
				return []*store.Record{nil}, nil
			}
			taken, err := slots[0].HowTaken()
			if err != nil || taken != how {
				return []*store.Record{nil}, err
			}
			got = &now
			return []*store.Record{{}}, nil
		})
		return got, err
	})
	if err != nil {
		return released, fmt.Errorf("release the %s locks of %s: %w", how, session, err)
	}
	return released, nil
}

// RenewSession renews every lock of the workspace that session owns (as
// Heartbeat does for one path) and returns the renewed locks, with their
// state before the renewal. It runs after every tool call of an agent, so
// when the store keeps an index of each session's locks (store.Index) it
// reads only the records the index names, verifying each one and dropping
// from the index those the session no longer owns: its cost follows the
// locks the session took, not the size of the lock folder. Locks that the
// session's id holds without being in the index — written by
// agent-registry 0.2, which keeps none — are then not renewed (their
// owners renew them their own way); ReleaseSession still finds them.
// A store that renews a whole session at once (store.SessionRenewer: etcd's
// leases) does it in a constant number of requests. Otherwise every
// record is read, like ReleaseSession.
func (l *Locker) RenewSession(ctx context.Context, session string) ([]State, error) {
	return l.renewSession(ctx, session, true)
}

// KeepSessionAlive renews every lock of session as RenewSession does,
// without listing them: on a store that renews a whole session at once
// (etcd) that is one round trip, with no read. The renew hook, after
// every tool call, needs no more.
func (l *Locker) KeepSessionAlive(ctx context.Context, session string) error {
	_, err := l.renewSession(ctx, session, false)
	return err
}

// renewSession is RenewSession; list false lets a store that renews a
// whole session at once return no state.
func (l *Locker) renewSession(ctx context.Context, session string, list bool) ([]State, error) {
	// The locks left as they are (a hook's, under an idle bound) stay
	// listed in the index, not among the renewed.
	left := map[string]bool{}
	renew := func(k store.Key) (*State, error) {
		s, stamp, err := l.renewKey(ctx, k, session, true)
		if err != nil || s.Owner != session || s.Idle {
			return nil, err
		}
		if stamp.IsZero() {
			left[s.Ref+"\x00"+s.Path] = true
		}
		return &s, nil
	}
	var renewed []State
	var err error
	if r, ok := l.store.(store.SessionRenewer); ok {
		if err := ValidateExistingSession(session); err != nil {
			return nil, err
		}
		var slots []store.Slot
		slots, err = r.RenewSession(ctx, session, list)
		now := l.now()
		for _, slot := range slots {
			if slot.Err == nil && slot.Record.Session == session {
				renewed = append(renewed, l.state(slot, now))
			}
		}
	} else if idx, ok := l.store.(store.Index); ok {
		renewed, err = l.eachIndexed(ctx, idx, session, renew)
	} else {
		renewed, err = l.eachOwned(ctx, session, renew)
	}
	if len(left) > 0 {
		renewed = slices.DeleteFunc(renewed, func(s State) bool { return left[s.Ref+"\x00"+s.Path] })
	}
	// Notices stay at the top of the joined error, for Notices to find.
	notices, err := Notices(err)
	if err != nil {
		err = fmt.Errorf("renew locks of %s: %w", session, err)
	}
	return renewed, errors.Join(append(notices, err)...)
}

// eachOwned runs apply on every record that session owns (apply re-judges
// it in its own transaction and returns its state when it changed it) and
// returns the states it changed.
func (l *Locker) eachOwned(ctx context.Context, session string, apply func(store.Key) (*State, error)) ([]State, error) {
	return l.eachOwnedBy(ctx, session, func(owner string) bool { return owner == session }, apply)
}

// eachOwnedBy is eachOwned for every record whose owner owns says is
// session's (its own, or its sub-agents').
func (l *Locker) eachOwnedBy(ctx context.Context, session string, owns func(owner string) bool, apply func(store.Key) (*State, error)) ([]State, error) {
	if err := ValidateExistingSession(session); err != nil {
		return nil, err
	}
	slots, err := l.store.Scan(ctx)
	if err != nil {
		return nil, err
	}
	var changed []State
	var problems []error
	for _, slot := range slots {
		if slot.Err != nil {
			problems = append(problems, slot.Err)
			continue
		}
		if !owns(slot.Record.Session) {
			continue
		}
		// Re-judged in its own transaction: the scan is only a hint. A
		// store may run the decision more than once: only the last counts.
		got, err := apply(slot.Key)
		if err != nil {
			problems = append(problems, err)
		} else if got != nil {
			changed = append(changed, *got)
		}
	}
	return changed, errors.Join(problems...)
}

// eachIndexed writes next(state) into every record of session's index that
// session owns, each in its own transaction, with the index held so that
// the session's concurrent acquisitions wait to list theirs; it drops from
// the index the records session does not own and returns the states it
// changed. A record that cannot be read stays listed and is reported. The
// first time (the index is not complete), the records are found by a scan,
// as eachOwned does, and the index lists what it found.
func (l *Locker) eachIndexed(ctx context.Context, idx store.Index, session string, apply func(store.Key) (*State, error)) ([]State, error) {
	if err := ValidateExistingSession(session); err != nil {
		return nil, err
	}
	var changed []State
	var problems []error
	visited := false
	err := idx.Noted(ctx, session, func(keys []store.Key, complete bool) ([]store.Key, error) {
		visited = true
		if !complete {
			owned, unread, err := l.ownedKeys(ctx, session)
			if err != nil {
				return nil, err
			}
			problems = append(problems, unread...)
			// What the index already names (acquired since) plus what the
			// scan found, each verified below.
			missed := 0
			for _, k := range owned {
				if !containsRef(keys, k.Ref) {
					keys = append(keys, store.Key{Ref: k.Ref})
					missed++
				}
			}
			if missed > 0 && len(keys) > missed {
				// It listed some, not all (a first renewal of locks taken
				// only by agent-registry 0.2 lists none: no damage).
				problems = append(problems, &IndexRepairedError{Session: session, Missed: missed})
			}
		}
		var keep []store.Key
		for _, k := range keys {
			got, err := apply(k)
			owned := got != nil && err == nil
			switch {
			case err != nil:
				// Unreadable, or lost to a lock it would cover: kept and
				// reported at every renewal while it is so.
				problems = append(problems, err)
				keep = append(keep, k)
			case owned:
				changed = append(changed, *got)
				keep = append(keep, k)
			}
		}
		return keep, nil
	})
	if err != nil && !visited {
		// The index itself cannot be used (a folder or a symbolic link in
		// its place, say): the session's locks are still its to keep.
		changed, serr := l.eachOwned(ctx, session, apply)
		return changed, errors.Join(&IndexRepairedError{Session: session, Err: err}, serr)
	}
	if err != nil {
		problems = append(problems, err)
	}
	return changed, errors.Join(problems...)
}

// pruneIndex drops from session's index every record that session does
// not own. It runs with the index held, so an acquisition that lists a
// record after writing it is either seen owned here or listed after.
func (l *Locker) pruneIndex(ctx context.Context, idx store.Index, session string) error {
	var problems []error
	err := idx.Noted(ctx, session, func(keys []store.Key, _ bool) ([]store.Key, error) {
		var keep []store.Key
		for _, k := range keys {
			err := l.store.Transact(ctx, store.Read, []store.Key{k}, func(slots []store.Slot) ([]*store.Record, error) {
				if slots[0].Err == nil && slots[0].Record.Session != session {
					return nil, nil
				}
				keep = append(keep, k) // the session's, or unreadable: kept
				return nil, nil
			})
			if err != nil {
				problems = append(problems, err)
				keep = append(keep, k)
			}
		}
		return keep, nil
	})
	return errors.Join(append(problems, err)...)
}

// ownedKeys scans every record and returns the keys of those session
// owns, and the errors of the records it could not read.
func (l *Locker) ownedKeys(ctx context.Context, session string) ([]store.Key, []error, error) {
	slots, err := l.store.Scan(ctx)
	if err != nil {
		return nil, nil, err
	}
	var keys []store.Key
	var unread []error
	for _, slot := range slots {
		switch {
		case slot.Err != nil:
			unread = append(unread, slot.Err)
		case slot.Record.Session == session:
			keys = append(keys, slot.Key)
		}
	}
	return keys, unread, nil
}

func containsRef(keys []store.Key, ref string) bool {
	for _, k := range keys {
		if k.Ref == ref {
			return true
		}
	}
	return false
}
