package main

import (
	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/workspace"
)

// splitList reads a comma-separated list flag or argument; blanks dropped.
var splitList = workspace.SplitList

// printSession prints a session that a registry command changed.
func printSession(io *IOStreams, c *config, reg *core.Registry, s core.Session, verb string) error {
	return newPrinter(io, c).Emit(report.SessionChanged(s, reg.Where(), verb))
}
