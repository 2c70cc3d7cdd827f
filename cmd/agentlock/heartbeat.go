package main

import (
	"context"
	"fmt"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/internal/frontend/cmdutil"
	"github.com/agentlock/agentlock/internal/frontend/sessionarg"
	"github.com/agentlock/agentlock/internal/sys/procs"
	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/session"
	"github.com/agentlock/agentlock/workspace"
)

// HeartbeatOptions are the inputs of agentlock heartbeat.
type HeartbeatOptions struct {
	IO     *IOStreams
	Config func() (*config, error)

	Command    string
	Args       []string // paths, maybe followed by the session
	Every      time.Duration
	EveryGiven bool // --every was on the command line (even as 0)
	PID        int
	All        bool
}

func newCmdHeartbeat(f *Factory, runF func(*HeartbeatOptions) error) *cobra.Command {
	opts := &HeartbeatOptions{IO: f.IO, Config: f.Config}
	cmd := &cobra.Command{
		Use:   "heartbeat <path>... [--session ID] [--every DURATION] | heartbeat <path> <session> | heartbeat --all [--every DURATION]",
		Short: "Renew the session's locks so they do not expire",
		Long: `Renew the session's lock on each path: its age starts again from zero.
Only the owner can renew (exit 1, "not owner"); a path with no lock is not
created (exit 1, "lock not found"). A lock that went stale is renewed only if
no other session took, meanwhile, a lock it would cover (a file inside a
stale area) or an area around it: else it is lost (exit 1, "not owner").

With --every, keep renewing at that interval until a lock is lost, the agent
process exits, or the command is interrupted. The agent process is the one
the session-start hook recorded for the session (found through this
process's ancestry, or by the session), the wrapper script, or --pid; never
the short-lived shell that started the loop, so a loop started with & from
an agent's one-shot shell still stops when the agent dies, and its locks
expire. With nothing to watch it refuses (exit 2) rather than renew forever.
Pick an interval well below the timeout (a third of it, say); it must be from
100ms to 24h.

With --all, renew every lock the session holds in the lock folder of the
working directory (found by owner), however many there are, including none:
this is what the wrapper scripts run beside the agent. A lock file that cannot
be read is reported on stderr and skipped; the other locks are renewed (exit 3
once, or, with --every, the loop goes on).`,
		Example: `  agentlock heartbeat src/auth.py
  agentlock heartbeat --every 30s src/auth.py &
  agentlock heartbeat src/auth.py claude-1
  agentlock heartbeat --all --every 30s --session claude-1 &`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Command, opts.Args, opts.EveryGiven = cmd.CommandPath(), args, cmd.Flags().Changed("every")
			if runF != nil {
				return runF(opts)
			}
			return heartbeatRun(cmd.Context(), opts)
		},
	}
	cmdutil.SecondsVar(cmd.Flags(), &opts.Every, "every", "keep renewing at this interval (30 or 30s; from 100ms to 24h) until a lock is lost or the watched process exits")
	cmd.Flags().IntVar(&opts.PID, "pid", 0, "with --every: stop when this process exits (default: the session's agent process)")
	cmd.Flags().BoolVar(&opts.All, "all", false, "renew every lock the session holds (no paths)")
	return cmd
}

func heartbeatRun(ctx context.Context, opts *HeartbeatOptions) error {
	c, err := opts.Config()
	if err != nil {
		return err
	}
	var paths []string
	var sessionID string
	if opts.All {
		sessionID, err = c.SessionArgs(ctx).AllOnly(opts.Command, opts.Args)
	} else {
		paths, sessionID, err = c.SessionArgs(ctx).PathsAndSession(opts.Command, opts.Args, sessionarg.ExistingLock)
	}
	if err != nil {
		return err
	}
	if err := core.ValidateExistingSession(sessionID); err != nil {
		return usagef("%v", err)
	}
	if err := workspace.CheckRenewEvery("--every", opts.Every); opts.EveryGiven && err != nil {
		return &report.UsageError{Err: err}
	}
	if opts.PID != 0 && opts.Every == 0 {
		return usagef("--pid goes with --every")
	}
	svc := c.Service()
	if _, err := svc.Workspace(ctx); err != nil {
		return err
	}
	out := newPrinter(opts.IO, c)
	var watching func() bool
	if opts.Every > 0 {
		if watching, err = watchedAgent(ctx, opts, svc, sessionID); err != nil {
			return err
		}
	}
	renew := func(verbose bool) error { return renewPaths(ctx, out, svc, paths, sessionID, verbose) }
	if opts.All {
		renew = func(verbose bool) error { return renewOwned(ctx, out, svc, sessionID, verbose) }
		if opts.Every > 0 {
			// A loop renews what it can every time: one file it cannot
			// read (foreign damage, a corrupt record) is reported and
			// skipped, never a reason to let the session's other locks
			// expire.
			renew = func(bool) error {
				if err := renewOwned(ctx, out, svc, sessionID, false); err != nil {
					fmt.Fprintf(opts.IO.ErrOut, "agentlock: heartbeat: %s; skipped, renewing the rest\n", report.EscapeLines(err.Error()))
				}
				return nil
			}
		}
	}
	if opts.Every == 0 {
		return renew(true)
	}
	cmdutil.KeepCollecting()
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	return svc.KeepRenewing(ctx, opts.Every, watching, func() error { return renew(false) })
}

