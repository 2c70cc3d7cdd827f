package report

import (
	"strings"
	"time"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/workspace"
)

// KindLock is the kind of the records of one lock (one path): acquire,
// release, check, heartbeat and status print them. In every one of them
// the session holding the lock, when one does, is session_id; owner and
// current_owner repeat it where agent-registry 0.2 named it so.
const KindLock = "lock"

// Acquire is the record of one path of an acquire.
type Acquire struct {
	Kind       string   `json:"kind"` // KindLock
	Path       string   `json:"path"`
	Locked     bool     `json:"locked"`
	SessionID  string   `json:"session_id,omitempty"`  // the holder: the caller on success, the other session on refusal
	Owner      string   `json:"owner,omitempty"`       // on success, as 0.2 named it: the caller
	StaleOwner string   `json:"stale_owner,omitempty"` // whose expired lock was taken over
	Note       string   `json:"note,omitempty"`
	Age        *float64 `json:"age,omitempty"`        // on refusal: seconds since its renewal
	ExpiresIn  *float64 `json:"expires_in,omitempty"` // on refusal: seconds until it is stale
	Via        string   `json:"via,omitempty"`        // on refusal through an area: the area covering path, or what the area path overlaps
}

// Acquired reports a lease taken, renewed or taken over.
func Acquired(l core.Lease) (Acquire, string) {
	rec := Acquire{Kind: KindLock, Path: l.Path, Locked: true, SessionID: l.Session, Owner: l.Session, StaleOwner: l.StaleOwner, Note: "acquired"}
	line := linef("acquired %s (session %s)", l.Path, l.Session)
	switch {
	case l.Renewed:
		rec.Note = "renewed: already held by this session"
		line = linef("renewed %s (already held by session %s)", l.Path, l.Session)
	case l.StaleOwner != "":
		rec.Note = "took over the stale lock of " + l.StaleOwner
		line = linef("acquired %s (session %s; took over the stale lock of %s)", l.Path, l.Session, l.StaleOwner)
	}
	return rec, line
}

// QueuedFor is the one way agentlock says that path is free but holder (a
// session id, or words such as "session <id>") has been waiting for it for
// waiting and goes first (core.HeldError.Queued: waiters are served first
// come, first served). It is not escaped.
func QueuedFor(path, holder string, waiting time.Duration) string {
	return path + " is free, but " + holder + " has been waiting for it for " + Human(waiting) + " and goes first"
}

// AcquireRefused reports a path held by another session, after waiting
// for waited (zero when the acquire did not wait); place says where the
// holder works (" (worktree ../wt-a, branch feat-a)", or ""). The line is
// a diagnostic that tells an agent what to do instead.
func AcquireRefused(held *core.HeldError, waited time.Duration, place string) (Acquire, string) {
	age, left := Seconds(held.Age), Seconds(held.Left)
	rec := Acquire{Kind: KindLock, Path: held.Path, SessionID: held.Owner, Age: &age, ExpiresIn: &left, Note: "held by another session", Via: held.Via}
	if held.Queued {
		rec.Note = "free, but another session waits for it since earlier and goes first"
		what := Escape(QueuedFor(held.Path, held.Owner+place, held.Age))
		msg := linef("agentlock: %s (waiters are served first come, first served)", what)
		if waited > 0 {
			msg = linef("agentlock: gave up after %s: %s", Human(waited), what)
		}
		return rec, msg + ".\n" + linef("Do not modify it and do not work around this: wait your turn with `%s`, work on something else, or ask %s.",
			WaitCommand(held.Path), held.Owner)
	}
	what := Escape(core.HeldBy(held.Path, held.Via, held.Owner+place))
	switch core.HeldThrough(held.Path, held.Via) {
	case core.InsideArea:
		rec.Note = "inside an area held by another session"
	case core.AreaOverlaps:
		rec.Note = "the area overlaps a lock of another session"
	}
	msg := linef("agentlock: %s (renewed %s ago, expires in %s if not renewed)", what, Human(held.Age), Human(held.Left))
	if waited > 0 {
		msg = linef("agentlock: gave up after %s: %s, still (renewed %s ago)", Human(waited), what, Human(held.Age))
	}
	return rec, msg + ".\n" + linef("Do not modify it and do not work around this: wait with `%s`, work on something else, or ask %s.",
		WaitCommand(held.Path), held.Owner)
}

