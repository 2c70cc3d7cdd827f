package core

import (
	"errors"
	"fmt"
	"time"

	"github.com/agentlock/agentlock/store"
)

// Sentinel errors. Refusals (ErrLocked, ErrNotOwner, ErrNoLock) are the
// normal answers of a lock manager and carry the current owner through the
// typed errors below; the others mean the environment is not usable.
var (
	// ErrLocked: the path is held by another session whose lock is fresh.
	ErrLocked = errors.New("locked by another session")
	// ErrNotOwner: renew or release asked by a session that does not hold the lock.
	ErrNotOwner = errors.New("not owner")
	// ErrNoLock: renew asked for a path that has no lock.
	ErrNoLock = errors.New("lock not found")
	// ErrCorrupt: a lock record cannot be parsed (see CorruptError).
	ErrCorrupt = store.ErrCorrupt
	// ErrInvalidSession: a session id that the lock record format cannot hold.
	ErrInvalidSession = errors.New("invalid session id")
	// ErrBusy: another process kept a record locked for longer than the
	// store waits (see BusyError) — stopped or stuck inside a critical
	// section. Nothing was changed; the caller may retry later.
	ErrBusy = store.ErrBusy
	// ErrInvalidPath: a path that no file can have (it holds a NUL byte,
	// or is longer than MaxPathLen).
	ErrInvalidPath = errors.New("invalid path")
	// ErrNoAreas: an area lock asked of a store that cannot hold one
	// (see store.Areas).
	ErrNoAreas = errors.New("this lock store cannot hold area locks")
)

// BusyError reports a record that stayed locked by another process for
// longer than the store waits: its Ref (the file) and how long the store
// waited. It matches ErrBusy with errors.Is.
type BusyError = store.BusyError

// HeldError reports that a path is held by another session. It matches
// ErrLocked with errors.Is.
type HeldError struct {
	Path  string        // real path asked for
	Owner string        // session holding the lock
	Age   time.Duration // time since the owner last renewed it
	Left  time.Duration // time until the lock becomes stale
	// Via is set when the path is refused through an area lock: the area
	// (ending in "/") that covers the path, or, when Path is an area, the
	// held lock or area it overlaps. Owner, Age and Left are then Via's.
	Via string
	// Queued is set when the path is free, or stale, but Owner has been
	// waiting for it since earlier (for Age), on a store that serves
	// waiters first come, first served (store.Queue): Owner takes it next.
	Queued bool
	// Taken says how Owner took the lock (store.TakenByHook: its pre-edit
	// hook, for an edit; then, under an idle bound, Left counts to the end
	// of the bound). TakenUnknown when not read, as for a lock held
	// through an area.
	Taken store.Taken
	// Unused, for a lock a hook took, is the time since its last use: the
	// last edit its hooks let through (State.Used).
	Unused time.Duration
	// Relation is how Owner is related to the session refused, through
	// sub-agents (Claim.Parent): another sub-agent of its session, its
	// parent session (which took the path explicitly), or one of its own
	// sub-agents. Error names it after the owner (Holder).
	Relation Relation
}

func (e *HeldError) Error() string {
	if e.Queued {
		return fmt.Sprintf("%s is free, but %s has been waiting for it for %s and goes first (waiters are served first come, first served)",
			e.Path, e.Owner, roundDuration(e.Age))
	}
	return fmt.Sprintf("%s (renewed %s ago, expires in %s)", HeldBy(e.Path, e.Via, Holder(e.Owner, e.Relation)), roundDuration(e.Age), roundDuration(e.Left))
}

// HeldBy is the one way agentlock says that path is held by holder (a
// session id, or words such as "session <id>"), through via when an area
// is involved (HeldError.Via, Check.Via): "<path> is locked by <holder>",
// "<path> is inside area <via> held by <holder>", or, for an area that
// overlaps a lock, "area <path> overlaps <via> held by <holder>". It is
// not escaped: the caller escapes the line it is part of.
func HeldBy(path, via, holder string) string { return HeldByAs(path, path, via, holder) }

