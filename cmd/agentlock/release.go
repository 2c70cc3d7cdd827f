package main

import (
	"context"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/audit"
	"github.com/agentlock/agentlock/internal/frontend/sessionarg"
	"github.com/agentlock/agentlock/session"
)

// ReleaseOptions are the inputs of agentlock release.
type ReleaseOptions struct {
	IO     *IOStreams
	Config func() (*config, error)

	Command string
	Args    []string // paths, maybe followed by the session
	Force   bool
	All     bool
}

func newCmdRelease(f *Factory, runF func(*ReleaseOptions) error) *cobra.Command {
	opts := &ReleaseOptions{IO: f.IO, Config: f.Config}
	cmd := &cobra.Command{
		Use:   "release <path>... [--session ID] | release <path> <session> | release --all",
		Short: "Release the session's lock on one or more paths",
		Long: `Release the session's lock on each path: the lock file is emptied in place
and the path is free for anyone. Releasing a path that has no lock succeeds.
A lock held by another session is left untouched (exit 1, "not owner").

--all releases every lock the session holds in the lock folder of the working
directory (found by owner), and keeps the session registered.

--force empties a lock whoever holds it, even a corrupt one. It is for people
clearing a lock by hand after checking that its owner is gone; it warns when
the lock was renewed within the timeout by a session that is not finished
(status marks the locks of gone owners "orphaned").`,
		Example: `  agentlock release src/auth.py claude-1
  agentlock release --session claude-1 src/a.go src/b.go
  agentlock release --all
  agentlock release --force src/auth.py`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Command, opts.Args = cmd.CommandPath(), args
			if runF != nil {
				return runF(opts)
			}
			return releaseRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().BoolVar(&opts.Force, "force", false, "empty the lock whoever holds it (for people, not agents)")
	cmd.Flags().BoolVar(&opts.All, "all", false, "release every lock the session holds (no paths)")
	return cmd
}

func releaseRun(ctx context.Context, opts *ReleaseOptions) error {
	c, err := opts.Config()
	if err != nil {
		return err
	}
	if opts.All && opts.Force {
		// Refused before anything is released: --force with a path
		// would otherwise empty it whoever holds it.
		return usagef("--all and --force do not go together")
	}
	if opts.Force {
		return forceReleaseRun(ctx, opts, c)
	}
	var paths []string
	var sessionID string
	if opts.All {
		sessionID, err = c.SessionArgs(ctx).AllSession(opts.Command, opts.Args)
	} else {
		paths, sessionID, err = c.SessionArgs(ctx).PathsAndSession(opts.Command, opts.Args, sessionarg.ExistingLock)
	}
	if err != nil {
		return err
	}
	got, err := c.Service().Release(ctx, session.ReleaseRequest{Paths: paths, All: opts.All, Session: sessionID})
	return newPrinter(opts.IO, c).Releases(got, err, opts.All)
}

func forceReleaseRun(ctx context.Context, opts *ReleaseOptions, c *config) error {
	if len(opts.Args) == 0 {
		return usagef("at least one path is required")
	}
	out := newPrinter(opts.IO, c)
	for _, p := range opts.Args {
		got, err := c.Service().ForceRelease(ctx, session.ForceRequest{Path: p, Who: audit.Person(), Action: audit.ActionForceRelease})
		if err != nil {
			return err
		}
		if err := out.Forced(got); err != nil {
			return err
		}
	}
	return nil
}
