package dashboard

import (
	"net/url"
	"strings"
	"time"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/report"
)

// view is what the page shows, computed from a snapshot. Every string in
// it is plain text: html/template escapes it where it is written.
type view struct {
	Taken         string
	Project       string
	LockDir       string
	Registry      string
	RegistryError string
	Counts        counts
	Working       []sessionView
	Finished      []sessionView
	// Locks are the locks shown: first the ones a person may release
	// (stale or orphaned), then the others, by path, each part cut at a
	// cap; HiddenLocks counts what the caps left out (/api/locks lists
	// everything).
	Locks       []lockView
	HiddenLocks int
	Corrupt     []string      // "file: reason" of the unreadable records
	Events      []Event       // newest first
	History     []historyView // the end of the audit log, newest first
	ReadOnly    bool
	Timeout     string
	// OwnTimeout is the server's configured timeout when the project's
	// is longer and applies instead; empty otherwise.
	OwnTimeout string
	// NowMS and TimeoutMS let the page tick ages between changes: the
	// instant the view is rendered (the page's clock is set by it, not by
	// the older instant of the snapshot) and the timeout, in milliseconds.
	NowMS, TimeoutMS int64
}

// historyView is one entry of the audit log, as shown.
type historyView struct {
	Time, When, Action, Path, Who, PreviousOwner, SessionID string
}

type sessionView struct {
	TodoPast, TodoFuture string
	AllLocks             []lockView    // every lock it holds, up to maxAllLocks
	History              []historyView // its entries of the audit log

	// Child is set for a sub-agent's session, listed under its parent's
	// (Parent).
	Child  bool
	Parent string

	ID, Provider, AIVersion, StartedAt, WorkingOn, Status, Issues string
	Idle, HoldsStale                                              bool
	Todo                                                          string     // present todos
	Handoff                                                       string     // as written in the registry
	HandoffURL                                                    string     // empty when the file is not served
	Locks                                                         []lockView // the first maxSessionLocks
	MoreLocks                                                     int        // how many more it holds
}

type lockView struct {
	Path       string // relative to the project when inside it
	Real       string // real path, sent back to release it
	File       string
	Owner      string // as shown: escaped (report.Escape)
	OwnerID    string // exact, sent back to release it
	State      string // locked, stale
	Stale      bool
	Area       bool // an area lock: the folder and everything below it
	Age, Left  string
	Stamp      string // stampString of the record
	RenewedMS  int64  // the stamp, milliseconds since the Unix epoch: the page ticks ages from it
	Orphaned   bool
	Releasable bool
	// Conflict, when set, says which other worktree changed the file too.
	Conflict string
	// Renewing is set for a fresh lock whose owner is no working session
	// of the registry (unregistered, or an agent-registry 0.2 agent): its
	// owner still renews it, so it is not released from the page.
	Renewing bool
	// HeldAs, for a lock a pre-edit hook took, says why it is held
	// (report.HeldAsWords: "editing (last edit 3s ago)", "idle for 1m5s");
	// empty for a lock taken on purpose, the common case, left unmarked.
	HeldAs string
	// StaleView, when set, says that the holder's view of the file is
	// stale ("changed by claude-y"): it must read the file again before it
	// writes it (docs/read-versions.md).
	StaleView string
}

// maxEvents is how many recent events the server keeps and the page shows.
const maxEvents = 50

// The page lists at most maxAttention locks a person may release, at most
// maxQuiet other locks, and at most maxSessionLocks paths per session: a
// person reads no table of 10,000 rows, and the page stays fast to render.
// The counts and /api/locks cover every lock.
const (
	maxAttention    = 500
	maxQuiet        = 200
	maxSessionLocks = 5
	maxAllLocks     = 200
	maxHistory      = 100
)

