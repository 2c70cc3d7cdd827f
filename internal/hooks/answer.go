package hooks

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/report"
)

// Answer gives the harness of agent the result of an event: the warnings
// on errOut; a denial in the harness's own terms; else the notices of an
// allowed edit and the event's output on out. It reports whether the tool
// call is denied by exit status 2 (the reason is then on errOut): false
// for an allowed call, and for a denial that the harness reads from out
// with exit 0.
func Answer(agent integrations.Agent, event string, res Result, out, errOut io.Writer) (exitDeny bool) {
	for _, w := range res.Warnings {
		fmt.Fprintf(errOut, "agentlock: warning: %s\n", report.Escape(w))
	}
	if res.Deny != "" {
		return deny(agent, report.Escape(res.Deny), out, errOut)
	}
	if len(res.Notices) > 0 {
		notices(agent, res.Notices, out, errOut)
	}
	if _, err := out.Write(res.Output); err != nil {
		fmt.Fprintln(errOut, report.Linef("agentlock: warning: %s %s hook: %v", agent.Name(), event, err))
	}
	return false
}

// notices gives the model the notices of an allowed edit: in the
// harness's own structured form where it has one (integrations.Contexter),
// else on errOut.
func notices(agent integrations.Agent, notices []string, out, errOut io.Writer) {
	text := report.Escape(strings.Join(notices, "\n"))
	if c, ok := agent.(integrations.Contexter); ok {
		if data, err := c.EditContext(text); err == nil {
			if _, err := out.Write(data); err == nil {
				return
			}
		}
	}
	fmt.Fprintln(errOut, text)
}

// deny refuses the tool call in the harness's own terms: the structured
// denial on out with exit 0 where the harness has one (the model then
// reads only the reason, never the hook's command line), else the reason
// on errOut with exit 2.
func deny(agent integrations.Agent, reason string, out, errOut io.Writer) (exitDeny bool) {
	if d, ok := agent.(integrations.Denier); ok {
		data, err := d.DenyOutput(reason)
		if errors.Is(err, integrations.ErrExitDenyWithOutput) {
			if _, werr := out.Write(data); werr != nil {
				fmt.Fprintf(errOut, "agentlock: warning: %s pre-edit hook: %v\n", agent.Name(), werr)
			}
			fmt.Fprintln(errOut, reason)
			return true
		}
		if err == nil {
			_, err = out.Write(data)
		}
		if err == nil {
			return false
		}
		if errors.Is(err, integrations.ErrExitDeny) {
			fmt.Fprintln(errOut, reason)
			return true
		}
		// Exit 2 with the reason still denies in every harness.
		fmt.Fprintln(errOut, report.Linef("agentlock: warning: %s pre-edit hook: %v", agent.Name(), err))
	}
	fmt.Fprintln(errOut, reason)
	return true
}
