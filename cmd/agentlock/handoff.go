package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/report"
)

// HandoffOptions are the inputs of agentlock handoff.
type HandoffOptions struct {
	IO     *IOStreams
	Config func() (*config, error)

	Command        string
	Session, Notes string // Session is typed; empty for the session known here
}

func newCmdHandoff(f *Factory, runF func(*HandoffOptions) error) *cobra.Command {
	opts := &HandoffOptions{IO: f.IO, Config: f.Config}
	return &cobra.Command{
		Use:   "handoff [session] <path>",
		Short: "Record a handoff note (a file) for the next agent",
		Long: `Record the path of a handoff note in the session's handoff field (replacing
the previous one). Without a session, the session known here (see agentlock
whoami); a typed id that is not that session is refused.`,
		Example: `  agentlock handoff docs/handoff/claude-1.md
  agentlock handoff claude-1 docs/handoff/claude-1.md`,
		Args: cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Command = cmd.CommandPath()
			opts.Notes = args[len(args)-1]
			if len(args) == 2 {
				opts.Session = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return handoffRun(cmd.Context(), opts)
		},
	}
}

func handoffRun(ctx context.Context, opts *HandoffOptions) error {
	c, _, out, err := workConfig(ctx, opts.IO, opts.Config)
	if err != nil {
		return err
	}
	session, err := c.SessionArgs(ctx).CommandSession(opts.Command+" "+report.ShellWord(opts.Notes), opts.Session)
	if err != nil {
		return err
	}
	changed, err := c.Service().Handoff(ctx, session, opts.Notes)
	if err != nil {
		return err
	}
	return out.Changed(changed, "handoff recorded for")
}
