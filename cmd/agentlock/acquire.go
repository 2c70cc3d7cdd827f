package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/internal/frontend/cmdutil"
	"github.com/agentlock/agentlock/internal/frontend/sessionarg"
	"github.com/agentlock/agentlock/session"
)

// AcquireOptions are the inputs of agentlock acquire.
type AcquireOptions struct {
	IO     *IOStreams
	Config func() (*config, error)

	Command string   // how the command was called, for messages
	Args    []string // paths, maybe followed by the session
	Wait    time.Duration
}

func newCmdAcquire(f *Factory, runF func(*AcquireOptions) error) *cobra.Command {
	opts := &AcquireOptions{IO: f.IO, Config: f.Config}
	cmd := &cobra.Command{
		Use:   "acquire <path>... [--session ID] | acquire <path> <session>",
		Short: "Take the lock on one or more paths (all or none)",
		Long: `Take the lock on each path for the session, or renew it when the session
already holds it. Several paths are taken all together or not at all.

A lock held by another session and renewed within the timeout is never taken;
an expired (stale) one is taken over and its previous owner reported.

An existing folder, or a path written with a final "/", is an area: its lock
covers the folder and every path below it. While a session holds an area, no
other session may take a path inside it, nor an area around or inside it; the
holder may (its files are then locked one by one too).

Exit 0: every path is yours. Exit 1: another session holds one of them; do not
modify it, and do not work around the refusal. Wait (--wait) or ask the holder.`,
		Example: `  agentlock acquire src/auth.py claude-1
  agentlock acquire --session claude-1 src/a.go src/b.go
  agentlock acquire src/auth/ --session claude-1
  agentlock acquire --wait 90s src/auth.py --session claude-1`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Command, opts.Args = cmd.CommandPath(), args
			if runF != nil {
				return runF(opts)
			}
			return acquireRun(cmd.Context(), opts)
		},
	}
	cmdutil.SecondsVar(cmd.Flags(), &opts.Wait, "wait", "when a path is held, retry until it is free or this much time has passed (90 or 90s; keep it under your tool timeout)")
	return cmd
}

func acquireRun(ctx context.Context, opts *AcquireOptions) error {
	c, err := opts.Config()
	if err != nil {
		return err
	}
	paths, sessionID, err := c.SessionArgs(ctx).PathsAndSession(opts.Command, opts.Args, sessionarg.NewLock)
	if err != nil {
		return err
	}
	if opts.Wait < 0 {
		return usagef("--wait %s: must not be negative", opts.Wait)
	}
	out := newPrinter(opts.IO, c)
	waited := false
	got, err := c.Service().Acquire(ctx, session.AcquireRequest{Paths: paths, Session: sessionID, Wait: opts.Wait,
		OnWait: func(w session.Waiting) {
			waited = true
			out.Waits(w)
			cmdutil.KeepCollecting()
		}})
	if err := out.Acquisition(got, err, opts.Wait, waited); err != nil {
		return err
	}
	if err := out.Leases(got.Leases); err != nil {
		return unreported(ctx, got, err)
	}
	return nil
}

// unreported undoes an acquisition whose success could not be written to
// stdout (session.Acquired.Undo): the caller never learns that it holds
// the locks, so it would never release them.
func unreported(ctx context.Context, got session.Acquired, werr error) error {
	undone, err := got.Undo(ctx)
	switch {
	case err != nil:
		return errors.Join(werr, fmt.Errorf("release what could not be reported: %w", err))
	case undone:
		return fmt.Errorf("%w; released what this call took", werr)
	}
	return werr
}
