package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/session"
)

// StatusOptions are the inputs of agentlock status.
type StatusOptions struct {
	IO     *IOStreams
	Config func() (*config, error)

	All   bool
	Watch bool
}

func newCmdStatus(f *Factory, runF func(*StatusOptions) error) *cobra.Command {
	opts := &StatusOptions{IO: f.IO, Config: f.Config}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "List the locks of this project's lock directory",
		Long: `List every lock in the lock directory of the current project: the locked
path, its owner, the time since it was renewed, the time left before it goes
stale, and its state. A lock whose owner is gone (its session is finished, or
its agent process exited) is marked orphaned: the dashboard may release it.
Lock files that cannot be parsed are listed as corrupt.
Released (empty) lock files are shown with --all. A lock file that another
process keeps locked past AGENTLOCK_LOCK_WAIT (one stopped while changing it)
is listed as busy, and status then exits 3 naming it.

--watch keeps the table on screen and redraws it when the lock folder
changes (and every few seconds, as ages grow), until Ctrl-C.`,
		Example: `  agentlock status
  agentlock status --json
  agentlock status --watch`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON, _ := cmd.Flags().GetBool("json"); asJSON && opts.Watch {
				// Refused before anything is opened.
				return usagef("--watch draws a table for people: it does not go with --json")
			}
			if runF != nil {
				return runF(opts)
			}
			return statusRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.All, "all", false, "also list released (free) lock files")
	cmd.Flags().BoolVar(&opts.Watch, "watch", false, "redraw the table whenever the locks change, until Ctrl-C")
	return cmd
}

func statusRun(ctx context.Context, opts *StatusOptions) error {
	c, err := opts.Config()
	if err != nil {
		return err
	}
	svc := c.Service()
	if opts.Watch {
		if _, err := svc.Workspace(ctx); err != nil {
			return err
		}
		return statusWatch(ctx, opts, svc)
	}
	listing, err := svc.Status(ctx, session.StatusRequest{All: opts.All, Orphans: true, Conflicts: true, StaleViews: true})
	if err != nil {
		return err
	}
	return newPrinter(opts.IO, c).Listing(listing, opts.All)
}