// AcquireNotTaken is the record of a free path that an all-or-nothing
// acquire did not take because another of its paths is held.
func AcquireNotTaken(path string) Acquire {
	return Acquire{Kind: KindLock, Path: path, Note: "not acquired: another path of the request is held"}
}

// Release is the record of one path of a release.
type Release struct {
	Kind         string `json:"kind"` // KindLock
	Path         string `json:"path"`
	Released     bool   `json:"released"`
	SessionID    string `json:"session_id,omitempty"` // with "not owner": the holder
	Note         string `json:"note,omitempty"`
	Error        string `json:"error,omitempty"`         // "not owner"
	CurrentOwner string `json:"current_owner,omitempty"` // with "not owner", as 0.2 named it: the holder
}

// Released reports one path of a release by session. A refusal's line is a
// diagnostic.
func Released(r workspace.Released, session string) (Release, string) {
	switch {
	case r.Refused != nil:
		return Release{Kind: KindLock, Path: r.Refused.Path, SessionID: r.Refused.Owner, Error: "not owner", CurrentOwner: r.Refused.Owner},
			linef("agentlock: %s is locked by %s, not by %s: not released.", r.Refused.Path, r.Refused.Owner, session)
	case r.State.Owner != "":
		return Release{Kind: KindLock, Path: r.State.Path, Released: true}, "released " + Escape(r.State.Path)
	default:
		return Release{Kind: KindLock, Path: r.State.Path, Released: true, Note: "was not locked"}, "released " + Escape(r.State.Path) + " (it was not locked)"
	}
}

// ForceReleased reports a lock emptied by force; prev is what it held.
func ForceReleased(prev core.State) (Release, string) {
	if prev.Owner == "" && prev.Corrupt != nil {
		return Release{Kind: KindLock, Path: prev.Path, Released: true, Note: "forced; its record could not be read"},
			linef("released %s by force (its lock record could not be read, so who held it is unknown)", prev.Path)
	}
	if prev.Owner == "" {
		return Release{Kind: KindLock, Path: prev.Path, Released: true, Note: "was not locked"}, "released " + Escape(prev.Path) + " (it was not locked)"
	}
	return Release{Kind: KindLock, Path: prev.Path, Released: true, Note: "forced; was held by " + prev.Owner},
		linef("released %s by force (it was held by %s)", prev.Path, prev.Owner)
}

// ForcedFromOwner is the warning, for people, after a lock was emptied by
// force (prev: what it held) that was renewed within the project's
// timeout by a session that is not finished: its owner is probably still
// at work, and is not told.
func ForcedFromOwner(prev core.State, timeout time.Duration) string {
	return linef("%s was renewed %s ago, within the project's timeout of %s: %s is probably still working on it, is not told, and may go on editing it; tell it, or wait until the lock goes stale.",
		prev.Name(), Human(prev.Age), Human(timeout), prev.Owner)
}

// Check is the record of one path of a check, merging the dictionaries of
// agent-registry 0.2's is_locked and check_and_warn.
type Check struct {
	Kind       string   `json:"kind"` // KindLock
	Path       string   `json:"path"`
	State      string   `json:"state"` // free, locked, locked-by-me, stale (an unreadable record too)
	Locked     bool     `json:"locked"`
	SessionID  string   `json:"session_id,omitempty"` // the owner, when locked
	Age        *float64 `json:"age,omitempty"`
	ExpiresIn  *float64 `json:"expires_in,omitempty"`
	StaleOwner string   `json:"stale_owner,omitempty"`
	OK         bool     `json:"ok"`              // the asking session may modify the path
	Owner      string   `json:"owner,omitempty"` // the owner, when locked
	Warning    string   `json:"warning,omitempty"`
	Via        string   `json:"via,omitempty"` // when the path is held through an area: the area covering it
	// StaleView says, for the asking session, that its view of the file
	// is stale (read versions: "changed", "unsettled", "damaged", or
	// "unknown" when it could not be judged), and ChangedBy who changed
	// it: a write of it now would be refused (docs/read-versions.md).
	StaleView string `json:"stale_view,omitempty"`
	ChangedBy string `json:"changed_by,omitempty"`
}

