package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/core"
)

// FinishOptions are the inputs of agentlock finish.
type FinishOptions struct {
	IO     *IOStreams
	Config func() (*config, error)

	Command string
	Session string // typed; empty for the session known here
}

func newCmdFinish(f *Factory, runF func(*FinishOptions) error) *cobra.Command {
	opts := &FinishOptions{IO: f.IO, Config: f.Config}
	return &cobra.Command{
		Use:   "finish [session]",
		Short: "Mark a session Finished and release every lock it owns",
		Long: `Mark the session Finished, empty its do_not_touch, and release every lock
that the session owns in the lock directory — found by owner, including paths
it never listed — and never a lock of another session. The locks are released
even when the session is not registered (exit 1) or the registry cannot be read
(exit 3, after releasing): a finished agent must not keep its locks.

Without a session, finish ends the session known here (see agentlock whoami);
a typed id that is not that session is refused.`,
		Example: `  agentlock finish
  agentlock finish --session claude-1`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Command = cmd.CommandPath()
			if len(args) == 1 {
				opts.Session = args[0]
			}
			if runF != nil {
				return runF(opts)
			}
			return finishRun(cmd.Context(), opts)
		},
	}
}

func finishRun(ctx context.Context, opts *FinishOptions) error {
	c, err := opts.Config()
	if err != nil {
		return err
	}
	if opts.Session, err = c.SessionArgs(ctx).CommandSession(opts.Command, opts.Session); err != nil {
		return err
	}
	// The session exists already: any id that 0.2 accepted will do.
	if err := core.ValidateExistingSession(opts.Session); err != nil {
		return usagef("%v", err)
	}
	if _, err := c.Service().Workspace(ctx); err != nil {
		return err
	}
	done, err := c.Service().Finish(ctx, opts.Session)
	return newPrinter(opts.IO, c).Ended(done, opts.Session, err)
}
