package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/report"
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
created (exit 1, "lock not found").

With --every, keep renewing at that interval until a lock is lost, the watched
process exits (the parent shell by default, or --pid), or the command is
interrupted. Pick an interval well below the timeout (a third of it, say).

With --all, renew every lock the session holds in the lock folder of the
working directory (found by owner), however many there are, including none:
this is what the wrapper scripts run beside the agent. A lock file that cannot
be read is reported on stderr and skipped; the other locks are renewed (exit 3
once, or, with --every, the loop goes on).`,
		Example: `  agentlock heartbeat src/auth.py claude-1
  agentlock heartbeat --every 30s --session claude-1 src/auth.py &
  agentlock heartbeat --all --every 30s --session claude-1 &`,
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Command, opts.Args, opts.EveryGiven = cmd.CommandPath(), args, cmd.Flags().Changed("every")
			if runF != nil {
				return runF(opts)
			}
			return heartbeatRun(opts)
		},
	}
	cmd.Flags().DurationVar(&opts.Every, "every", 0, "keep renewing at this interval (e.g. 30s) until a lock is lost or the watched process exits")
	cmd.Flags().IntVar(&opts.PID, "pid", 0, "with --every: stop when this process exits (default: the parent process)")
	cmd.Flags().BoolVar(&opts.All, "all", false, "renew every lock the session holds (no paths)")
	return cmd
}

func heartbeatRun(opts *HeartbeatOptions) error {
	c, err := opts.Config()
	if err != nil {
		return err
	}
	var paths []string
	session := c.Session
	switch {
	case opts.All && len(opts.Args) > 0:
		return usagef("--all takes no paths")
	case opts.All && session == "":
		return usagef("no session id: pass --session ID or set AGENTLOCK_SESSION (agentlock whoami explains)")
	case !opts.All:
		if paths, session, err = pathsAndSession(opts.Command, opts.Args, c, true); err != nil {
			return err
		}
	}
	if err := core.ValidateExistingSession(session); err != nil {
		return usagef("%v", err)
	}
	if opts.Every < 0 || (opts.Every == 0 && opts.EveryGiven) {
		return usagef("--every %s: must be positive", opts.Every)
	}
	if opts.PID != 0 && opts.Every == 0 {
		return usagef("--pid goes with --every")
	}
	ws, err := c.workWorkspace()
	if err != nil {
		return err
	}
	locker, out := ws.Locker(), newPrinter(opts.IO, c)
	renew := func(verbose bool) error { return renewPaths(out, locker, paths, session, verbose) }
	if opts.All {
		renew = func(verbose bool) error { return renewOwned(out, locker, session, verbose) }
		if opts.Every > 0 {
			// A loop renews what it can every time: one file it cannot
			// read (foreign damage, a corrupt record) is reported and
			// skipped, never a reason to let the session's other locks
			// expire.
			renew = func(bool) error {
				if err := renewOwned(out, locker, session, false); err != nil {
					fmt.Fprintf(opts.IO.ErrOut, "agentlock: heartbeat: %s; skipped, renewing the rest\n", report.EscapeLines(err.Error()))
				}
				return nil
			}
		}
	}
	if opts.Every == 0 {
		return renew(true)
	}
	return heartbeatLoop(renew, opts.Every, opts.PID)
}

// renewOwned renews every lock of the workspace that session holds. A lock
// that another session took over meanwhile is simply not the session's any
// more.
func renewOwned(out printer, locker *core.Locker, session string, verbose bool) error {
	renewed, err := locker.RenewSession(session)
	if !verbose {
		return err
	}
	for _, st := range renewed {
		if perr := out.emit(report.Renewed(st.Name())); perr != nil {
			return perr
		}
	}
	if len(renewed) == 0 && !out.json {
		fmt.Fprintf(out.io.Out, "no lock of %s to renew\n", session)
	}
	return err
}

// renewPaths renews every path once. Each renewal is printed when verbose;
// failures are always printed. The error is a refusal when any lock was
// lost.
func renewPaths(out printer, locker *core.Locker, paths []string, session string, verbose bool) error {
	lost := false
	for _, p := range paths {
		lease, err := locker.Heartbeat(p, session)
		var notOwner *core.NotOwnerError
		switch {
		case errors.As(err, &notOwner):
			lost = true
			err = out.diagnose(report.RenewRefused(notOwner, session))
		case errors.Is(err, core.ErrNoLock):
			lost = true
			real, rerr := core.RealPath(p, "")
			if rerr != nil {
				return rerr
			}
			err = out.diagnose(report.RenewNoLock(real))
		case err != nil:
			return err
		case verbose:
			err = out.emit(report.Renewed(lease.Path))
		}
		if err != nil {
			return err
		}
	}
	if lost {
		return errSilentRefusal
	}
	return nil
}

// heartbeatLoop renews every interval until a lock is lost (exit 1), the
// watched process is gone or a signal arrives (exit 0). pid 0 watches the
// parent process. It polls the watched process more often than it renews,
// so that it does not outlive it by a whole interval.
func heartbeatLoop(renewOnce func(verbose bool) error, every time.Duration, pid int) error {
	watched := pid
	if watched == 0 {
		watched = os.Getppid()
	}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(signals)

	renew := time.NewTicker(every)
	defer renew.Stop()
	poll := time.NewTicker(min(every, 250*time.Millisecond))
	defer poll.Stop()

	if err := renewOnce(false); err != nil {
		return err
	}
	for {
		select {
		case <-signals:
			return nil
		case <-poll.C:
			if !alive(watched, pid == 0) {
				return nil
			}
		case <-renew.C:
			if err := renewOnce(false); err != nil {
				return err
			}
		}
	}
}