// watchedAgent returns the test of a renewal loop's life: whether the
// process that bounds it still runs. That is --pid, else the agent process
// of the session (session.Service.Life: the recorded process this runs
// under, the wrapper, or the live processes recorded for the session).
// With nothing to watch the loop is refused in one line that names the
// commands to run instead.
func watchedAgent(ctx context.Context, opts *HeartbeatOptions, svc *session.Service, sessionID string) (func() bool, error) {
	if opts.PID != 0 {
		watching, err := procs.Watch(opts.PID)
		if err != nil {
			return nil, usagef("--pid %d: %v", opts.PID, err)
		}
		return watching, nil
	}
	if watching := svc.Life(ctx, sessionID); watching != nil {
		return watching, nil
	}
	once := "agentlock heartbeat --all"
	if !opts.All {
		once = "agentlock heartbeat " + report.ShellWords(opts.Args)
	}
	return nil, report.LineUsageErrorf("%s: no agent process of session %s to watch "+
		"(no session-start hook recorded one above this process, and no wrapper), so the renewal could outlive the agent: "+
		"renew once with '%s', or pass --pid <agent PID>", strings.TrimPrefix(opts.Command, "agentlock "), sessionID, once)
}

// renewOwned renews, and when verbose reports, every lock of the
// workspace that session holds (session.Service.RenewSession; without
// verbose nothing is listed: on etcd, one round trip).
func renewOwned(ctx context.Context, out report.Printer, svc *session.Service, sessionID string, verbose bool) error {
	renewed, err := svc.RenewSession(ctx, sessionID, verbose)
	return out.Renewed(renewed, err, sessionID, verbose)
}

// renewPaths renews every path once (session.Service.RenewPaths). Each
// renewal is printed when verbose; lost locks are always printed. The
// error is a refusal when any lock was lost.
func renewPaths(ctx context.Context, out report.Printer, svc *session.Service, paths []string, sessionID string, verbose bool) error {
	renewals, err := svc.RenewPaths(ctx, paths, sessionID)
	return out.RenewedPaths(renewals, err, sessionID, verbose)
}

// newCmdHeartbeatLoop is the original's "heartbeat-loop <path> <sid>
// [interval]": heartbeat --every, in its positional form.
func newCmdHeartbeatLoop(f *Factory, runF func(*HeartbeatOptions) error) *cobra.Command {
	opts := &HeartbeatOptions{IO: f.IO, Config: f.Config}
	cmd := &cobra.Command{
		Use:   "heartbeat-loop <path> [session] [interval]",
		Short: "Keep renewing a lock while the agent runs (the original's form of heartbeat --every)",
		Long: `Renew the session's lock on path every interval (seconds or a duration,
from 0.1 s to 24 h; default 30 s, as agent-registry 0.2's heartbeat-loop)
until the lock is lost, the agent process exits, or the command is
interrupted: heartbeat --every, in the original's positional form. Run it in the background (&). Like heartbeat
--every, it watches the session's agent process, never the shell that
started it, and refuses to start with nothing to watch.

The session is optional (see agentlock whoami); with two arguments the second
is the interval when it is a number or a duration, else the session.`,
		Example: `  agentlock heartbeat-loop src/auth.py &
  agentlock heartbeat-loop src/auth.py claude-1 30 &`,
		Args: cobra.RangeArgs(1, 3),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Command = cmd.CommandPath()
			args, interval := sessionarg.LoopArgs(args)
			opts.Every = workspace.DefaultRenewEvery
			if interval != "" {
				d, err := workspace.ParseDuration("interval", interval, workspace.DefaultRenewEvery, workspace.MinRenewEvery, workspace.MaxRenewEvery)
				if err != nil {
					return &report.UsageError{Err: err}
				}
				opts.Every = d
			}
			opts.Args, opts.EveryGiven = args, true
			if runF != nil {
				return runF(opts)
			}
			return heartbeatRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().IntVar(&opts.PID, "pid", 0, "stop when this process exits (default: the session's agent process)")
	return cmd
}
