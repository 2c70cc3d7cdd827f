package main

import (
	"fmt"
	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/report"
)

// CheckOptions are the inputs of agentlock check.
type CheckOptions struct {
	IO     *IOStreams
	Config func() (*config, error)

	Paths []string
}

func newCmdCheck(f *Factory, runF func(*CheckOptions) error) *cobra.Command {
	opts := &CheckOptions{IO: f.IO, Config: f.Config}
	return &cobra.Command{
		Use:   "check <path>... [--session ID]",
		Short: "Tell whether paths are locked, without changing anything",
		Long: `Report the state of each path: free, locked (by another session),
locked-by-me (by the session given with --session or AGENTLOCK_SESSION), or
stale (its owner stopped renewing it; an acquire will take it over).

Exit 0 when the session may modify every path; exit 1 when another session
holds one of them. check never modifies a lock.`,
		Example: `  agentlock check src/auth.py
  agentlock check --json --session claude-1 src/a.go src/b.go`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Paths = args
			if runF != nil {
				return runF(opts)
			}
			return checkRun(opts)
		},
	}
}

func checkRun(opts *CheckOptions) error {
	c, err := opts.Config()
	if err != nil {
		return err
	}
	if len(opts.Paths) == 0 {
		return usagef("at least one path is required")
	}
	ws, err := c.workWorkspace()
	if err != nil {
		return err
	}
	locker, out := ws.Locker(), newPrinter(opts.IO, c)
	warnLegacy(opts.IO, ws, opts.Paths)
	blocked := false
	for _, p := range opts.Paths {
		chk, err := locker.CheckAndWarn(p, c.Session)
		if err != nil {
			return err
		}
		blocked = blocked || !chk.OK
		if chk.Corrupt != nil {
			// Not an owner, so not in the line for people: say it aside.
			fmt.Fprintf(opts.IO.ErrOut, "agentlock: warning: %s\n", chk.Warning)
		}
		if err := out.emit(report.Checked(chk)); err != nil {
			return err
		}
	}
	if blocked {
		return errSilentRefusal
	}
	return nil
}
