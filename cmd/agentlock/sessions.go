package main

import (
	"strings"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/report"
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

// printSession prints a session that a registry command changed.
func printSession(io *IOStreams, c *config, reg *core.Registry, s core.Session, verb string) error {
	return newPrinter(io, c).emit(report.SessionChanged(s, reg.Where(), verb))
}