// Checked reports one path of a check.
func Checked(chk core.Check) (Check, string) {
	rec := Check{Kind: KindLock, Path: chk.Path, OK: chk.OK, Warning: chk.Warning, Via: chk.Via}
	switch {
	case chk.Owner == "" && chk.Corrupt != nil:
		// A record that cannot be read, unwritten for longer than the
		// timeout: stale, never "free" (docs/formats.md); who held it is
		// unknown.
		rec.State = "stale"
		return rec, linef("%s: stale (an unreadable lock record, not written for %s)", chk.Path, Human(chk.Age))
	case chk.Owner == "":
		rec.State = "free"
		return rec, Escape(chk.Path) + ": free"
	case chk.Stale:
		rec.State, rec.StaleOwner = "stale", chk.Owner
		return rec, linef("%s: stale (last owner %s, not renewed for %s)", chk.Path, chk.Owner, Human(chk.Age))
	}
	age, left := Seconds(chk.Age), Seconds(chk.Left)
	rec.Locked, rec.SessionID, rec.Owner, rec.Age, rec.ExpiresIn = true, chk.Owner, chk.Owner, &age, &left
	how := "locked"
	switch core.HeldThrough(chk.Path, chk.Via) {
	case core.InsideArea:
		how = "inside area " + chk.Via + " held"
	case core.AreaOverlaps:
		how = "an area over " + chk.Via + ", held"
	}
	if chk.OK {
		rec.State = "locked-by-me"
		return rec, linef("%s: %s by you (%s), expires in %s", chk.Path, how, chk.Owner, Human(chk.Left))
	}
	rec.State = "locked"
	return rec, linef("%s: %s by %s (renewed %s ago, expires in %s)", chk.Path, how, chk.Owner, Human(chk.Age), Human(chk.Left))
}

// Heartbeat is the record of one renewal.
type Heartbeat struct {
	Kind         string `json:"kind"` // KindLock
	Path         string `json:"path"`
	OK           bool   `json:"ok"`
	SessionID    string `json:"session_id,omitempty"`    // with "not owner": the holder
	Error        string `json:"error,omitempty"`         // "not owner" or "lock not found"
	CurrentOwner string `json:"current_owner,omitempty"` // with "not owner", as 0.2 named it: the holder
}

// Renewed reports a renewed lock, named by path (or by the store's name
// for a record that does not say its path).
func Renewed(name string) (Heartbeat, string) {
	return Heartbeat{Kind: KindLock, Path: name, OK: true}, "renewed " + Escape(name)
}

// RenewRefused reports a renewal refused to session because another session
// holds the lock.
func RenewRefused(e *core.NotOwnerError, session string) (Heartbeat, string) {
	hb := Heartbeat{Kind: KindLock, Path: e.Path, SessionID: e.Owner, Error: "not owner", CurrentOwner: e.Owner}
	if e.Via != "" {
		return hb, linef("agentlock: the lock of %s on %s went stale and %s took %s meanwhile: not renewed (it would cover a live lock of another session); acquire it again once that is released.",
			session, e.Path, e.Owner, e.Via)
	}
	return hb, linef("agentlock: %s is locked by %s, not by %s: not renewed.", e.Path, e.Owner, session)
}

// RenewNoLock reports a renewal of a path that has no lock.
func RenewNoLock(path string) (Heartbeat, string) {
	return Heartbeat{Kind: KindLock, Path: path, Error: "lock not found"},
		linef("agentlock: %s has no lock to renew; acquire it first.", path)
}

// LegacyHeld is the warning (one line, without "agentlock: warning: ") that agent-registry 0.2's home holds
// live locks on files that agentlock locks elsewhere: the two kinds of
// agents do not see each other's locks there.
func LegacyHeld(home string, held []core.State) string {
	var files []string
	for _, s := range held {
		files = append(files, linef("%s (held by %s)", s.Path, s.Owner))
	}
	return linef("agent-registry 0.2's home %s also holds a live lock on %s, "+
		"and 0.2's agents do not see this project's locks: share one home with 'agentlock init --home %s' (see docs/mixed-fleet.md)",
		home, strings.Join(files, ", "), home)
}
