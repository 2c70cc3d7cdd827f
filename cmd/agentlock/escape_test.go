package main_test

import (
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/stretchr/testify/assert"
)

// rawHostile returns the hostile characters out holds, as they are.
func rawHostile(out string) []string {
	var found []string
	for _, r := range out {
		if r == '\n' || r == '\t' {
			continue
		}
		if unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029' {
			found = append(found, string(r))
		}
	}
	return found
}

// Every line agentlock prints for people escapes control and bidi
// characters of the ids, paths and texts it shows (a session id and paths
// written by agent-registry 0.2, which takes any argument), so that none
// can rewrite the terminal or reorder a line to lie about who holds what.
func TestHumanOutputEscapesControlAndBidiCharacters(t *testing.T) {
	s := newSandbox(t)
	evil := "ev\x1b[31mil\x01\x7f\u0085\u009b\u202e\u2066\u200f\u2028-1"
	paths := []string{s.path("src/\u202egnp.go"), s.path("src/\x1b]0;title\x07.go"), s.path("src/\u2067a\u2069\x01.go")}
	for _, p := range paths {
		s.plant(p, record(evil, time.Second, p))
	}
	runs := [][]string{
		{"status"},
		{"status", "--all"},
		{"check", paths[0], "--session", "other"},
		{"acquire", paths[1], "--session", "other"},
		{"heartbeat", paths[2], "--session", "other"},
		{"release", paths[2], "--session", "other"},
		{"heartbeat", "--all", "--session", evil},
		{"heartbeat", paths[0], "--session", evil},
		{"release", "--all", "--session", evil},
		{"heartbeat", "--all", "--session", evil},
		{"release", "--all", "--session", evil},
		{"finish", "--session", evil},
	}
	for _, args := range runs {
		r := s.run(args...)
		out := r.Stdout + r.Stderr
		assert.Empty(t, rawHostile(out), "%s printed raw control or bidi characters:\n%q", strings.Join(args, " "), out)
	}
	r := s.run("release", "--all", "--session", evil)
	assert.Contains(t, r.Stdout+r.Stderr, `ev\x1b[31mil\x01\x7f\u0085\u009b\u202e\u2066\u200f\u2028-1`, "the id is shown escaped, whole")
}
