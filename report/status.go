package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/store"
	"github.com/agentlock/agentlock/workspace"
)

// Status is the record of one lock in a status listing.
type Status struct {
	Kind      string   `json:"kind"` // KindLock
	Path      string   `json:"path"` // "" when the lock file does not say (empty, 0.1.0's form, corrupt)
	File      string   `json:"file"`
	State     string   `json:"state"` // locked, stale, free, corrupt, busy
	SessionID string   `json:"session_id,omitempty"`
	Age       *float64 `json:"age,omitempty"`
	ExpiresIn *float64 `json:"expires_in,omitempty"`
	Error     string   `json:"error,omitempty"` // why a corrupt or busy record cannot be read
	Area      bool     `json:"area,omitempty"`  // an area lock: the folder path (ending in "/") and everything below it
	// AlsoChangedIn names the other worktrees of the repository that
	// changed the same file ("../wt-b (feat-b)"): a merge conflict ahead
	// (docs/worktrees.md).
	AlsoChangedIn []string `json:"also_changed_in,omitempty"`
	// Orphaned is set when the owner is gone (workspace.Owners.Orphaned).
	Orphaned bool `json:"orphaned,omitempty"`
	// HeldAs says why a held or stale lock is held: "explicit" (its
	// session took it on purpose: it stays until released or expired;
	// also a lock whose note is lost), "editing" (a pre-edit hook took it
	// for an edit), "idle" (a hook's lock unused for longer than the idle
	// bound: anyone may take it).
	HeldAs string `json:"held_as,omitempty"`
	// Unused is, for a hook's lock under an idle bound, the seconds since
	// its last use (the last edit its hooks let through).
	Unused *float64 `json:"unused,omitempty"`
	// StaleView says that the holder's view of the file is stale (read
	// versions: "changed", "unsettled", "damaged"): it must read the file
	// again before it writes it; ChangedBy is who changed it, when
	// agentlock knows (docs/read-versions.md). The same fields as check's.
	StaleView string `json:"stale_view,omitempty"`
	ChangedBy string `json:"changed_by,omitempty"`
}

// HeldAs words why the lock of s is held (Status.HeldAs): "" when free.
func HeldAs(s core.State) string {
	switch {
	case s.Owner == "":
		return ""
	case s.Idle:
		return "idle"
	case s.Taken == store.TakenByHook:
		return "editing"
	}
	return "explicit"
}

// Statuses reports a listing: every held or stale lock (free ones too with
// withFree), then every record that could not be read.
func Statuses(states []core.State, problems []error, withFree bool) []Status {
	out := make([]Status, 0, len(states)+len(problems))
	// The ages and times left of all records, in one allocation.
	times := make([]float64, 0, 2*len(states))
	for _, s := range states {
		rec := Status{Kind: KindLock, Path: s.Path, File: s.Ref, State: "free", Area: s.Area()}
		if s.Owner != "" {
			times = append(times, Seconds(s.Age), Seconds(max(s.Left, 0)))
			age, left := &times[len(times)-2], &times[len(times)-1]
			rec.SessionID, rec.Age, rec.ExpiresIn, rec.State = s.Owner, age, left, "locked"
			if s.Stale {
				rec.State = "stale"
			}
			rec.HeldAs, rec.Unused = HeldAs(s), UnusedSeconds(s)
		} else if !withFree {
			continue
		}
		out = append(out, rec)
	}
	for _, p := range problems {
		rec := Status{Kind: KindLock, State: "corrupt", Error: p.Error()}
		var corrupt *core.CorruptError
		var busy *core.BusyError
		switch {
		case errors.As(p, &corrupt):
			rec.File, rec.Error = corrupt.Ref, corrupt.Reason
		case errors.As(p, &busy):
			// Not damage: another process holds the file's flock (a
			// process stopped inside a change, say); what it records is
			// unknown until it lets go.
			rec.State, rec.File = "busy", busy.Ref
			rec.Error = fmt.Sprintf("still locked by another process after %s (a process stopped or stuck while changing it?)", busy.Waited)
		}
		out = append(out, rec)
	}
	return out
}

// heldAsCell words why r is held, for people (HeldAsWords); "-" when
// free.
func heldAsCell(r Status) string {
	if r.HeldAs == "" {
		return "-"
	}
	return HeldAsWords(r.HeldAs, r.Unused)
}

