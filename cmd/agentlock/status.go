package main

import (
	"bufio"
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/workspace"
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
	c, ws, _, err := workConfig(ctx, opts.IO, opts.Config)
	if err != nil {
		return err
	}
	if opts.Watch {
		return statusWatch(ctx, opts, ws)
	}
	states, problems, err := ws.Locker().List(ctx)
	if err != nil {
		return err
	}
	records := report.Statuses(states, problems, opts.All)
	markOrphans(ctx, opts.IO, ws, states, records)
	markConflicts(ctx, opts.IO, ws, records)
	// One write for the whole listing, not one per cell: among 10,000
	// locks the unbuffered table took 100,000 write calls.
	out := bufio.NewWriterSize(opts.IO.Out, 64<<10)
	where := ws.LockDir
	if w, ok := ws.LockStore().(interface{ Where() string }); ok {
		// A distributed store: which lock space this checkout uses.
		where = w.Where()
		if !c.JSON && len(records) > 0 {
			fmt.Fprintf(out, "locks of %s\n", report.Escape(where))
		}
	}
	if err := report.WriteStatus(out, c.JSON, records, where, ws.Project); err != nil {
		return err
	}
	if err := out.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	// The lock files another process kept locked past AGENTLOCK_LOCK_WAIT
	// are an environment error (exit 3), after the listing.
	return core.Busy(problems)
}

// markOrphans sets the Orphaned of the records of held locks whose owner
// is gone (workspace.Owners.Orphaned, the dashboard's rule). The registry
// is read only when a lock is held; one that cannot be read is a warning
// on io's stderr (none when io is nil).
func markOrphans(ctx context.Context, io *IOStreams, ws *workspace.Workspace, states []core.State, records []report.Status) {
	err := report.MarkOrphans(records, states, func() (func(core.State) bool, error) {
		owners, err := ws.Owners(ctx)
		return owners.Orphaned, err
	})
	if err != nil && io != nil {
		fmt.Fprintln(io.ErrOut, report.Linef("agentlock: warning: orphaned locks are not marked: %v", err))
	}
}

// markConflicts fills the records' AlsoChangedIn from the other worktrees
// of the repository; a failure to ask git is a warning.
func markConflicts(ctx context.Context, io *IOStreams, ws *workspace.Workspace, records []report.Status) {
	var paths []string
	for _, r := range records {
		if r.Path != "" && !r.Area {
			paths = append(paths, r.Path)
		}
	}
	found, err := ws.Conflicts(ctx, paths)
	if err != nil {
		fmt.Fprintln(io.ErrOut, report.Linef("agentlock: warning: could not check the other worktrees for changes: %v", err))
		return
	}
	report.MarkConflicts(records, found)
}
