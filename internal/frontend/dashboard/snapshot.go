package dashboard

import (
	"context"
	"errors"
	"fmt"
	"github.com/agentlock/agentlock/audit"
	"slices"
	"strconv"
	"time"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/workspace"
)

// Snapshot is what the workspace's lock folder and registry held at one
// instant: every page, API answer and event is computed from one.
type Snapshot struct {
	Taken    time.Time
	Locks    []core.State // every readable lock record, free ones included
	Problems []error      // the records that could not be read
	Sessions []core.Session
	// RegistryErr is set when the registry could not be read; the locks
	// are still shown.
	RegistryErr error
	Idle        map[string]bool
	// Conflicts are, by real path, the warnings about locked files also
	// changed in another worktree of the repository (docs/worktrees.md);
	// Changed are the same as found (workspace.Workspace.Conflicts).
	Conflicts map[string]string
	Changed   []workspace.Conflict
	// StaleViews are, by real path, the held files whose holder's view is
	// stale: it must read the file again before it writes it
	// (workspace.Workspace.HeldViews).
	StaleViews map[string]workspace.View
	// History is the end of the audit log, oldest first.
	History []audit.Entry
}

// take reads the workspace once: the lock folder, then the registry.
func (s *Server) take(ctx context.Context) (*Snapshot, error) {
	snap := &Snapshot{Taken: s.now()}
	var err error
	snap.Locks, snap.Problems, err = s.locker.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the locks of %s: %w", s.ws.LockDir, err)
	}
	doc, err := s.loadRegistry(ctx)
	if err != nil {
		snap.RegistryErr = err
	} else {
		// A session whose agent process exited without finishing it
		// (kimi -p) shows as ended until a command finishes it.
		exited := s.ws.Exited()
		for _, a := range doc.Agents {
			if a.IsSession() {
				if exited[a.SessionID] && a.Status == core.StatusWorking {
					a.Status = core.StatusFinished
				}
				snap.Sessions = append(snap.Sessions, a)
			}
		}
	}
	snap.Idle = s.ws.IdleAmong(snap.Sessions, snap.Locks)
	snap.Changed, snap.Conflicts = conflictsOf(ctx, s, snap.Locks)
	// For people: views that cannot be judged are not marked.
	snap.StaleViews, _ = s.ws.HeldViews(ctx, snap.Locks)
	// The history is for people: a log that cannot be read shows empty.
	snap.History, _ = s.ws.Audit().Tail(maxHistory)
	return snap, nil
}

// registryKey says which version of the registry file a reading was of:
// the file is only ever replaced whole (a new inode), so an unchanged key
// is an unchanged registry.
type registryKey struct {
	ino, size int64
	mtime     time.Time
}

// loadRegistry reads the registry, or returns the last reading when the
// file has not been replaced since: a heartbeat does not write it, and a
// fleet renews several times a second. A distributed store's registry is
// read every time.
func (s *Server) loadRegistry(ctx context.Context) (core.Document, error) {
	key, ok := statKey(s.ws.RegistryPath)
	if ok && !s.ws.Store().Set() {
		s.regMu.Lock()
		cached, hit := s.regDoc, s.regKey == key && s.regDoc != nil
		s.regMu.Unlock()
		if hit {
			return *cached, nil
		}
	}
	doc, err := s.ws.Registry().Load(ctx)
	if err == nil && ok {
		s.regMu.Lock()
		s.regKey, s.regDoc = key, &doc
		s.regMu.Unlock()
	}
	return doc, err
}

// owners is the registry's view of the lock owners (see
// workspace.Owners): the sessions as read, those of exited agents already
// shown as finished; nobody's when the registry could not be read.
func (snap *Snapshot) owners() workspace.Owners {
	return workspace.OwnersOf(snap.Sessions, nil)
}

// counts are the lock folder's totals.
type counts struct {
	Free, Held, Stale, Corrupt int
}

func (snap *Snapshot) counts() counts {
	var c counts
	for _, l := range snap.Locks {
		switch {
		case l.Owner == "":
			c.Free++
		case l.Stale:
			c.Stale++
		default:
			c.Held++
		}
	}
	c.Corrupt = len(snap.Problems)
	return c
}

