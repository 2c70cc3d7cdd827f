package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/internal/frontend/cmdutil"
	"github.com/agentlock/agentlock/internal/frontend/sessionarg"
	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/workspace"
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
	paths, session, err := c.SessionArgs().PathsAndSession(opts.Command, opts.Args, sessionarg.NewLock)
	if err != nil {
		return err
	}
	if opts.Wait < 0 {
		return usagef("--wait %s: must not be negative", opts.Wait)
	}
	ws, out, err := workIn(ctx, opts.IO, c)
	if err != nil {
		return err
	}
	out.WarnLegacyHeld(ws.LegacyHeld(ctx, paths))
	leases, warning, err := ws.Acquire(ctx, paths, session)
	if errors.Is(err, core.ErrLocked) && opts.Wait > 0 {
		if held := (*core.HeldError)(nil); errors.As(err, &held) {
			fmt.Fprintln(opts.IO.ErrOut, "agentlock: "+report.Waiting(held, opts.Wait))
		}
		cmdutil.KeepCollecting()
		ctx, cancel := context.WithTimeout(ctx, opts.Wait)
		defer cancel()
		leases, warning, err = ws.AcquireWait(ctx, paths, session)
	}
	if errors.Is(err, core.ErrLocked) {
		return out.Refusals(paths, err, opts.Wait)
	}
	if err != nil {
		return err
	}
	out.Warn(warning)
	for _, note := range report.AcquireNotes(leases, ws.LockDir, ws.Redirected) {
		fmt.Fprintln(opts.IO.ErrOut, "agentlock: "+note)
	}
	warnConflicts(ctx, opts.IO, ws, leases)
	for _, l := range leases {
		if err := out.Emit(report.Acquired(l)); err != nil {
			return unreported(ctx, ws, leases, session, err)
		}
	}
	return nil
}

// unreported undoes an acquisition whose success could not be written to
// stdout (workspace.Workspace.Undo): the caller never learns that it holds
// the locks, so it would never release them.
func unreported(ctx context.Context, ws *workspace.Workspace, leases []core.Lease, session string, werr error) error {
	undone, err := ws.Undo(ctx, leases, session)
	switch {
	case err != nil:
		return errors.Join(werr, fmt.Errorf("release what could not be reported: %w", err))
	case undone:
		return fmt.Errorf("%w; released what this call took", werr)
	}
	return werr
}

// warnConflicts says, on stderr, which of the files just locked another
// worktree of the repository changed too (docs/worktrees.md): a warning,
// the lock is taken.
func warnConflicts(ctx context.Context, io *IOStreams, ws *workspace.Workspace, leases []core.Lease) {
	var paths []string
	for _, l := range leases {
		paths = append(paths, l.Path)
	}
	found, err := ws.Conflicts(ctx, paths)
	if err != nil {
		fmt.Fprintln(io.ErrOut, report.Linef("agentlock: warning: could not check the other worktrees for changes of these files: %v", err))
		return
	}
	for _, c := range found {
		fmt.Fprintln(io.ErrOut, report.Linef("agentlock: warning: %s", c.Message()))
	}
}