// staleViewCell words a record's stale view for people: "changed by
// claude-y", "changed", "unsettled", "damaged"; "-" for none.
func staleViewCell(r Status) string {
	switch {
	case r.StaleView == "":
		return "-"
	case r.ChangedBy != "":
		return Shorten(Escape(r.StaleView+" by "+r.ChangedBy), maxIDWidth+11)
	}
	return Escape(r.StaleView)
}

// UnusedSeconds is Status.Unused of s: the seconds since the last use of a
// hook's lock under an idle bound; nil otherwise.
func UnusedSeconds(s core.State) *float64 {
	if s.Used.IsZero() {
		return nil
	}
	unused := Seconds(max(s.Age+s.Stamp.Sub(s.Used), 0))
	return &unused
}

// HeldAsWords words why a lock is held (Status.HeldAs, with Unused), for
// people: "explicit", "editing (last edit 3s ago)", "idle for 1m5s".
func HeldAsWords(heldAs string, unused *float64) string {
	switch {
	case unused == nil:
		return heldAs
	case heldAs == "idle":
		return "idle for " + Human(secondsDuration(*unused))
	}
	return heldAs + " (last edit " + Human(secondsDuration(*unused)) + " ago)"
}

// WriteStatusTable prints records as a table for people that fits in
// TableWidth columns: paths relative to the project root (root; "" keeps
// them absolute), long session ids, states and paths shortened with an
// ellipsis, durations in Human's one format.
func WriteStatusTable(w io.Writer, records []Status, root string) error {
	header := []string{"PATH", "OWNER", "AGE", "LEFT", "STATE"}
	// Each further column is there only when a record has something to
	// say in it: why a hook's lock is held, changes in other worktrees.
	heldAs := slices.ContainsFunc(records, func(r Status) bool { return r.HeldAs == "editing" || r.HeldAs == "idle" })
	also := slices.ContainsFunc(records, func(r Status) bool { return len(r.AlsoChangedIn) > 0 })
	staleView := slices.ContainsFunc(records, func(r Status) bool { return r.StaleView != "" })
	if heldAs {
		header = append(header, "HELD AS")
	}
	if also {
		header = append(header, "ALSO CHANGED IN")
	}
	if staleView {
		header = append(header, "STALE VIEW")
	}
	columns := len(header)
	// Every row's cells in one allocation: a listing may have 10,000 rows.
	cells := make([]string, columns, columns*(len(records)+1))
	copy(cells, header)
	rows := make([][]string, 1, len(records)+1)
	rows[0] = cells[:columns:columns]
	var problems []string
	for _, r := range records {
		path, owner, age, left := r.Path, r.SessionID, "-", "-"
		if path == "" {
			path = r.File
		}
		if owner == "" {
			owner = "-"
		}
		if r.Age != nil {
			age, left = Human(secondsDuration(*r.Age)), Human(secondsDuration(*r.ExpiresIn))
		}
		if r.Error != "" {
			problems = append(problems, linef("%s: %s", path, r.Error))
		}
		state := Escape(r.State)
		if r.Orphaned && r.State == "locked" {
			state = "orphaned" // a fresh lock whose session finished
		}
		if r.Area {
			state += " (area)"
		}
		cells = append(cells, Escape(Rel(root, path)), Shorten(Escape(owner), maxIDWidth), age, left, state)
		if heldAs {
			cells = append(cells, heldAsCell(r))
		}
		if also {
			cell := "-"
			if len(r.AlsoChangedIn) > 0 {
				cell = Escape(strings.Join(r.AlsoChangedIn, ", "))
			}
			cells = append(cells, cell)
		}
		if staleView {
			cells = append(cells, staleViewCell(r))
		}
		rows = append(rows, cells[len(cells)-columns:len(cells):len(cells)])
	}
	if err := writeFitted(w, rows, 0); err != nil {
		return err
	}
	// Why a record is corrupt does not fit a column: it follows the
	// table, whole, for the person who will repair the file.
	for _, p := range problems {
		if _, err := fmt.Fprintln(w, p); err != nil {
			return err
		}
	}
	return writeFamilies(w, records)
}

