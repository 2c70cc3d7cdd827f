package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/internal/frontend/sessionarg"
)

// CheckOptions are the inputs of agentlock check.
type CheckOptions struct {
	IO     *IOStreams
	Config func() (*config, error)

	Command string
	Paths   []string
}

func newCmdCheck(f *Factory, runF func(*CheckOptions) error) *cobra.Command {
	opts := &CheckOptions{IO: f.IO, Config: f.Config}
	return &cobra.Command{
		Use:   "check <path>... [--session ID] | check <path> <session>",
		Short: "Tell whether paths are locked, without changing anything",
		Long: `Report the state of each path: free, locked (by another session),
locked-by-me (by the session given with --session or AGENTLOCK_SESSION), or
stale (its owner stopped renewing it, or its record cannot be read and was
not written for longer than the timeout; an acquire will take it over). A path
inside an area another session holds is locked by that session. An existing
folder, or a path ending in "/", is checked as an area.

Exit 0 when the session may modify every path; exit 1 when another session
holds one of them. check never modifies a lock.

The original form "check <path> <session>" works: with two arguments, the
second is the session when it is the session known here, or, with none
known, when it names no existing file and holds no "/" (otherwise it is a
second path). A typed id that is not the known session is refused.`,
		Example: `  agentlock check src/auth.py
  agentlock check --json --session claude-1 src/a.go src/b.go
  agentlock check src/auth.py claude-1`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Command, opts.Paths = cmd.CommandPath(), args
			if runF != nil {
				return runF(opts)
			}
			return checkRun(cmd.Context(), opts)
		},
	}
}

func checkRun(ctx context.Context, opts *CheckOptions) error {
	c, err := opts.Config()
	if err != nil {
		return err
	}
	paths, sessionID, err := c.SessionArgs(ctx).PathsAndSession(opts.Command, opts.Paths, sessionarg.AnySession)
	if err != nil {
		return err
	}
	got, err := c.Service().Check(ctx, paths, sessionID)
	return newPrinter(opts.IO, c).Checks(got, err)
}
