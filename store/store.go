// Package store is the storage seam of agentlock's lock engine and registry.
//
// The engine (package core) decides; a store keeps records and makes each
// decision atomic. A lock store has two operations: Transact reads a set of
// lock records, lets the engine decide on all of them at once, and writes
// what it decided, as one atomic step that other processes cannot
// interleave with; Scan reads every record. A document store keeps one
// document (registry.md) and runs read-modify-write sections on it.
//
// The default implementation (store/filestore) keeps lock files changed
// in place under flock(2), and registry.md replaced atomically under a
// sidecar lock; store/etcdstore (build tag etcd) keeps them in an etcd
// cluster, for agents on several machines. The interfaces name no file, so
// that either store serves the same decision logic. The package is part of
// agentlock's SDK: core's constructors take its interfaces, and a backend
// implements them.
//
// Every method that reaches the records takes a context.Context first: a
// store stops waiting (for another process's flock, for a cluster) when it
// is done, and a store that talks to a service takes its deadline as the
// bound of each request. A store may also keep its own bound on waiting
// (the lock files' flock wait, a BusyError past it).
package store

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// DefaultTimeout is how long a lock stays valid after its last renewal when
// nothing sets a timeout: agent-registry 0.2's default.
const DefaultTimeout = 120 * time.Second

// Record is the state of one lock as stored: who owns it, when the owner
// last renewed it, and the real path it guards. The zero Record is free.
type Record struct {
	Session string
	Stamp   time.Time
	// Path is the real path written in the record; empty in the two-field
	// records of agent-registry 0.1.0, which do not say.
	Path string
	// Taken, in a record a transaction writes, says how its session took
	// the lock; the store keeps it beside the record, never in it (the
	// record is agent-registry 0.2's format), and a free record drops it.
	// TakenUnknown leaves what is kept beside as it is (a renewal). A
	// record read leaves it TakenUnknown: Slot.HowTaken reads it.
	Taken Taken
}

// Taken says how a session took a lock: explicitly (agentlock acquire,
// register --claim, an area) or by a hook's gate, before an edit. The
// rules between a session and its sub-agents read it (a sub-agent may
// take over what its parent's hooks took, not what the parent took
// explicitly), and so does a release of what the hooks took at the end of
// a turn.
type Taken uint8

// How a lock was taken.
const (
	// TakenUnknown: not said — a record written by agent-registry 0.2 or an
	// older agentlock, or whose note beside was lost. Rules read it as
	// explicit, the safe side: nobody takes such a lock over, and no turn's
	// end releases it.
	TakenUnknown Taken = iota
	// TakenExplicit: asked for (agentlock acquire, register --claim, the
	// MCP server's acquire, an area).
	TakenExplicit
	// TakenByHook: taken by a pre-edit hook for the edit it let through.
	TakenByHook
)

// String names t as the notes beside the records spell it.
func (t Taken) String() string {
	switch t {
	case TakenExplicit:
		return "explicit"
	case TakenByHook:
		return "hook"
	}
	return "unknown"
}

// ParseTaken reads a name String gives; anything else is TakenUnknown.
func ParseTaken(s string) Taken {
	switch s {
	case "explicit":
		return TakenExplicit
	case "hook":
		return TakenByHook
	}
	return TakenUnknown
}

// Free reports whether the record names no owner.
func (r Record) Free() bool { return r.Session == "" }

// Key names one lock record: by the real path it guards, or by Ref, the
// store's own name for a record that a Scan returned (the only way to name
// a record that does not say its path).
type Key struct {
	Path string
	Ref  string
}

// Mode says what a transaction may do.
type Mode int

const (
	// Read takes the records shared: other readers may read at the same
	// time, no writer can. Decide's answer is ignored.
	Read Mode = iota
	// Update takes the records exclusively. A record that does not exist
	// is passed as free and is not created: Decide may only free it, which
	// changes nothing.
	Update
	// Create takes the records exclusively, creating the ones that do not
	// exist, so that Decide may write any of them.
	Create
)

