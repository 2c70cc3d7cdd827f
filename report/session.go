package report

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/session"
	"github.com/agentlock/agentlock/workspace"
)

// The outcomes of the session service's verbs (package session), printed
// as the command line prints them: every front end that reports a verb in
// the command line's records (the command line, the MCP tools) prints it
// here.

// Waits prints that an acquisition waits (session.AcquireRequest.OnWait):
// the split locks of agent-registry 0.2's home found before it, then who
// holds what it waits for.
func (p Printer) Waits(w session.Waiting) {
	p.WarnLegacyHeld(w.Legacy.Home, w.Legacy.Held)
	if w.Held != nil {
		fmt.Fprintln(p.ErrOut, "agentlock: "+Waiting(w.Held, w.Wait))
	}
}

// Acquisition prints the outcome of an acquisition that err ended
// (session.Service.Acquire), but not its leases (Leases): the split locks
// of 0.2's home unless Waits printed them (legacyShown), a refusal path by
// path (Refusals, after waiting wait), or the registry's failure to
// follow, the notes and the other worktrees' changes of the files. It
// returns err, or ErrReported for a refusal.
func (p Printer) Acquisition(got session.Acquired, err error, wait time.Duration, legacyShown bool) error {
	if !legacyShown {
		p.WarnLegacyHeld(got.Legacy.Home, got.Legacy.Held)
	}
	if errors.Is(err, core.ErrLocked) {
		return p.Refusals(got.Paths, err, wait, got.Places)
	}
	if err != nil {
		return err
	}
	for _, m := range got.Mirror {
		p.Warn(m)
	}
	for _, note := range AcquireNotes(got.Leases, got.Workspace.LockDir, got.Workspace.Redirected) {
		fmt.Fprintln(p.ErrOut, "agentlock: "+note)
	}
	if got.ConflictsErr != nil {
		fmt.Fprintln(p.ErrOut, Linef("agentlock: warning: could not check the other worktrees for changes of these files: %v", got.ConflictsErr))
	}
	for _, c := range got.Conflicts {
		fmt.Fprintln(p.ErrOut, Linef("agentlock: warning: %s", c.Message()))
	}
	for _, v := range got.Stale {
		// Warn mode (docs/read-versions.md): taken, the holder told.
		if v.Err != nil {
			fmt.Fprintln(p.ErrOut, Linef("agentlock: warning: cannot check whether %s changed since you read it (%v)", v.Path, v.Err))
			continue
		}
		fmt.Fprintln(p.ErrOut, Linef("agentlock: warning: %s %s since you read it, by %s: read it again before you change it", v.Path, session.StaleWhat(v), session.StaleBy(v)))
	}
	return nil
}

// Leases prints the locks an acquisition took, one result each.
func (p Printer) Leases(leases []core.Lease) error {
	for _, l := range leases {
		if err := p.Emit(Acquired(l)); err != nil {
			return err
		}
	}
	return nil
}

// Releases prints the outcome of a release that err ended
// (session.Service.Release): each path released, each refused as a
// diagnostic; with all, that the session held none. It returns err, or
// ErrReported when a path was refused.
func (p Printer) Releases(r session.Released, err error, all bool) error {
	if all && len(r.Results) == 0 && err == nil {
		p.Text("no lock of %s to release", r.Session)
	}
	p.Warn(r.Mirror)
	refused := false
	for _, res := range r.Results {
		show := p.Emit
		if res.Refused != nil {
			refused, show = true, p.Diagnose
		}
		if err := show(Released(res, r.Session)); err != nil {
			return err
		}
	}
	if err != nil {
		return err
	}
	if refused {
		return ErrReported
	}
	return nil
}

// Forced prints a release by force (session.Service.ForceRelease): the
// audit log's failure, what the lock held, and a warning when its owner
// was still at work.
func (p Printer) Forced(f session.ForceReleased) error {
	if f.AuditErr != nil {
		fmt.Fprintf(p.ErrOut, "agentlock: warning: %v\n", f.AuditErr)
	}
	if err := p.Emit(ForceReleased(f.Previous)); err != nil {
		return err
	}
	if f.StillWorking {
		// The dashboard's rule: a lock renewed within the project's
		// timeout by a session that is not finished has an owner still
		// at work, who is not told.
		fmt.Fprintln(p.ErrOut, "agentlock: warning: "+ForcedFromOwner(f.Previous, f.Timeout))
	}
	return nil
}

