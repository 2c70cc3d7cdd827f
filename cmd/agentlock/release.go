package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/audit"
	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/internal/frontend/sessionarg"
	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/workspace"
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
	var session string
	if opts.All {
		session, err = c.SessionArgs().AllSession(opts.Command, opts.Args)
	} else {
		paths, session, err = c.SessionArgs().PathsAndSession(opts.Command, opts.Args, sessionarg.ExistingLock)
	}
	if err != nil {
		return err
	}
	ws, out, err := workIn(ctx, opts.IO, c)
	if err != nil {
		return err
	}
	var results []workspace.Released
	var warning *workspace.MirrorError
	if opts.All {
		results, warning, err = ws.ReleaseAll(ctx, session)
		if len(results) == 0 && err == nil {
			out.Text("no lock of %s to release", session)
		}
	} else {
		results, warning, err = ws.Release(ctx, paths, session)
	}
	out.Warn(warning)
	refused := false
	for _, r := range results {
		show := out.Emit
		if r.Refused != nil {
			refused, show = true, out.Diagnose
		}
		if err := show(report.Released(r, session)); err != nil {
			return err
		}
	}
	if err != nil {
		return err
	}
	if refused {
		return report.ErrReported
	}
	return nil
}

func forceReleaseRun(ctx context.Context, opts *ReleaseOptions, c *config) error {
	if len(opts.Args) == 0 {
		return usagef("at least one path is required")
	}
	ws, out, err := workIn(ctx, opts.IO, c)
	if err != nil {
		return err
	}
	for _, p := range opts.Args {
		prev, auditErr, err := ws.ForceRelease(ctx, p, audit.Person())
		if err != nil {
			return err
		}
		if auditErr != nil {
			fmt.Fprintf(opts.IO.ErrOut, "agentlock: warning: %v\n", auditErr)
		}
		if err := out.Emit(report.ForceReleased(prev)); err != nil {
			return err
		}
		if prev.Owner != "" && !prev.Stale && !releasable(ctx, ws, prev) {
			// The dashboard's rule: a lock renewed within the project's
			// timeout by a session that is not finished has an owner still
			// at work, who is not told.
			fmt.Fprintln(opts.IO.ErrOut, "agentlock: warning: "+report.ForcedFromOwner(prev, ws.Locker().Timeout()))
		}
	}
	return nil
}

// releasable reports whether a person may release the lock prev without
// taking it from an owner at work (workspace.Owners.Releasable). A
// registry that cannot be read knows no finished session.
func releasable(ctx context.Context, ws *workspace.Workspace, prev core.State) bool {
	owners, _ := ws.Owners(ctx)
	return owners.Releasable(prev)
}