// Slot is one record as a transaction or a scan read it.
type Slot struct {
	// Key is the key asked for, with Ref filled in by the store.
	Key Key
	// Record is what the store holds; free when there is nothing.
	Record Record
	// Err is set when the stored record cannot be decoded (a
	// *CorruptError) or read; Record is then free. Decide may still
	// overwrite such a record.
	Err error
	// Written is when the record was last written (a lock file's
	// modification time); zero when the store does not know or the record
	// does not exist. The engine shows a corrupt record's age from it.
	Written time.Time
	// Liveness is the store's verdict on the record's freshness, computed
	// by the store from what keeps its records alive (the lock files: the
	// stamp plus the timeout; etcd: the lease). A store sets it on every
	// record that names an owner, and on a record it cannot decode when it
	// can judge that one (the lock files: by Written, the modification
	// time: content nobody has written for longer than the timeout is not
	// a live lock, whatever it says). The engine takes the verdict as it is
	// and judges no record itself: a held record without one is taken as
	// fresh, and a corrupt one without one as possibly live.
	Liveness *Liveness
	// Beside reads how the record's session took it (Record.Taken), kept
	// beside the record: in a transaction, while Decide runs (the record
	// still held); from a scan, whenever asked, for the record as the scan
	// read it (TakenUnknown once it changed). It is read only when asked,
	// so that a transaction that needs no such note costs nothing more.
	// nil when the store keeps no note: use HowTaken.
	Beside func() (Taken, error)
}

// HowTaken reads how the record's session took the lock (see Beside):
// TakenUnknown for a free record, a store that keeps no note, or a note
// of another session than the record's.
func (s Slot) HowTaken() (Taken, error) {
	if s.Beside == nil || s.Record.Free() {
		return TakenUnknown, nil
	}
	return s.Beside()
}

// Liveness is a store's own verdict on a record's freshness.
type Liveness struct {
	// Fresh is true while the record is held (its stamp is recent
	// enough, its lease is alive).
	Fresh bool
	// Renewed is when the record was last kept alive (a lease's last
	// keep-alive); zero when the store does not know, then the record's
	// stamp stands.
	Renewed time.Time
	// Until is when the record stops being fresh unless renewed again;
	// zero when unknown (then Renewed, or the stamp, plus the timeout).
	Until time.Time
}

// Decide sees the slots of a transaction, in the order of the keys, and
// returns one entry per slot: the record to store there, or nil to leave
// it as it is. An error stores nothing and is returned by Transact. A
// store that writes optimistically (etcd: compare-and-swap) runs Decide
// again when another process changed a record between its read and its
// write, so Decide must keep no effect of a run but the last one's.
type Decide func(slots []Slot) ([]*Record, error)

// Locks keeps the lock records of one workspace.
type Locks interface {
	// Transact runs one atomic read-decide-write over the records of keys.
	// Records are taken in one fixed order whatever the order of keys, so
	// that transactions over overlapping sets never deadlock. Keys must
	// name distinct records. If writing fails part-way, the records written
	// before the failure stay and the error is returned.
	Transact(ctx context.Context, mode Mode, keys []Key, decide Decide) error
	// Scan reads every record of the workspace, each one atomically, and
	// returns them in no particular order. A record that cannot be read
	// comes back with Err set; only a failure to list the records at all is
	// an error.
	Scan(ctx context.Context) ([]Slot, error)
	// Feed is every lock store's change feed: of its records and of the
	// workspace's document.
	Feed
}

// Watcher is implemented by the lock stores that can tell when records may
// have changed, so that a waiter retries when a lock is released instead of
// polling. Notifications may be spurious or coalesced; a waiter still
// retries on a timer, which covers locks that expire without any write.
type Watcher interface {
	// Watch starts watching the records of keys. Each change that may
	// free one of them (a release; a store may also report others) sends
	// a value on changes (a buffered channel of one, so changes
	// coalesce) until stop is called or ctx is done.
	Watch(ctx context.Context, keys []Key) (changes <-chan struct{}, stop func(), err error)
}

// Queue is implemented by the lock stores that serve waiters first come,
// first served, as etcd's concurrency.Mutex does: a waiter stands in line
// for its records, ordered by when it came, and the store refuses to give
// an overlapping record to anyone else (a *QueuedError) while an earlier
// waiter that could take all of its own records now stands in line.
type Queue interface {
	// Enqueue puts session in line for the records of keys until leave is
	// called; a waiter whose process dies loses its place within a few
	// seconds, and never later than a lock of its would expire. changes
	// reports what may let it go, as Watcher.Watch does, for the records
	// of keys and for every record that excludes them through an area.
	Enqueue(ctx context.Context, session string, keys []Key) (changes <-chan struct{}, leave func(), err error)
}

// QueuedError refuses a record that is free, or stale, because another
// session came first and waits for it (see Queue).
type QueuedError struct {
	Path  string // the real path asked for
	Ahead string // the session waiting since earlier
	Since time.Duration
}

func (e *QueuedError) Error() string {
	return fmt.Sprintf("%s is free, but %s has been waiting for it for %s (waiters are served first come, first served)", e.Path, e.Ahead, e.Since.Round(100*time.Millisecond))
}

