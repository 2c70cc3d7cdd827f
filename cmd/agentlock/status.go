package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/report"
)

// StatusOptions are the inputs of agentlock status.
type StatusOptions struct {
	IO     *IOStreams
	Config func() (*config, error)

	All bool
}

func newCmdStatus(f *Factory, runF func(*StatusOptions) error) *cobra.Command {
	opts := &StatusOptions{IO: f.IO, Config: f.Config}
	cmd := &cobra.Command{
		Use:   "status",
		Short: "List the locks of this project's lock directory",
		Long: `List every lock in the lock directory of the current project: the locked
path, its owner, the time since it was renewed, the time left before it goes
stale, and its state. Lock files that cannot be parsed are listed as corrupt.
Released (empty) lock files are shown with --all. A lock file that another
process keeps locked past AGENTLOCK_LOCK_WAIT (one stopped while changing it)
is listed as unreadable, and status then exits 3 naming it.`,
		Example: `  agentlock status
  agentlock status --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return statusRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.All, "all", false, "also list released (free) lock files")
	return cmd
}

func statusRun(opts *StatusOptions) error {
	c, ws, err := workConfig(opts.Config)
	if err != nil {
		return err
	}
	states, problems, err := ws.Locker().List()
	if err != nil {
		return err
	}
	records := report.Statuses(states, problems, opts.All)
	if c.JSON {
		for _, r := range records {
			if err := writeJSON(opts.IO.Out, r); err != nil {
				return err
			}
		}
	} else if len(records) == 0 {
		if _, err := fmt.Fprintf(opts.IO.Out, "no locks in %s\n", report.Escape(ws.LockDir)); err != nil {
			return err
		}
	} else if err := report.WriteStatusTable(opts.IO.Out, records, ws.Project); err != nil {
		return err
	}
	return busy(problems)
}

// busy returns the lock files a listing could not read because another
// process kept them locked past AGENTLOCK_LOCK_WAIT (an environment error,
// exit 3, naming them), after the listing showed everything else: a
// corrupt record is the listing's to show, but a busy one means a process
// is stopped inside a critical section, which the caller must hear of.
func busy(problems []error) error {
	var errs []error
	for _, p := range problems {
		if errors.Is(p, core.ErrBusy) {
			errs = append(errs, p)
		}
	}
	return errors.Join(errs...)
}
