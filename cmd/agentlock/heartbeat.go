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
)

// heartbeatRecord is the JSON line of one renewal.
type heartbeatRecord struct {
	Path         string `json:"path"`
	OK           bool   `json:"ok"`
	Error        string `json:"error,omitempty"`         // "not owner" or "lock not found"
	CurrentOwner string `json:"current_owner,omitempty"` // with "not owner"
}

type heartbeatOptions struct {
	every time.Duration
	pid   int
	all   bool
}

func newHeartbeatCmd(f *factory) *cobra.Command {
	opts := heartbeatOptions{}
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
this is what the wrapper scripts run beside the agent.`,
		Example: `  agentlock heartbeat src/auth.py claude-1
  agentlock heartbeat --every 30s --session claude-1 src/auth.py &
  agentlock heartbeat --all --every 30s --session claude-1 &`,
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return heartbeatRun(f, cmd, args, opts)
		}),
	}
	cmd.Flags().DurationVar(&opts.every, "every", 0, "keep renewing at this interval (e.g. 30s) until a lock is lost or the watched process exits")
	cmd.Flags().IntVar(&opts.pid, "pid", 0, "with --every: stop when this process exits (default: the parent process)")
	cmd.Flags().BoolVar(&opts.all, "all", false, "renew every lock the session holds (no paths)")
	return cmd
}

func heartbeatRun(f *factory, cmd *cobra.Command, args []string, opts heartbeatOptions) error {
	c, err := loadConfig(cmd)
	if err != nil {
		return err
	}
	var paths []string
	session := c.Session
	switch {
	case opts.all && len(args) > 0:
		return usagef("--all takes no paths")
	case opts.all && session == "":
		return usagef("no session id: pass --session ID or set AGENTLOCK_SESSION (agentlock whoami explains)")
	case !opts.all:
		if paths, session, err = pathsAndSession(cmd, args, c); err != nil {
			return err
		}
	}
	if err := core.ValidateSession(session); err != nil {
		return usagef("%v", err)
	}
	if opts.every < 0 || (opts.every == 0 && cmd.Flags().Changed("every")) {
		return usagef("--every %s: must be positive", opts.every)
	}
	if opts.pid != 0 && opts.every == 0 {
		return usagef("--pid goes with --every")
	}
	locker := c.locker()
	renew := func(verbose bool) error { return renewAll(f, c, locker, paths, session, verbose) }
	if opts.all {
		dir, err := c.workLockDir()
		if err != nil {
			return err
		}
		renew = func(verbose bool) error { return renewOwned(f, c, locker, dir, session, verbose) }
	}
	if opts.every == 0 {
		return renew(true)
	}
	return heartbeatLoop(renew, opts)
}

// renewOwned renews every lock of dir that session holds. A lock that
// another session took over meanwhile is simply not the session's any more.
func renewOwned(f *factory, c config, locker *core.Locker, dir, session string, verbose bool) error {
	renewed, err := locker.RenewSession(dir, session)
	if !verbose {
		return err
	}
	for _, st := range renewed {
		name := lockName(st)
		if perr := emit(f, c, heartbeatRecord{Path: name, OK: true}, "renewed "+name); perr != nil {
			return perr
		}
	}
	if len(renewed) == 0 && !c.JSON {
		fmt.Fprintf(f.Out, "no lock of %s to renew\n", session)
	}
	return err
}

// renewAll renews every path once. Each result is printed when verbose;
// failures are always printed. The error is a refusal when any lock was
// lost.
func renewAll(f *factory, c config, locker *core.Locker, paths []string, session string, verbose bool) error {
	lost := false
	for _, p := range paths {
		lease, err := locker.Heartbeat(p, session)
		var notOwner *core.NotOwnerError
		rec := heartbeatRecord{Path: lease.Path, OK: true}
		line := "renewed " + lease.Path
		switch {
		case errors.As(err, &notOwner):
			rec = heartbeatRecord{Path: notOwner.Path, Error: "not owner", CurrentOwner: notOwner.Owner}
			line = fmt.Sprintf("agentlock: %s is locked by %s, not by %s: not renewed.", notOwner.Path, notOwner.Owner, session)
		case errors.Is(err, core.ErrNoLock):
			real, rerr := core.RealPath(p, "")
			if rerr != nil {
				return rerr
			}
			rec = heartbeatRecord{Path: real, Error: "lock not found"}
			line = fmt.Sprintf("agentlock: %s has no lock to renew; acquire it first.", real)
		case err != nil:
			return err
		}
		if rec.OK && !verbose {
			continue
		}
		lost = lost || !rec.OK
		switch {
		case c.JSON:
			err = writeJSON(f.Out, rec)
		case rec.OK:
			_, err = fmt.Fprintln(f.Out, line)
		default:
			_, err = fmt.Fprintln(f.ErrOut, line)
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

// heartbeatLoop renews at opts.every until a lock is lost (exit 1), the
// watched process is gone or a signal arrives (exit 0). It polls the watched
// process more often than it renews, so that it does not outlive it by a
// whole interval.
func heartbeatLoop(renewOnce func(verbose bool) error, opts heartbeatOptions) error {
	watched := opts.pid
	if watched == 0 {
		watched = os.Getppid()
	}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(signals)

	renew := time.NewTicker(opts.every)
	defer renew.Stop()
	poll := time.NewTicker(min(opts.every, 250*time.Millisecond))
	defer poll.Stop()

	if err := renewOnce(false); err != nil {
		return err
	}
	for {
		select {
		case <-signals:
			return nil
		case <-poll.C:
			if !alive(watched, opts.pid == 0) {
				return nil
			}
		case <-renew.C:
			if err := renewOnce(false); err != nil {
				return err
			}
		}
	}
}

// alive reports whether process pid still runs. For the parent, being
// re-parented (to init or a subreaper) also means the parent is gone.
func alive(pid int, isParent bool) bool {
	if isParent && os.Getppid() != pid {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
