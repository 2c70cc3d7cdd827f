package main

import (
	"fmt"
	"strings"

	"github.com/agentlock/agentlock/core"
)

// splitList reads a comma-separated list flag or argument; blanks dropped.
func splitList(s string) []string {
	out := []string{}
	for _, item := range strings.Split(s, ",") {
		if item = strings.TrimSpace(item); item != "" {
			out = append(out, item)
		}
	}
	return out
}

// sessionRecord is the JSON line printed for a session.
type sessionRecord struct {
	core.Session
	Registry string `json:"registry"`
}

// printSession prints a session the registry command changed.
func printSession(io *IOStreams, c *config, reg *core.Registry, s core.Session, verb string) error {
	return emit(io, c, sessionRecord{Session: s, Registry: reg.Where()},
		fmt.Sprintf("%s %s (%s) in %s", verb, s.SessionID, s.Status, reg.Where()))
}

// oneLine keeps a table cell on one line.
func oneLine(s string) string {
	return strings.NewReplacer("\n", " ", "\r", " ", "\t", " ").Replace(s)
}
