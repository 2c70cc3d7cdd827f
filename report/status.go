package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/agentlock/agentlock/core"
)

// Status is the record of one lock in a status listing.
type Status struct {
	Kind      string   `json:"kind"` // KindLock
	Path      string   `json:"path"` // "" when the lock file does not say (empty, 0.1.0's form, corrupt)
	File      string   `json:"file"`
	State     string   `json:"state"` // locked, stale, free, corrupt
	SessionID string   `json:"session_id,omitempty"`
	Age       *float64 `json:"age,omitempty"`
	ExpiresIn *float64 `json:"expires_in,omitempty"`
	Error     string   `json:"error,omitempty"` // why a corrupt record cannot be read
}

// Statuses reports a listing: every held or stale lock (free ones too with
// withFree), then every record that could not be read.
func Statuses(states []core.State, problems []error, withFree bool) []Status {
	var out []Status
	for _, s := range states {
		rec := Status{Kind: KindLock, Path: s.Path, File: s.Ref, State: "free"}
		if s.Owner != "" {
			age, left := Seconds(s.Age), Seconds(max(s.Left, 0))
			rec.SessionID, rec.Age, rec.ExpiresIn, rec.State = s.Owner, &age, &left, "locked"
			if s.Stale {
				rec.State = "stale"
			}
		} else if !withFree {
			continue
		}
		out = append(out, rec)
	}
	for _, p := range problems {
		rec := Status{Kind: KindLock, State: "corrupt", Error: p.Error()}
		var corrupt *core.CorruptError
		if errors.As(p, &corrupt) {
			rec.File, rec.Error = corrupt.Ref, corrupt.Reason
		}
		out = append(out, rec)
	}
	return out
}

// WriteStatusTable prints records as a table for people.
func WriteStatusTable(w io.Writer, records []Status) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "PATH\tOWNER\tAGE\tLEFT\tSTATE")
	for _, r := range records {
		path, owner, age, left := r.Path, r.SessionID, "-", "-"
		if path == "" {
			path = r.File
		}
		if owner == "" {
			owner = "-"
		}
		if r.Age != nil {
			age, left = fmt.Sprintf("%.1fs", *r.Age), fmt.Sprintf("%.1fs", *r.ExpiresIn)
		}
		state := r.State
		if r.Error != "" {
			state += ": " + r.Error
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", Escape(path), Escape(owner), age, left, Escape(state))
	}
	return tw.Flush()
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
// in a shape that fits a terminal. Empty fields show as "-". Entries of the
// registry that are not sessions are skipped.
//
// A working session named in idle shows as core.StatusIdle.
func WriteSessionTable(w io.Writer, sessions []core.Session, idle map[string]bool) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	first := true
	for _, s := range sessions {
		if !s.IsSession() {
			continue
		}
		if !first {
			fmt.Fprintln(tw)
		}
		first = false
		fmt.Fprintf(tw, "%s  %s  %s %s  started %s\n", field(s.SessionID), field(shownStatus(s, idle)), field(s.Provider), field(s.AIVersion), field(s.StartedAt))
		for _, f := range []struct{ name, value string }{
			{"working on", s.WorkingOn},
			{"todo past", list(s.Todo.Past)},
			{"todo present", list(s.Todo.Present)},
			{"todo future", list(s.Todo.Future)},
			{"space", list(s.Space)},
			{"do not touch", list(s.DoNotTouch)},
			{"issues", s.Issues},
			{"handoff", s.Handoff},
		} {
			fmt.Fprintf(tw, "  %s\t%s\n", f.name, field(f.value))
		}
	}
	return tw.Flush()
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