// nextExpiry is when the next held lock goes stale, the zero time when
// none is held: the view changes then without any write.
func (snap *Snapshot) nextExpiry() time.Time {
	var next time.Time
	for _, l := range snap.Locks {
		if l.Owner != "" && !l.Stale {
			at := snap.Taken.Add(l.Left)
			if next.IsZero() || at.Before(next) {
				next = at
			}
		}
	}
	return next
}

// Event is the record of one change seen while serving, sent on
// /api/events and listed on the page.
type Event struct {
	Kind string `json:"kind"` // "event"
	// Event is acquired, released, taken over, registered or finished.
	Event     string `json:"event"`
	Time      string `json:"time"` // RFC 3339, when the server saw it
	Path      string `json:"path,omitempty"`
	SessionID string `json:"session_id,omitempty"` // the new holder, or the session
	// PreviousOwner is, for released and taken over, who held the lock.
	PreviousOwner string `json:"previous_owner,omitempty"`
	// Seq numbers the events of this server, from 1: a consumer that
	// sees a gap missed some (after a resync).
	Seq int64 `json:"seq"`
}

// The events.
const (
	EventAcquired   = "acquired"
	EventReleased   = "released"
	EventTakenOver  = "taken over"
	EventRegistered = "registered"
	EventFinished   = "finished"
)

// diff returns the events between two snapshots: locks compared by their
// record (the lock file), sessions by id. A renewal is no event.
func diff(prev, next *Snapshot) []Event {
	if prev == nil {
		return nil
	}
	at := next.Taken.UTC().Format(time.RFC3339)
	var out []Event
	before := make(map[string]core.State, len(prev.Locks))
	for _, l := range prev.Locks {
		before[l.Ref] = l
	}
	for _, l := range next.Locks {
		old := before[l.Ref]
		delete(before, l.Ref)
		switch {
		case old.Owner == l.Owner:
		case old.Owner == "":
			out = append(out, Event{Kind: "event", Event: EventAcquired, Time: at, Path: l.Name(), SessionID: l.Owner})
		case l.Owner == "":
			// A released record is empty: its path is the one it held.
			out = append(out, Event{Kind: "event", Event: EventReleased, Time: at, Path: old.Name(), PreviousOwner: old.Owner})
		default:
			out = append(out, Event{Kind: "event", Event: EventTakenOver, Time: at, Path: l.Name(), SessionID: l.Owner, PreviousOwner: old.Owner})
		}
	}
	// A lock file is never deleted while agentlock runs; one that vanished
	// (the home was removed) released its lock.
	for _, old := range before {
		if old.Owner != "" {
			out = append(out, Event{Kind: "event", Event: EventReleased, Time: at, Path: old.Name(), PreviousOwner: old.Owner})
		}
	}
	status := make(map[string]string, len(prev.Sessions))
	for _, a := range prev.Sessions {
		status[a.SessionID] = a.Status
	}
	for _, a := range next.Sessions {
		old, known := status[a.SessionID]
		switch {
		case old == a.Status && known:
		case a.Status == core.StatusFinished:
			out = append(out, Event{Kind: "event", Event: EventFinished, Time: at, SessionID: a.SessionID})
		case !known || old == core.StatusFinished:
			out = append(out, Event{Kind: "event", Event: EventRegistered, Time: at, SessionID: a.SessionID})
		}
	}
	return out
}

// same reports whether two snapshots would show the same page, apart from
// the ages that grow with time.
func same(a, b *Snapshot) bool {
	if a == nil || b == nil || len(a.Locks) != len(b.Locks) || len(a.Problems) != len(b.Problems) ||
		(a.RegistryErr == nil) != (b.RegistryErr == nil) {
		return false
	}
	for i := range a.Locks {
		x, y := a.Locks[i], b.Locks[i]
		if x.Ref != y.Ref || x.Owner != y.Owner || !x.Stamp.Equal(y.Stamp) || x.Stale != y.Stale {
			return false
		}
	}
	for i := range a.Problems {
		if a.Problems[i].Error() != b.Problems[i].Error() {
			return false
		}
	}
	return slices.EqualFunc(a.Sessions, b.Sessions, sameSession) && mapsEqual(a.Idle, b.Idle) && slices.Equal(a.History, b.History)
}

