// Package report turns the results of agentlock's operations into what its
// front ends show: the records of the command line's --json output (one
// JSON object per line, with the field names of agent-registry 0.2's
// result dictionaries, every record carrying the path) and the matching
// line for people. The schemas are a contract: scripts, agents and the
// dashboard read them, so fields are added, never renamed.
package report

import (
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

// Error is the record printed, with --json, when a command fails for a
// reason other than a refusal (usage, I/O, corrupt file).
type Error struct {
	Error    string `json:"error"`
	ExitCode int    `json:"exit_code"`
}
