// Package report turns the results of agentlock's operations into what its
// front ends show: the records of the command line's --json output (one
// JSON object per line, with the field names of agent-registry 0.2's
// result dictionaries, every record carrying the path) and the matching
// line for people. The schemas are a contract: scripts, agents and the
// dashboard read them, so fields are added, never renamed.
package report

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"
)

// Seconds renders a duration as seconds with millisecond precision, the
// unit of the "age" fields of agent-registry 0.2.
func Seconds(d time.Duration) float64 {
	return math.Round(d.Seconds()*1000) / 1000
}

// Human renders a duration for people: "3.2s", "2m5s".
func Human(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	if d < time.Minute {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

// ShellQuote quotes s for a POSIX shell, so that a command shown to an
// agent can be copied as it is.
func ShellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ShellArg is s as one argument of a POSIX shell command: as it is when
// it holds only characters no shell treats specially, else ShellQuote(s).
func ShellArg(s string) string {
	if plainShellWord(s) {
		return s
	}
	return ShellQuote(s)
}

// ShellWord is s as one argument of a POSIX shell command, for a command
// quoted inside a message ('agentlock heartbeat "my file"'): as it is when
// no shell treats its characters specially, else in double quotes where
// they are enough, else ShellQuote(s).
func ShellWord(s string) string {
	switch {
	case plainShellWord(s):
		return s
	case !strings.ContainsAny(s, "\"$`\\!"):
		return `"` + s + `"`
	}
	return ShellQuote(s)
}

// ShellWords is each word as ShellWord has it, joined by spaces.
func ShellWords(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = ShellWord(w)
	}
	return strings.Join(quoted, " ")
}

// plainShellWord reports whether s holds only characters no shell treats
// specially (and is not empty).
func plainShellWord(s string) bool {
	return s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@%", r))
	}) < 0
}

// SuggestedWait is the wait that refusals suggest: long enough for a
// holder to finish a short edit, short enough to stay under the
// two-minute limit that agents' harnesses put on one tool call.
const SuggestedWait = 90 * time.Second

// WaitCommand is the complete command, ready to copy, that waits for path
// and takes it: no session is typed, agentlock resolves it.
func WaitCommand(path string) string {
	return fmt.Sprintf("agentlock acquire --wait %ds %s", int(SuggestedWait.Seconds()), ShellArg(path))
}

// Error is the record printed, with --json, when a command fails for a
// reason other than a refusal (usage, I/O, corrupt file).
type Error struct {
	Kind     string `json:"kind"` // "error"
	Error    string `json:"error"`
	ExitCode int    `json:"exit_code"`
}

// Version is the record of version.
type Version struct {
	Kind    string `json:"kind"` // "version"
	Version string `json:"version"`
	// Commit is the git commit the binary was built from and Date that
	// commit's date (RFC 3339): stamped by the release build, else from
	// the Go build information; "" when unknown (go install pkg@version
	// records none).
	Commit string `json:"commit"`
	Date   string `json:"date"`
}

// MarshalJSON writes the record with its kind, "version".
func (v Version) MarshalJSON() ([]byte, error) {
	type plain Version
	p := plain(v)
	p.Kind = "version"
	return json.Marshal(p)
}

// MarshalJSON writes the record with its kind, "error".
func (e Error) MarshalJSON() ([]byte, error) {
	type plain Error
	p := plain(e)
	p.Kind = "error"
	return json.Marshal(p)
}

// Change is the record of one step of init or uninit: a file or folder
// created, updated, left unchanged, kept, removed, or — with --dry-run and
// --check — what would be done; notes for people are changes too.
type Change struct {
	Kind   string `json:"kind"`   // "change"
	Action string `json:"action"` // see docs/json.md
	Path   string `json:"path,omitempty"`
	Detail string `json:"detail,omitempty"` // purpose, reason kept, note, or a dry run's diff
}

// MarshalJSON writes the record with its kind, "change".
func (c Change) MarshalJSON() ([]byte, error) {
	type plain Change
	p := plain(c)
	p.Kind = "change"
	return json.Marshal(p)
}

// DoctorCheck is the record of one check of doctor: what it looked at, its
// verdict, what it found, and what to do.
type DoctorCheck struct {
	Kind   string `json:"kind"`   // "check"
	Name   string `json:"name"`   // the check: "lockdir-filesystem", "integration-codex", ...
	Status string `json:"status"` // "ok", "warn" or "problem"
	Detail string `json:"detail"`
	Fix    string `json:"fix,omitempty"` // empty when Status is "ok"
}

// MarshalJSON writes the record with its kind, "check".
func (c DoctorCheck) MarshalJSON() ([]byte, error) {
	type plain DoctorCheck
	p := plain(c)
	p.Kind = "check"
	return json.Marshal(p)
}
