package main

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/audit"
	"github.com/agentlock/agentlock/report"
)

// LogOptions are the inputs of agentlock log.
type LogOptions struct {
	IO     *IOStreams
	Config func() (*config, error)

	Session string // only the entries of this session (acting or previous owner)
	Limit   int    // only the last N entries; zero for all
}

func newCmdLog(f *Factory, runF func(*LogOptions) error) *cobra.Command {
	opts := &LogOptions{IO: f.IO, Config: f.Config}
	cmd := &cobra.Command{
		Use:   "log [--for SESSION] [--last N]",
		Short: "Print the audit log: takeovers, releases by force, finishes",
		Long: `Print the project's audit log, oldest first: every takeover of a stale lock,
every release by force (release --force, and the dashboard's Release button),
every finish — when, what, who, and the previous owner. With --json, one
object per entry.

The log is the home's audit.log (agent-registry 0.2 ignores it), appended by
every agentlock process, rotated at 1 MiB with three older files kept
(audit.log.1 to .3): it stays under about 4 MiB.`,
		Example: `  agentlock log
  agentlock log --for claude-1 --last 20
  agentlock log --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if opts.Limit < 0 {
				return usagef("--last must be 0 (all) or more, not %d", opts.Limit)
			}
			if runF != nil {
				return runF(opts)
			}
			return logRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Session, "for", "", "only the entries of this session (acting, or previous owner)")
	cmd.Flags().IntVar(&opts.Limit, "last", 0, "only the last N entries (0: all)")
	return cmd
}

func logRun(ctx context.Context, opts *LogOptions) error {
	c, ws, out, err := workConfig(ctx, opts.IO, opts.Config)
	if err != nil {
		return err
	}
	entries, bad, err := ws.Audit().Read()
	if err != nil {
		return err
	}
	entries = audit.Filter(entries, opts.Session)
	if opts.Limit > 0 && len(entries) > opts.Limit {
		entries = entries[len(entries)-opts.Limit:]
	}
	if len(entries) == 0 && !c.JSON {
		_, err := fmt.Fprintf(opts.IO.Out, "nothing recorded in %s\n", report.Escape(ws.Audit().Path))
		return err
	}
	for _, e := range entries {
		if err := out.Emit(e, report.AuditLine(e)); err != nil {
			return err
		}
	}
	if bad > 0 {
		fmt.Fprintf(opts.IO.ErrOut, "agentlock: warning: %d line(s) of %s are not entries (a write cut short); skipped\n", bad, report.Escape(ws.Audit().Path))
	}
	return nil
}