// HeldByAs is HeldBy naming path as shown (relative to a repository's top,
// say).
func HeldByAs(shown, path, via, holder string) string {
	switch HeldThrough(path, via) {
	case InsideArea:
		return shown + " is inside area " + via + " held by " + holder
	case AreaOverlaps:
		return "area " + shown + " overlaps " + via + " held by " + holder
	}
	return shown + " is locked by " + holder
}

// Through is how a path is held by another session.
type Through int

// The ways a path is held by another session.
const (
	Directly     Through = iota // its own lock
	InsideArea                  // an area around it (via, ending in "/")
	AreaOverlaps                // path is an area over a lock (via) of another session
)

// HeldThrough tells how path is held, by via (HeldError.Via, Check.Via;
// empty for its own lock).
func HeldThrough(path, via string) Through {
	switch {
	case via == "":
		return Directly
	case store.Covers(via, path):
		return InsideArea
	}
	return AreaOverlaps
}

// Is makes errors.Is(err, ErrLocked) true.
func (e *HeldError) Is(target error) bool { return target == ErrLocked }

// NotOwnerError reports a renew or release by a session that does not own
// the lock. It matches ErrNotOwner with errors.Is.
type NotOwnerError struct {
	Path  string // real path
	Owner string // session that holds the lock
	// Via is set when the record of Path is still the asking session's
	// but went stale, and Owner then took Via, a lock it covers or an area
	// that covers it: renewing it would make two live locks cover the
	// same files, so it is lost (acquire it again once Via is released).
	Via string
}

func (e *NotOwnerError) Error() string {
	if e.Via != "" {
		return fmt.Sprintf("%s: not owner (the lock went stale and %s took %s meanwhile)", e.Path, e.Owner, e.Via)
	}
	return fmt.Sprintf("%s: not owner (the lock is held by %s)", e.Path, e.Owner)
}

// Is makes errors.Is(err, ErrNotOwner) true.
func (e *NotOwnerError) Is(target error) bool { return target == ErrNotOwner }

// CorruptError reports a lock record that cannot be parsed: its Ref (the
// lock file), a prefix of its Content and the Reason. It matches ErrCorrupt
// with errors.Is. The record is left as it was; a person may inspect it and
// free it with Locker.ForceRelease.
type CorruptError = store.CorruptError

// roundDuration renders d to a tenth of a second, which is what a person
// reading an age needs.
func roundDuration(d time.Duration) time.Duration {
	if d < 0 {
		d = 0
	}
	return d.Round(100 * time.Millisecond)
}

// IndexRepairedError is a notice of RenewSession (and Lease.Unindexed), not
// a failure: the session's index of its locks (see store.Index) could not
// be used, or did not list every lock the session holds, so the locks were
// found by a scan and renewed all the same. Missed is how many the index did not list; Err
// is why the index could not be used (then it is not rewritten: a folder or
// a symbolic link in its place is left for a person to move away).
type IndexRepairedError struct {
	Session string
	Missed  int
	Err     error
}

func (e *IndexRepairedError) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("the index of the locks of %s cannot be used (%v): renewals find its locks by a scan instead; move the index file away and the next lock writes a new one", e.Session, e.Err)
	}
	return fmt.Sprintf("the index of the locks of %s did not list %d of them (damaged, or they were taken by another tool): found by a scan and listed again", e.Session, e.Missed)
}

func (e *IndexRepairedError) Unwrap() error { return e.Err }

// Notices splits the errors joined in err into notices (an
// *IndexRepairedError: the operation did all it was asked) and the rest,
// joined again (nil when none).
func Notices(err error) (notices []error, rest error) {
	var others []error
	for _, e := range Unjoin(err) {
		var n *IndexRepairedError
		if errors.As(e, &n) {
			notices = append(notices, n)
		} else {
			others = append(others, e)
		}
	}
	return notices, errors.Join(others...)
}