// Index is implemented by the lock stores that keep, per session, a list
// of the records the session acquired, so that renewing a session's locks
// costs in proportion to the locks it holds rather than to every record of
// the workspace. The list is a hint, never an authority: it may name
// records the session no longer owns (released, taken over), which its
// reader verifies and drops, and it misses records written by programs
// that keep no list (agent-registry 0.2), which only a Scan finds.
type Index interface {
	// Note adds the records of keys to session's list. Call it after the
	// records were written, outside any transaction.
	Note(ctx context.Context, session string, keys []Key) error
	// Noted calls visit with session's list, holding it so that no Note or
	// Noted of the same session's list runs in between, and stores the
	// keys visit returns as the new list, marked complete. The keys carry
	// Ref only. complete is false until a visit first returns: the list
	// may then miss records the session held before the store kept one
	// (taken by an older version, or by agent-registry 0.2 for the same
	// id), so visit should find the session's records by a Scan.
	Noted(ctx context.Context, session string, visit func(keys []Key, complete bool) (keep []Key, err error)) error
}

// Feed is a store's change feed: a value whenever a record or the
// document of the workspace may have changed, made anywhere the store
// can see (etcd: any machine's acquire, a lease that expired; the lock
// files: a write in the lock folder or the registry's folder on this
// machine). Every change made after Changes returns is reported, so a
// reader that reads the store once its feed is set up misses none. Readers
// still read again on a timer of their own, for locks that expire without
// a write.
type Feed interface {
	// Changes sends on its channel (a buffered channel of one, so that
	// changes coalesce) until ctx is done; a value after a lost watch too,
	// so that the reader reads everything again.
	Changes(ctx context.Context) (<-chan struct{}, error)
}

// SessionRenewer is implemented by the lock stores that keep every record
// of a session alive at once (etcd: the session's leases), so that
// renewing a session costs a constant number of requests whatever the
// number of its locks.
type SessionRenewer interface {
	// RenewSession keeps every record session holds alive for another
	// whole timeout, without rewriting them. With list it returns them as
	// they were read; without, it returns none and may read nothing (etcd:
	// one keep-alive round trip). A record whose lease already expired is
	// not renewed.
	RenewSession(ctx context.Context, session string, list bool) ([]Slot, error)
}

// Document keeps one document: the registry's markdown file.
type Document interface {
	// Read returns the document's current content; nil when there is none.
	// It sees a whole version, never a write in progress.
	Read(ctx context.Context) ([]byte, error)
	// Edit runs one read-modify-write section: change gets the current
	// content (nil when there is none) and returns the new content, or nil
	// to leave it unchanged. No other Edit of the same document runs in
	// between, in this process or another. A store that writes by
	// compare-and-swap calls change again when another write came first,
	// so change must keep no effect of a call but the last one's.
	Edit(ctx context.Context, change func(old []byte) ([]byte, error)) error
	// Where names the document for people and for messages.
	Where() string
}

// Entry is one entry of a document kept in entries (see EntryDocument):
// one session of the registry, or the head (ID ""), the rest of it. The
// store keeps Data as it is; what it means is the registry engine's.
type Entry struct {
	ID   string
	Data []byte // nil, in an edit's answer, deletes the entry
}

// EntryDocument is implemented by the document stores that keep the
// registry in entries, one per session, instead of one document, so that
// writers of different sessions never conflict and the document has no
// size limit (etcd: one key per session, each written by its own
// compare-and-swap). The registry engine splits and joins the document;
// the store keeps its entries and this machine's copy of the whole.
type EntryDocument interface {
	Document
	// ReadEntries returns the entries, in no particular order; or, while
	// the store holds the document whole (written by an older version, or
	// this machine's copy of a project that moves to the store), no entry
	// and the whole document (nil when there is none). When this machine's
	// copy is older than the entries, render gets them and returns the
	// whole document to copy.
	ReadEntries(ctx context.Context, render func([]Entry) ([]byte, error)) (entries []Entry, whole []byte, err error)
	// EditEntries runs one read-modify-write section: change gets what
	// ReadEntries returns and answers the entries to write (nil: nothing
	// to write). They are written only if none of them but the head, which
	// is written as it is, changed since the read, whatever happened to
	// other entries; otherwise change runs again. A document read whole is
	// split first: change then answers its entries, as they are, and runs
	// again on them. render gets every entry as written and returns the
	// whole document, this machine's copy.
	EditEntries(ctx context.Context, change func(entries []Entry, whole []byte) ([]Entry, error), render func([]Entry) ([]byte, error)) error
}