// Checks prints the outcome of a check that err ended
// (session.Service.Check): the split locks of 0.2's home, then each path's
// state (an unreadable lock's warning aside). It returns err, or
// ErrReported when another session holds a path.
func (p Printer) Checks(c session.Checked, err error) error {
	p.WarnLegacyHeld(c.Legacy.Home, c.Legacy.Held)
	for _, chk := range c.Checks {
		if chk.Corrupt != nil {
			// Not an owner, so not in the line for people: say it aside.
			fmt.Fprintln(p.ErrOut, Linef("agentlock: warning: %s", chk.Warning))
		}
		rec, line := Checked(chk)
		if v, ok := c.Stale[chk.Path]; ok {
			rec.StaleView = v.Why
			switch {
			case v.Err != nil:
				rec.StaleView = "unknown"
				line += fmt.Sprintf("; whether it changed since you read it cannot be judged (%v)", v.Err)
			default:
				if v.By != nil {
					rec.ChangedBy = v.By.Session
				}
				line += "; " + session.StaleWhat(v) + " since you read it, by " + session.StaleBy(v) + ": read it again before you change it"
			}
		}
		if err := p.Emit(rec, line); err != nil {
			return err
		}
	}
	if c.StaleErr != nil {
		fmt.Fprintln(p.ErrOut, Linef("agentlock: warning: whether your view of these files is stale could not be judged: %v", c.StaleErr))
	}
	if err != nil {
		return err
	}
	if c.Blocked {
		return ErrReported
	}
	return nil
}

// Ended prints the end of session (session.Service.Finish) that err
// ended: its entry marked Finished, or, when the registry did not have
// it, how many of its locks were released. It returns err.
func (p Printer) Ended(f session.Finished, session string, err error) error {
	if !f.Registered {
		if len(f.Released) > 0 || err != nil {
			p.Say("agentlock: released %d lock(s) of %s", len(f.Released), session)
		}
		return err
	}
	if perr := p.Emit(Finished(f.Session, f.RegistryPath, f.Released)); perr != nil {
		return perr
	}
	return err
}

// Registered prints a registration (session.Service.Start): the entry
// and, when its space was claimed, the areas taken; a claim that was
// refused or failed is said after the registration.
func (p Printer) Registered(s session.Started, claimed bool) error {
	if !claimed {
		return p.Emit(SessionChanged(s.Session, s.Registry, "registered"))
	}
	if errors.Is(s.ClaimErr, core.ErrLocked) {
		p.Say("agentlock: registered %s, but its space was not claimed:", s.Session.SessionID)
		return p.Refusals(workspace.Areas(s.Session.Space), s.ClaimErr, 0, nil)
	}
	if s.ClaimErr != nil {
		return fmt.Errorf("registered %s, but its space was not claimed: %w", s.Session.SessionID, s.ClaimErr)
	}
	p.Warn(s.Mirror)
	if err := p.Emit(SessionChanged(s.Session, s.Registry, "registered")); err != nil {
		return err
	}
	return p.Leases(s.Leases)
}

// Changed prints a registry entry a change wrote (update, handoff), with
// verb ("updated").
func (p Printer) Changed(c session.Changed, verb string) error {
	return p.Emit(SessionChanged(c.Session, c.Registry, verb))
}

// Registry prints the registry (session.Service.Show): a record per
// session, or the table for people.
func (p Printer) Registry(s session.Shown) error {
	if p.JSON {
		for _, e := range s.Sessions {
			if !e.IsSession() {
				continue
			}
			rec := Shown(e, s.RegistryPath, s.Idle[e.SessionID])
			if views := s.StaleViews[e.SessionID]; len(views) > 0 {
				rec.StaleViews = StaleViewsOf(views)
			}
			if err := p.Record(rec); err != nil {
				return err
			}
		}
		p.warnStaleViews(s.StaleViewsErr)
		return nil
	}
	if len(s.Sessions) == 0 {
		_, err := fmt.Fprintf(p.Out, "no sessions in %s\n", Escape(s.Registry))
		return err
	}
	if err := WriteSessionTable(p.Out, s.Sessions, s.Idle, s.Project); err != nil {
		return err
	}
	p.warnStaleViews(s.StaleViewsErr)
	return WriteStaleViews(p.Out, s.Sessions, s.StaleViews, s.Project)
}

func (p Printer) warnStaleViews(err error) {
	if err != nil {
		fmt.Fprintln(p.ErrOut, Linef("agentlock: warning: whether the sessions' views of the files they read are stale could not be judged: %v", err))
	}
}

