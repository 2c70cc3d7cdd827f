package main

import (
	"github.com/agentlock/agentlock/report"
)

// newPrinter prints results in the form c asks for (--json) on io.
func newPrinter(io *IOStreams, c *config) report.Printer {
	return report.Printer{Out: io.Out, ErrOut: io.ErrOut, JSON: c.JSON}
}