// ErrCorrupt matches a record that cannot be decoded.
var ErrCorrupt = errors.New("corrupt lock file")

// CorruptError reports a stored record that cannot be decoded. It matches
// ErrCorrupt with errors.Is. The record is left as it was.
type CorruptError struct {
	Ref     string // the store's name for the record (a lock file)
	Content string // what it holds, cut to a short prefix
	Reason  string // why it cannot be decoded
}

func (e *CorruptError) Error() string {
	return fmt.Sprintf("%s: corrupt lock file (%s): %q", e.Ref, e.Reason, e.Content)
}

// Is makes errors.Is(err, ErrCorrupt) true.
func (e *CorruptError) Is(target error) bool { return target == ErrCorrupt }

// ErrBusy matches a record that another process kept locked for longer
// than the store's bound on waiting (see BusyError).
var ErrBusy = errors.New("lock busy")

// BusyError reports that a record (or the folder or document guarding it)
// stayed locked by another process for longer than the store waits. A
// critical section lasts microseconds, so such a wait means a process
// stopped (SIGSTOP, a debugger) or stuck inside one: waiting on would hang
// the caller, and every agent behind it. It matches ErrBusy with errors.Is.
type BusyError struct {
	Ref    string        // what stayed locked (a lock file, a folder, a registry's lock)
	Waited time.Duration // how long the store waited
}

func (e *BusyError) Error() string {
	return fmt.Sprintf("%s: still locked by another process after %s (a process stopped or stuck while changing it?)", e.Ref, e.Waited)
}

// Is makes errors.Is(err, ErrBusy) true.
func (e *BusyError) Is(target error) bool { return target == ErrBusy }

// IsArea reports whether a lock record's path names an area: a folder and
// every path below it, written with a final "/".
func IsArea(path string) bool { return len(path) > 0 && path[len(path)-1] == '/' }

// Covers reports whether the area area (a path ending in "/") covers path:
// path is the area's folder itself, or lies below it. An area covers an
// area below it too.
func Covers(area, path string) bool {
	if !IsArea(area) {
		return false
	}
	return len(path) >= len(area) && path[:len(area)] == area || path+"/" == area
}

// Overlap reports whether the lock records of the paths a and b exclude
// each other through an area: one of them is an area that covers the
// other. Two file paths never overlap; a path does not overlap itself.
func Overlap(a, b string) bool {
	if a == b {
		return false
	}
	return Covers(a, b) || Covers(b, a)
}

// DecideAreas decides an area-aware transaction (see Areas). slots are the
// records of the transaction's keys, as for Decide; related are the
// records that may exclude them through an area, each read atomically:
// for every key, the held areas that cover it, and, for an area key, the
// records at or below it and the areas it overlaps (in a Read transaction,
// only those that are not free, as a scan read them). next has one entry per
// slot, as Decide's answer. release names related records to free because
// they are stale (only in an exclusive transaction, one with an area key):
// the store frees each one only if it still holds what related showed,
// before writing next; when one changed meanwhile, the store runs the
// whole transaction again, decide included.
type DecideAreas func(slots []Slot, related []Slot) (next []*Record, release []Slot, err error)

// Areas is implemented by the lock stores that can hold area locks. An
// area lock is an ordinary record whose path ends in "/": while a session
// holds it, no other session may hold a record at or below it, nor an
// area that covers it. Deciding that needs the records around a key, read
// in the same atomic step, which TransactAreas gives.
type Areas interface {
	// TransactAreas is Transact(mode, keys, …) that also reads, in the
	// same atomic step, the records related to keys (see DecideAreas).
	// mode is Read or Create. A transaction whose keys name an area is
	// exclusive: no other area-aware Create transaction of the same lock
	// folders runs at the same time, so what it reads below its areas
	// stays true until it has written. Otherwise, in Create mode, it
	// excludes only the area transactions and the writers of its own keys.
	TransactAreas(ctx context.Context, mode Mode, keys []Key, decide DecideAreas) error
}

// Diagnosis is one verdict of a store on its own service, for agentlock
// doctor.
type Diagnosis struct {
	Name    string
	Problem bool // the store cannot serve (unreachable, no quorum)
	Warn    bool // worth a look
	Detail  string
	Fix     string
}

// Diagnoser is implemented by the stores that depend on a service (a
// cluster) and can check it: reachable, its version, the clock skew
// between this machine and it, its leases.
type Diagnoser interface {
	Diagnose(ctx context.Context) []Diagnosis
}