// WriteStaleViews prints, after show's table, the sessions' stale views
// (session.Shown.StaleViews) for people: per session, each file it must
// read again before it writes it and who changed it; nothing when none.
func WriteStaleViews(w io.Writer, sessions []core.Session, views map[string][]workspace.View, root string) error {
	if len(views) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString("\nstale views (read the file again before changing it):\n")
	for _, n := range Nest(sessions) {
		id := sessions[n.Index].SessionID
		for _, v := range views[id] {
			line := fmt.Sprintf("  %s  %s  %s", Escape(id), Escape(Rel(root, v.Path)), v.Why)
			if v.By != nil {
				line += " by " + Escape(v.By.Session)
			} else if v.Why == workspace.ViewChanged {
				line += " outside agentlock"
			}
			b.WriteString(line + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Listing prints status (session.Service.Status, all: free lock files
// too): the records with their orphaned locks and other worktrees'
// changes marked (what could not be marked is a warning), in one write.
// The lock files another process kept locked past AGENTLOCK_LOCK_WAIT are
// an environment error (core.Busy), after the listing.
func (p Printer) Listing(l session.Listing, all bool) error {
	records := Statuses(l.States, l.Problems, all)
	err := MarkOrphans(records, l.States, func() (func(core.State) bool, error) { return l.Orphaned, l.OwnersErr })
	if err != nil {
		fmt.Fprintln(p.ErrOut, Linef("agentlock: warning: orphaned locks are not marked: %v", err))
	}
	if l.ConflictsErr != nil {
		fmt.Fprintln(p.ErrOut, Linef("agentlock: warning: could not check the other worktrees for changes: %v", l.ConflictsErr))
	} else {
		MarkConflicts(records, l.Conflicts)
	}
	if l.StaleViewsErr != nil {
		fmt.Fprintln(p.ErrOut, Linef("agentlock: warning: whether the holders' views of their files are stale could not be judged: %v", l.StaleViewsErr))
	}
	MarkStaleViews(records, l.StaleViews)
	// One write for the whole listing, not one per cell: among 10,000
	// locks the unbuffered table took 100,000 write calls.
	buf := bufio.NewWriterSize(p.Out, 64<<10)
	out := p
	out.Out = buf
	if l.Remote && !p.JSON && len(records) > 0 {
		// A distributed store: which lock space this checkout uses.
		fmt.Fprintf(buf, "locks of %s\n", Escape(l.Where))
	}
	if p.JSON {
		for _, r := range records {
			if err := out.Record(r); err != nil {
				return err
			}
		}
	} else if err := WriteStatusText(buf, records, l.Where, l.Workspace.Project); err != nil {
		return err
	}
	if err := buf.Flush(); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return core.Busy(l.Problems)
}

// Identity prints the session a command would act for (whoami); with
// none, it says what it looked for and returns ErrReported.
func (p Printer) Identity(id session.Identity) error {
	if !id.Known() {
		if p.JSON {
			if err := p.Record(Whoami{}); err != nil {
				return err
			}
		}
		fmt.Fprintln(p.ErrOut, "agentlock: no session id here: no --session, no AGENTLOCK_SESSION, no agent's "+
			"session variable, and no agent process above this one recorded by a session-start hook (see docs/identity.md)")
		return ErrReported
	}
	return p.Emit(Whoami{SessionID: id.ID, Source: id.Source}, fmt.Sprintf("%s (from %s)", id.ID, id.Describe()))
}

// Renewed prints the renewal of every lock of session that err ended
// (session.Service.RenewSession): the store's notices as warnings and,
// when verbose, each lock renewed (SessionRenewed). It returns err.
func (p Printer) Renewed(r session.Renewed, err error, session string, verbose bool) error {
	if perr := p.SessionRenewed(r.States, r.Notices, session, verbose); perr != nil {
		return perr
	}
	return err
}

// RenewedPaths prints the renewals of session's locks on paths that err
// ended (session.Service.RenewPaths): every lock lost and, when verbose,
// every lock renewed. It returns err, or ErrReported when a lock was lost.
func (p Printer) RenewedPaths(renewals []workspace.Renewal, err error, session string, verbose bool) error {
	lost, perr := p.Renewals(renewals, session, verbose)
	switch {
	case perr != nil:
		return perr
	case err != nil:
		return err
	case lost:
		return ErrReported
	}
	return nil
}
