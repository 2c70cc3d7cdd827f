package hooks

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/report"
)

// Answer is a hook's answer to its harness, in the harness's own terms.
type Answer struct {
	// Stdout is for the harness: its structured denial or edit context,
	// or the session context.
	Stdout []byte
	// Stderr is for the harness's log and, with ExitDeny, the model.
	Stderr []byte
	// ExitDeny is set when the hook must exit with the code every harness
	// reads as "block this tool call" (2).
	ExitDeny bool
	// Reason is the escaped denial; when Stdout cannot be written, the
	// caller denies with it on stderr and ExitDeny instead.
	Reason string
}

// Respond turns the Result of a hook of agent into its Answer: warnings on
// stderr; a denial as the harness's structured denial on stdout with exit
// 0 where it has one (the model then reads only the reason, never the
// hook's command line), else the reason on stderr with exit 2; the notices
// of an allowed edit in the harness's structured form where it has one
// (integrations.Contexter), else on stderr. Everything is escaped for a
// terminal.
func Respond(agent integrations.Agent, res Result) (a Answer) {
	var stderr strings.Builder
	for _, w := range res.Warnings {
		stderr.WriteString("agentlock: warning: " + report.Escape(w) + "\n")
	}
	defer func() { a.Stderr = []byte(stderr.String()) }()
	if res.Deny != "" {
		a.Reason = report.Escape(res.Deny)
		a.ExitDeny = true
		if d, ok := agent.(integrations.Denier); ok {
			out, err := d.DenyOutput(a.Reason)
			switch {
			case errors.Is(err, integrations.ErrExitDenyWithOutput):
				a.Stdout = out
			case err == nil:
				a.Stdout, a.ExitDeny = out, false
				return a
			case errors.Is(err, integrations.ErrExitDeny):
			default:
				// Exit 2 with the reason still denies in every harness.
				stderr.WriteString(report.Linef("agentlock: warning: %s pre-edit hook: %v", agent.Name(), err) + "\n")
			}
		}
		stderr.WriteString(a.Reason + "\n")
		return a
	}
	a.Stdout = res.Output
	if len(res.Notices) > 0 {
		text := report.Escape(strings.Join(res.Notices, "\n"))
		c, ok := agent.(integrations.Contexter)
		if !ok {
			stderr.WriteString(text + "\n")
			return a
		}
		out, err := c.EditContext(text)
		if err != nil {
			stderr.WriteString(text + "\n")
			return a
		}
		a.Stdout = append(out, res.Output...)
	}
	return a
}

// Write gives the answer of agent's hook for event to its harness: Stderr
// on errOut, Stdout on out. It reports whether the hook must exit with the
// code that denies (ExitDeny, or a structured denial that could not be
// written: exit 2 with the reason, on errOut, still denies in every
// harness).
func (a Answer) Write(out, errOut io.Writer, agent, event string) (exitDeny bool) {
	_, _ = errOut.Write(a.Stderr)
	if _, err := out.Write(a.Stdout); err != nil {
		fmt.Fprintln(errOut, report.Linef("agentlock: warning: %s %s hook: %v", agent, event, err))
		if a.Reason != "" && !a.ExitDeny {
			fmt.Fprintln(errOut, a.Reason)
			return true
		}
	}
	return a.ExitDeny
}
