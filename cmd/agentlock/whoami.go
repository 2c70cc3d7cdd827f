package main

import (
	"context"

	"github.com/spf13/cobra"
)

// WhoamiOptions are the inputs of agentlock whoami.
type WhoamiOptions struct {
	IO     *IOStreams
	Config func() (*config, error)
}

func newCmdWhoami(f *Factory, runF func(*WhoamiOptions) error) *cobra.Command {
	opts := &WhoamiOptions{IO: f.IO, Config: f.Lenient}
	return &cobra.Command{
		Use:   "whoami",
		Short: "Print the session id agentlock would use here, and where it came from",
		Long: `Print the session id that commands run here use when none is given, and
where it came from. The order is: --session, AGENTLOCK_SESSION, a wrapper
script this runs under, the id an agent harness exports —
CLAUDE_CODE_SESSION_ID (as claude-<id>), CODEX_THREAD_ID (as codex-<id>),
GEMINI_SESSION_ID (as gemini-<id>), COPILOT_AGENT_SESSION_ID (as
copilot-<id>) — then the session that the
session-start hook recorded for the agent process this runs under (found by
walking up the process ancestry; Gemini and Kimi shells get their id this
way). Hooks read the session_id of their stdin payload before the last step.
docs/identity.md tells the whole story.

Exits 1 when there is no session id.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return whoamiRun(cmd.Context(), opts)
		},
	}
}

func whoamiRun(ctx context.Context, opts *WhoamiOptions) error {
	c, err := opts.Config()
	if err != nil {
		return err
	}
	out := newPrinter(opts.IO, c)
	out.WarnProblems(c.Problems)
	return out.Identity(c.Service().Identity(ctx))
}