// writeFamilies prints, after the lock table, the holders of locks with
// the sub-agents' sessions nested under their parent's, when a sub-agent
// holds a lock (known by the form of its id, core.ParentOf): nothing
// otherwise.
func writeFamilies(w io.Writer, records []Status) error {
	held := map[string]int{}
	var parents []string
	children := map[string][]string{}
	for _, r := range records {
		if r.SessionID == "" || r.State != "locked" {
			continue
		}
		if held[r.SessionID]++; held[r.SessionID] > 1 {
			continue
		}
		if p := core.ParentOf(r.SessionID); p != "" {
			if len(children[p]) == 0 {
				parents = append(parents, p)
			}
			children[p] = append(children[p], r.SessionID)
		}
	}
	if len(parents) == 0 {
		return nil
	}
	locks := func(n int) string {
		if n == 1 {
			return "1 lock"
		}
		if n == 0 {
			return "no lock"
		}
		return fmt.Sprintf("%d locks", n)
	}
	slices.Sort(parents)
	var b strings.Builder
	b.WriteString("\nsub-agents holding locks, under their session:\n")
	for _, p := range parents {
		fmt.Fprintf(&b, "  %s  %s\n", Escape(p), locks(held[p]))
		slices.Sort(children[p])
		for _, c := range children[p] {
			fmt.Fprintf(&b, "    └ %s  %s\n", Escape(c), locks(held[c]))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// writeFitted prints rows as columns two spaces apart, shortening column
// flex (from its left: it holds paths) so that every line fits TableWidth.
// The table is written with one write: a listing of 10,000 locks is
// 10,000 lines.
func writeFitted(w io.Writer, rows [][]string, flex int) error {
	const gap = 2
	// runes[r][i] is the width of rows[r][i], counted once.
	runes := make([][]int, len(rows))
	widths := make([]int, len(rows[0]))
	counts := make([]int, len(rows)*len(widths)) // runes' cells, in one allocation
	size := 0
	for r, row := range rows {
		runes[r] = counts[r*len(widths) : r*len(widths)+len(row) : r*len(widths)+len(row)]
		for i, c := range row {
			runes[r][i] = utf8.RuneCountInString(c)
			widths[i] = max(widths[i], runes[r][i])
			size += len(c) + gap
		}
	}
	others := gap * (len(widths) - 1)
	for i, wd := range widths {
		if i != flex {
			others += wd
		}
	}
	if room := TableWidth - others; widths[flex] > room {
		widths[flex] = max(room, 8)
		for r, row := range rows {
			if runes[r][flex] > widths[flex] {
				row[flex] = shortenLeft(row[flex], widths[flex])
				runes[r][flex] = utf8.RuneCountInString(row[flex])
			}
		}
	}
	b := make([]byte, 0, size+len(rows)*TableWidth/2)
	for r, row := range rows {
		// Trailing spaces are left out: pad a cell only when a cell that
		// is not empty follows it.
		last := len(row) - 1
		for last > 0 && row[last] == "" {
			last--
		}
		for i, c := range row[:last+1] {
			b = append(b, c...)
			if i < last {
				for range widths[i] - runes[r][i] + gap {
					b = append(b, ' ')
				}
			}
		}
		b = append(b, '\n')
	}
	_, err := w.Write(b)
	return err
}

// Session is the record of a session: shown, or changed by a registry
// command. Its fields are agent-registry 0.2's keys, lists never null,
// plus the registry it is kept in and whether it shows as idle (its
// status stays 0.2's OnWorking).
type Session struct {
	Kind string `json:"kind"` // "session"
	core.Session
	Registry string `json:"registry"`
	Idle     bool   `json:"idle"`
	// StaleViews are, in show, the files the session read that changed
	// since: it must read them again before it writes them
	// (docs/read-versions.md).
	StaleViews []StaleView `json:"stale_views,omitempty"`
}

// StaleView is a session's stale view of a file it read: the file, why
// (check's stale_view: "changed", "unsettled", "damaged") and who changed
// it when agentlock knows.
type StaleView struct {
	Path      string `json:"path"`
	StaleView string `json:"stale_view"`
	ChangedBy string `json:"changed_by,omitempty"`
}

// StaleViewsOf are the records of a session's stale views.
func StaleViewsOf(views []workspace.View) []StaleView {
	out := make([]StaleView, 0, len(views))
	for _, v := range views {
		sv := StaleView{Path: v.Path, StaleView: v.Why}
		if v.By != nil {
			sv.ChangedBy = v.By.Session
		}
		out = append(out, sv)
	}
	return out
}

// sessionRecord is the record of s, kept in reg.
func sessionRecord(s core.Session, reg string, idle bool) Session {
	for _, l := range []*[]string{&s.Todo.Past, &s.Todo.Present, &s.Todo.Future, &s.Space, &s.DoNotTouch} {
		if *l == nil {
			*l = []string{}
		}
	}
	return Session{Kind: "session", Session: s, Registry: reg, Idle: idle && s.Status == core.StatusWorking}
}

// Shown is the record of a session of agentlock show.
func Shown(s core.Session, reg string, idle bool) Session { return sessionRecord(s, reg, idle) }

// SessionChanged reports a session after verb ("registered", "updated",
// ...) in the registry reg.
func SessionChanged(s core.Session, reg, verb string) (Session, string) {
	return sessionRecord(s, reg, false), linef("%s %s (%s) in %s", verb, s.SessionID, s.Status, reg)
}

// Finish is the record of a finished session: a session record with
// the paths of the locks it released (released is a bool in lock records).
type Finish struct {
	Session
	ReleasedPaths []string `json:"released_paths"`
}

// Finished reports a finished session and the locks it released.
func Finished(s core.Session, reg string, released []core.State) (Finish, string) {
	rec := Finish{Session: sessionRecord(s, reg, false), ReleasedPaths: []string{}}
	line := linef("finished %s; released %d lock(s)", s.SessionID, len(released))
	for _, st := range released {
		rec.ReleasedPaths = append(rec.ReleasedPaths, st.Name())
		line += "\n  released " + Escape(st.Name())
	}
	return rec, line
}

// WriteSessionTable prints sessions for people: per session, a line with
// its id, status, provider, AI version and start, then one line for each
// of its other fields — all thirteen columns of agent-registry 0.2's table,
// in a shape that fits a terminal: long values wrap between words onto
// indented lines within TableWidth, never cut (a word wider than a line,
// such as a long id, stands whole on its own), paths relative to the
// project root (root; ""
// keeps them absolute). Empty fields show as "-". Entries of the registry
// that are not sessions are skipped. A working session named in idle shows
// as core.StatusIdle.
func WriteSessionTable(w io.Writer, sessions []core.Session, idle map[string]bool, root string) error {
	var b strings.Builder
	first := true
	for _, n := range Nest(sessions) {
		s := sessions[n.Index]
		if !first {
			b.WriteString("\n")
		}
		first = false
		// A sub-agent's session stands under its parent's, shifted right.
		lead, in := "", "  "
		if n.Child {
			lead, in = "  └ sub-agent ", "      "
		}
		// Whole values, wrapped, never cut: an id is copied from here
		// into finish --session.
		head := fmt.Sprintf("%s%s  %s  %s %s  started %s", lead, field(s.SessionID), field(shownStatus(s, idle)),
			field(s.Provider), field(s.AIVersion), field(s.StartedAt))
		if utf8.RuneCountInString(head) > TableWidth {
			head = fmt.Sprintf("%s%s\n%s%s  %s %s  started %s", lead, field(s.SessionID), in, field(shownStatus(s, idle)),
				field(s.Provider), field(s.AIVersion), field(s.StartedAt))
		}
		b.WriteString(head + "\n")
		rel := func(paths []string) string {
			out := make([]string, len(paths))
			for i, p := range paths {
				out[i] = Rel(root, p)
			}
			return list(out)
		}
		for _, f := range []struct{ name, value string }{
			{"working on", s.WorkingOn},
			{"todo past", list(s.Todo.Past)},
			{"todo present", list(s.Todo.Present)},
			{"todo future", list(s.Todo.Future)},
			{"space", space(s, root)},
			{"do not touch", rel(s.DoNotTouch)},
			{"issues", s.Issues},
			{"handoff", Rel(root, s.Handoff)},
		} {
			b.WriteString(wrap(fmt.Sprintf("%s%-12s  ", in, f.name), field(f.value), strings.Repeat(" ", 14+len(in)), TableWidth))
		}
		if s.Worktree != "" {
			// Repository scope: where the session works.
			where := s.Worktree
			if s.Branch != "" {
				where += " (branch " + s.Branch + ")"
			}
			b.WriteString(wrap(fmt.Sprintf("%s%-12s  ", in, "worktree"), field(where), strings.Repeat(" ", 14+len(in)), TableWidth))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Nested is one session of a listing in the order that nests sub-agents
// under their parent (Nest).
type Nested struct {
	// Index is the session's index in the listing.
	Index int
	// Child is set for a sub-agent's session listed under its parent.
	Child bool
}

// Nest orders the sessions of a listing (the registry's order) so that
// each session is followed by the sessions of its sub-agents (their
// Parent), in their own order; a sub-agent whose parent is not listed
// stays where it is. Entries that are not sessions are left out.
func Nest(sessions []core.Session) []Nested {
	listed := map[string]bool{}
	for _, s := range sessions {
		if s.IsSession() {
			listed[s.SessionID] = true
		}
	}
	children := map[string][]int{}
	for i, s := range sessions {
		if s.IsSession() && s.Parent != "" && s.Parent != s.SessionID && listed[s.Parent] {
			children[s.Parent] = append(children[s.Parent], i)
		}
	}
	out := make([]Nested, 0, len(sessions))
	done := map[int]bool{}
	var emit func(i int, child bool)
	emit = func(i int, child bool) {
		if done[i] {
			return // a cycle of parents, written by hand
		}
		done[i] = true
		out = append(out, Nested{Index: i, Child: child})
		for _, c := range children[sessions[i].SessionID] {
			emit(c, true)
		}
	}
	for i, s := range sessions {
		if s.IsSession() && !(s.Parent != "" && s.Parent != s.SessionID && listed[s.Parent]) {
			emit(i, false)
		}
	}
	for i, s := range sessions {
		if s.IsSession() && !done[i] {
			emit(i, false) // in a cycle: listed all the same
		}
	}
	return out
}

// space shows s's space relative to root, the entries held as areas
// marked (see core.Session.MarkedSpace).
func space(s core.Session, root string) string {
	out := make([]string, len(s.Space))
	for i, e := range s.Space {
		out[i] = Rel(root, e)
		if s.HeldArea(e) {
			out[i] += " " + core.AreaMark
		}
	}
	return list(out)
}

// shownStatus is s's status for people: idle for a working session in idle.
func shownStatus(s core.Session, idle map[string]bool) string {
	if s.Status == core.StatusWorking && idle[s.SessionID] {
		return core.StatusIdle
	}
	return s.Status
}

// field shows a value on one line, "-" when empty.
func field(v string) string {
	if v = oneLine(v); v == "" {
		return "-"
	}
	return v
}

// list shows a list's items separated by ", ".
func list(items []string) string {
	return strings.Join(items, ", ")
}

// oneLine keeps a table cell on one line, its other control characters
// escaped.
func oneLine(s string) string {
	return Escape(strings.NewReplacer("\n", " ", "\r", " ", "\t", " ").Replace(s))
}

// Whoami is the record of whoami.
type Whoami struct {
	Kind      string `json:"kind"` // "whoami"
	SessionID string `json:"session_id"`
	Source    string `json:"source"`
}

// Env is the record of env: where the workspace of a folder keeps its state.
type Env struct {
	Kind     string `json:"kind"` // "env"
	Registry string `json:"registry"`
	LockDir  string `json:"lock_dir"`
}

// Exports renders e as shell export lines.
func (e Env) Exports() string {
	return fmt.Sprintf("export AGENT_REGISTRY_PATH=%s\nexport AGENT_REGISTRY_LOCK_DIR=%s", ShellQuote(e.Registry), ShellQuote(e.LockDir))
}

// MarshalJSON writes the record with its kind, "whoami".
func (w Whoami) MarshalJSON() ([]byte, error) {
	type plain Whoami
	p := plain(w)
	p.Kind = "whoami"
	return json.Marshal(p)
}

// MarshalJSON writes the record with its kind, "env".
func (e Env) MarshalJSON() ([]byte, error) {
	type plain Env
	p := plain(e)
	p.Kind = "env"
	return json.Marshal(p)
}