// buildView turns a snapshot into the page's view.
func (s *Server) buildView(snap *Snapshot, events []Event) view {
	v := view{
		Taken:    snap.Taken.Local().Format("15:04:05"),
		Project:  report.Escape(s.ws.Project),
		LockDir:  report.Escape(s.ws.LockDir),
		Registry: report.Escape(s.ws.RegistryPath),
		Counts:   snap.counts(),
		ReadOnly: s.opts.ReadOnly,
		Timeout:  report.Human(s.locker.Timeout()),
		NowMS:    s.now().UnixMilli(), TimeoutMS: s.locker.Timeout().Milliseconds(),
	}
	if own := s.ws.OwnTimeout(); own > 0 && own < s.locker.Timeout() {
		v.OwnTimeout = report.Human(own)
	}
	if snap.RegistryErr != nil {
		v.RegistryError = report.Escape(snap.RegistryErr.Error())
	}
	owners := snap.owners()
	byOwner := map[string][]lockView{}
	held := map[string]int{}
	holdsStale := map[string]bool{} // over every lock, not only the ones listed
	allByOwner := map[string][]lockView{}
	var attention, quiet []lockView
	for _, l := range snap.Locks {
		if l.Owner == "" {
			continue
		}
		lv := lockView{
			Path: report.Escape(report.Rel(s.ws.Project, l.Name())), Real: l.Path, File: l.Ref, Owner: report.Escape(l.Owner), OwnerID: l.Owner, State: "locked",
			Age: report.Human(l.Age), Left: report.Human(max(l.Left, 0)), Stamp: stampString(l.Stamp), RenewedMS: l.Stamp.UnixMilli(),
			Area: l.Area(), Conflict: snap.Conflicts[l.Path],
		}
		lv.Orphaned = owners.Orphaned(l)
		lv.Renewing = !l.Stale && !owners.Finished(l.Owner) && !owners.Working(l.Owner)
		if heldAs := report.HeldAs(l); heldAs != "explicit" {
			lv.HeldAs = report.HeldAsWords(heldAs, report.UnusedSeconds(l))
		}
		if sv, ok := snap.StaleViews[l.Path]; ok {
			lv.StaleView = sv.Why
			if sv.By != nil {
				lv.StaleView += " by " + report.Escape(sv.By.Session)
			}
		}
		if lv.Area && !strings.HasSuffix(lv.Path, "/") {
			lv.Path += "/" // report.Rel cleans the area's trailing slash away
		}
		if l.Stale {
			lv.State, lv.Stale = "stale", true
			holdsStale[l.Owner] = true
		}
		// A record that does not say its path (0.1.0's form) cannot be
		// named to the engine: agentlock release --force can, by path.
		lv.Releasable = !s.opts.ReadOnly && l.Path != "" && owners.Releasable(l)
		switch {
		case owners.Releasable(l):
			if len(attention) < maxAttention {
				attention = append(attention, lv)
			} else {
				v.HiddenLocks++
			}
		case len(quiet) < maxQuiet:
			quiet = append(quiet, lv)
		default:
			v.HiddenLocks++
		}
		if held[l.Owner]++; held[l.Owner] <= maxSessionLocks {
			byOwner[l.Owner] = append(byOwner[l.Owner], lv)
		}
		if held[l.Owner] <= maxAllLocks {
			allByOwner[l.Owner] = append(allByOwner[l.Owner], lv)
		}
	}
	v.Locks = append(attention, quiet...)
	for _, p := range snap.Problems {
		v.Corrupt = append(v.Corrupt, report.Escape(p.Error()))
	}
	history := make([]historyView, 0, len(snap.History))
	for i := len(snap.History) - 1; i >= 0; i-- {
		h := snap.History[i]
		history = append(history, historyView{
			Time: h.Time, When: historyTime(h.Time), Action: h.Action, Path: report.Escape(report.Rel(s.ws.Project, h.Path)),
			Who: report.Escape(h.Who), PreviousOwner: report.Escape(h.PreviousOwner), SessionID: report.Escape(h.SessionID),
		})
	}
	v.History = history
	// Each session followed by its sub-agents' (report.Nest).
	for _, n := range report.Nest(snap.Sessions) {
		a := snap.Sessions[n.Index]
		e := report.Escape
		sv := sessionView{Child: n.Child, Parent: e(a.Parent),
			ID: e(a.SessionID), Provider: e(a.Provider), AIVersion: e(a.AIVersion), StartedAt: e(a.StartedAt),
			WorkingOn: e(a.WorkingOn), Status: e(a.Status), Issues: e(a.Issues), Idle: snap.Idle[a.SessionID],
			Todo: e(strings.Join(a.Todo.Present, "; ")), Handoff: e(a.Handoff), Locks: byOwner[a.SessionID],
			MoreLocks: max(held[a.SessionID]-maxSessionLocks, 0),
		}
		if sv.Idle {
			sv.Status = core.StatusIdle
		}
		sv.HoldsStale = holdsStale[a.SessionID]
		sv.TodoPast, sv.TodoFuture = e(strings.Join(a.Todo.Past, "; ")), e(strings.Join(a.Todo.Future, "; "))
		sv.AllLocks = allByOwner[a.SessionID]
		for _, h := range history {
			if h.SessionID == sv.ID || h.PreviousOwner == sv.ID {
				sv.History = append(sv.History, h)
			}
		}
		if a.Handoff != "" && s.handoffFile(a.Handoff) != "" {
			sv.HandoffURL = "handoff?session=" + url.QueryEscape(a.SessionID)
		}
		if a.Status == core.StatusFinished {
			v.Finished = append(v.Finished, sv)
		} else {
			v.Working = append(v.Working, sv)
		}
	}
	for i := len(events) - 1; i >= 0; i-- {
		ev := events[i]
		ev.Path, ev.SessionID, ev.PreviousOwner = report.Escape(ev.Path), report.Escape(ev.SessionID), report.Escape(ev.PreviousOwner)
		v.Events = append(v.Events, ev)
	}
	return v
}

// historyTime shows an audit entry's time for people.
func historyTime(rfc string) string {
	t, err := time.Parse(time.RFC3339Nano, rfc)
	if err != nil {
		return rfc
	}
	return t.Local().Format("Jan 2 15:04:05")
}

// eventTime shows an event's time for people.
func eventTime(rfc string) string {
	t, err := time.Parse(time.RFC3339, rfc)
	if err != nil {
		return rfc
	}
	return t.Local().Format("15:04:05")
}