// renewedOnly reports whether two different snapshots differ only by the
// stamps of locks kept by the same owners, and nothing went stale: only
// renewals happened.
func renewedOnly(a, b *Snapshot) bool {
	if a == nil || b == nil || len(a.Locks) != len(b.Locks) || len(a.Problems) != len(b.Problems) ||
		(a.RegistryErr == nil) != (b.RegistryErr == nil) {
		return false
	}
	for i := range a.Locks {
		x, y := a.Locks[i], b.Locks[i]
		if x.Ref != y.Ref || x.Owner != y.Owner || x.Stale != y.Stale {
			return false
		}
	}
	for i := range a.Problems {
		if a.Problems[i].Error() != b.Problems[i].Error() {
			return false
		}
	}
	return slices.EqualFunc(a.Sessions, b.Sessions, sameSession) && mapsEqual(a.Idle, b.Idle) && slices.Equal(a.History, b.History)
}

// Renewal is one lock's new stamp, in a "renew" event.
type Renewal struct {
	File string `json:"file"` // the lock file, as the page's data-ref
	// Renewed is the new stamp, milliseconds since the Unix epoch.
	Renewed int64 `json:"renewed"`
}

// renewals lists the locks whose stamp changed between two snapshots of
// the same locks (renewedOnly).
func renewals(a, b *Snapshot) map[string]any {
	var out []Renewal
	for i := range b.Locks {
		if !a.Locks[i].Stamp.Equal(b.Locks[i].Stamp) {
			out = append(out, Renewal{File: b.Locks[i].Ref, Renewed: b.Locks[i].Stamp.UnixMilli()})
		}
	}
	return map[string]any{"kind": "renew", "time": b.Taken.UTC().Format(time.RFC3339Nano), "locks": out}
}

func sameSession(a, b core.Session) bool {
	return a.SessionID == b.SessionID && a.Provider == b.Provider && a.AIVersion == b.AIVersion &&
		a.StartedAt == b.StartedAt && a.WorkingOn == b.WorkingOn && a.Status == b.Status &&
		a.Issues == b.Issues && a.Handoff == b.Handoff &&
		slices.Equal(a.Todo.Past, b.Todo.Past) && slices.Equal(a.Todo.Present, b.Todo.Present) &&
		slices.Equal(a.Todo.Future, b.Todo.Future) && slices.Equal(a.Space, b.Space) &&
		slices.Equal(a.DoNotTouch, b.DoNotTouch)
}

func mapsEqual(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// lockRecords are the records of /api/locks: agentlock status --json's
// (with withFree, status --all's), orphaned locks and other worktrees'
// changes marked as status marks them.
func (snap *Snapshot) lockRecords(withFree bool) []report.Status {
	records := report.Statuses(snap.Locks, snap.Problems, withFree)
	if snap.RegistryErr == nil {
		// The snapshot's sessions are the registry as read, those of
		// exited agents shown as finished: workspace.Owners' rule.
		_ = report.MarkOrphans(records, snap.Locks, func() (func(core.State) bool, error) { return snap.owners().Orphaned, nil })
	}
	report.MarkConflicts(records, snap.Changed)
	report.MarkStaleViews(records, snap.StaleViews)
	return records
}

// sessionRecords are the records of /api/sessions: agentlock show
// --json's.
func (snap *Snapshot) sessionRecords(registry string) []report.Session {
	out := make([]report.Session, 0, len(snap.Sessions))
	for _, a := range snap.Sessions {
		out = append(out, report.Shown(a, registry, snap.Idle[a.SessionID]))
	}
	return out
}

// stampString encodes a lock's stamp for the page, which sends it back to
// name the lock it showed: nanoseconds since the Unix epoch.
func stampString(t time.Time) string {
	return strconv.FormatInt(t.UnixNano(), 10)
}

// parseStamp decodes stampString.
func parseStamp(s string) (time.Time, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		return time.Time{}, errors.New("stamp: not a number of nanoseconds")
	}
	return time.Unix(0, n), nil
}

// conflictsOf returns the files among locks (free ones too, as status
// --all asks: a released lock file names no path, so this costs nothing
// more) that another worktree changed too, and the warnings about them by
// real path; a failure to ask git shows none.
func conflictsOf(ctx context.Context, s *Server, locks []core.State) ([]workspace.Conflict, map[string]string) {
	found, err := s.ws.Conflicts(ctx, workspace.ListedPaths(locks, true))
	if err != nil || len(found) == 0 {
		return nil, nil
	}
	out := map[string]string{}
	for _, c := range found {
		if out[c.Path] != "" {
			out[c.Path] += "; "
		}
		out[c.Path] += c.Message()
	}
	return found, out
}
