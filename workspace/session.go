package workspace

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/agentlock/agentlock/audit"
	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/internal/sys/agentproc"
	"github.com/agentlock/agentlock/internal/sys/procs"
	"github.com/agentlock/agentlock/store"
)

// MirrorError reports that a lock operation succeeded but the registry's
// view of it (the session's do_not_touch) could not be updated. The lock
// records are authoritative, so it is a warning, not a failure.
type MirrorError struct {
	Err error
}

func (e *MirrorError) Error() string {
	return fmt.Sprintf("the lock operation succeeded, but the registry was not updated: %v", e.Err)
}

func (e *MirrorError) Unwrap() error { return e.Err }

// Acquire takes the locks on paths for session, all or none (see
// core.Locker.AcquireAll: explicitly), and lists them in the session's
// do_not_touch when the session is registered. The second error is a
// *MirrorError when only the registry could not follow.
func (w *Workspace) Acquire(ctx context.Context, paths []string, session string) ([]core.Lease, *MirrorError, error) {
	return w.AcquireClaim(ctx, paths, core.Claim{Session: session, Taken: store.TakenExplicit}, false)
}

// AcquireWait is Acquire retried until the paths are free or ctx is done
// (see core.Locker.AcquireAllWait).
func (w *Workspace) AcquireWait(ctx context.Context, paths []string, session string) ([]core.Lease, *MirrorError, error) {
	return w.AcquireClaim(ctx, paths, core.Claim{Session: session, Taken: store.TakenExplicit}, true)
}

// AcquireClaim is Acquire for a claim (core.Locker.AcquireClaim: how the
// locks are taken, for whom), waiting as AcquireWait does when wait is
// set.
func (w *Workspace) AcquireClaim(ctx context.Context, paths []string, c core.Claim, wait bool) ([]core.Lease, *MirrorError, error) {
	if err := w.ensureOwnHome(w.LockDir); err != nil {
		return nil, nil, err
	}
	var leases []core.Lease
	var err error
	if wait {
		leases, err = w.Locker().AcquireClaimWait(ctx, paths, c)
	} else {
		leases, err = w.Locker().AcquireClaim(ctx, paths, c)
	}
	if err != nil {
		return nil, nil, err
	}
	w.took(c.Session, leases)
	// The wait's deadline bounds the waiting, not the mirror of what it
	// took: a lock taken at the last moment is still listed.
	return leases, w.mirrorLeases(context.WithoutCancel(ctx), c, leases), nil
}

// took records what an acquisition of session did besides the locks: the
// takeovers in the audit log, and where the session works (recordPlace),
// so that a refusal of these locks to another worktree names it. Both are
// records for people: a failure to write them does not undo the
// acquisition.
func (w *Workspace) took(session string, leases []core.Lease) {
	w.auditTakeovers(session, leases)
	_ = w.recordPlace(session)
}

// auditTakeovers records in the audit log the stale (or expired
// unreadable) locks that leases took from another session. The log is a
// record for people: a failure to write it does not undo the acquisition.
func (w *Workspace) auditTakeovers(session string, leases []core.Lease) {
	var entries []audit.Entry
	for _, l := range leases {
		switch {
		case l.StaleOwner != "" && l.StaleOwner != session:
			entries = append(entries, audit.Entry{Action: audit.ActionTakeover, Path: l.Path, SessionID: session, Who: session, PreviousOwner: l.StaleOwner})
		case l.Corrupt != nil:
			entries = append(entries, audit.Entry{Action: audit.ActionTakeover, Path: l.Path, SessionID: session, Who: session, PreviousOwner: "(unreadable record)"})
		}
	}
	_ = w.Audit().Append(entries...)
}

// Audit returns the audit log of the workspace's home (see package audit),
// or, when the home folder does not exist (the lock folder and the
// registry are configured elsewhere), of the registry's folder, else of
// the folder above the lock folder.
func (w *Workspace) Audit() *audit.Log {
	dir := w.Home
	for _, alt := range []string{filepath.Dir(w.RegistryPath), filepath.Dir(w.LockDir)} {
		if !exists(dir) {
			dir = alt
		}
	}
	l := audit.In(dir)
	l.Now = w.settings.Now
	return l
}

// mirrorLeases lists the paths of leases in the do_not_touch of the
// claim's session and, for the stale locks it took over (or, for a
// sub-agent, the locks it took from its parent's hooks), removes them
// from their previous owner's: Do Not Touch mirrors the lock records. A
// sub-agent's session not yet registered is registered under its parent
// (core.Registry.HoldChild).
func (w *Workspace) mirrorLeases(ctx context.Context, c core.Claim, leases []core.Lease) *MirrorError {
	session := c.Session
	from := map[string][]string{}
	for _, l := range leases {
		for _, prev := range []string{l.StaleOwner, l.FromParent} {
			if prev != "" && prev != session {
				from[prev] = append(from[prev], l.Path)
			}
		}
	}
	if len(from) == 0 && c.Parent == "" {
		return w.mirror(ctx, session, leasePaths(leases), true)
	}
	reg, err := w.settings.registryOf(ctx, leases[0].Path)
	if err != nil {
		return &MirrorError{Err: err}
	}
	registered := false
	if len(from) == 0 {
		// The common case of a sub-agent's edit: it is registered, and
		// lists the path already.
		registered, err = reg.HoldPaths(ctx, session, leasePaths(leases)...)
	}
	switch {
	case err != nil || registered:
	case c.Parent != "":
		_, err = reg.HoldChild(ctx, ChildEntry(c.Session, c.Parent), leasePaths(leases), from)
	default:
		_, err = reg.TakeOver(ctx, session, leasePaths(leases), from)
	}
	if err != nil {
		return &MirrorError{Err: err}
	}
	return nil
}

// ChildEntry is the registry entry of a new sub-agent's session id, which
// works for parent: the one shape of every sub-agent's registration (its
// start hook, its first lock). The registry fills in the parent's
// provider, AI version and place when it has the parent's entry.
func ChildEntry(id, parent string) core.Session {
	return core.Session{SessionID: id, Parent: parent, Provider: UnknownVersion, AIVersion: UnknownVersion,
		WorkingOn: "sub-agent of " + parent}
}

func leasePaths(leases []core.Lease) []string {
	paths := make([]string, len(leases))
	for i, l := range leases {
		paths[i] = l.Path
	}
	return paths
}

// Released is the outcome of releasing one path.
type Released struct {
	// State is the lock as it was: free when there was nothing to release.
	State core.State
	// Refused is set, and nothing changed, when another session holds the
	// lock.
	Refused *core.NotOwnerError
}

// Release releases each of paths for session, in order, and drops the
// released ones from the session's do_not_touch. A path held by another
// session is refused (Released.Refused) and the others go on; any other
// error stops at that path, returning what was done before it.
func (w *Workspace) Release(ctx context.Context, paths []string, session string) ([]Released, *MirrorError, error) {
	locker := w.Locker()
	var out []Released
	var dropped []string
	var freed []core.State
	var err error
	for _, p := range paths {
		var r Released
		r.State, err = locker.Release(ctx, p, session)
		if errors.As(err, &r.Refused) {
			r.State, err = core.State{Path: r.Refused.Path, Owner: r.Refused.Owner}, nil
		}
		if err != nil {
			break
		}
		if r.Refused == nil && r.State.Owner != "" {
			dropped = append(dropped, r.State.Path)
			freed = append(freed, r.State)
		}
		out = append(out, r)
	}
	// A record for the reads that follow (read versions); best effort.
	_ = w.Freed(ctx, session, freed)
	return out, w.mirror(ctx, session, dropped, false), err
}

// ReleaseAll releases every lock that session owns in the workspace's lock
// folder, and every lock of its sub-agents (core.Locker.ReleaseSession;
// found by owner, like Finish), and drops them from each owner's
// do_not_touch; the sessions stay registered as they are.
func (w *Workspace) ReleaseAll(ctx context.Context, session string) ([]Released, *MirrorError, error) {
	states, err := w.Locker().ReleaseSession(ctx, session)
	_ = w.Freed(ctx, session, states)
	out := make([]Released, len(states))
	byOwner := map[string][]string{} // the session's, and its sub-agents'
	var owners []string
	for i, st := range states {
		out[i] = Released{State: st}
		if _, ok := byOwner[st.Owner]; !ok {
			owners = append(owners, st.Owner)
		}
		byOwner[st.Owner] = append(byOwner[st.Owner], st.Path)
	}
	var mirrored *MirrorError
	for _, o := range owners {
		if m := w.mirror(ctx, o, byOwner[o], false); m != nil && mirrored == nil {
			mirrored = m
		}
	}
	return out, mirrored, err
}

// mirror adds paths to (hold) or removes them from the do_not_touch of
// session, in the registry of the first path's workspace, when the session
// is registered there.
func (w *Workspace) mirror(ctx context.Context, session string, paths []string, hold bool) *MirrorError {
	if len(paths) == 0 {
		return nil
	}
	reg, err := w.settings.registryOf(ctx, paths[0])
	if err == nil {
		if hold {
			_, err = reg.HoldPaths(ctx, session, paths...)
		} else {
			_, err = reg.DropPaths(ctx, session, paths...)
		}
	}
	if err != nil {
		return &MirrorError{Err: err}
	}
	return nil
}

// Finished is the outcome of Finish.
type Finished struct {
	// Session is the entry as marked Finished; zero when the session was
	// not registered.
	Session core.Session
	// Registered tells whether the registry had the session.
	Registered bool
	// Released are the locks of the session that were released.
	Released []core.State
}

// Finish ends a session: it is marked Finished in the registry (its
// do_not_touch emptied) and every lock it owns in the lock folder is
// released — found by owner, including paths it never listed, and never a
// lock of another session. Its sub-agents' sessions end with it: marked
// Finished, their locks released. The locks are released even when the session is
// not registered (the error then matches core.ErrNoSession) or the
// registry cannot be read: a finished agent must not keep its locks. Any id
// that a lock record can hold is accepted (core.ValidateExistingSession),
// so that sessions agent-registry 0.2 started can be finished.
func (w *Workspace) Finish(ctx context.Context, id string) (Finished, error) {
	if err := core.ValidateExistingSession(id); err != nil {
		return Finished{}, err
	}
	var out Finished
	s, regErr := w.Registry().Finish(ctx, id)
	if regErr == nil {
		out.Session, out.Registered = s, true
	}
	released, relErr := w.Locker().ReleaseSession(ctx, id)
	out.Released = released
	_ = w.Freed(ctx, id, released)
	if regErr == nil || len(released) > 0 {
		_ = w.Audit().Append(audit.Entry{Action: audit.ActionFinish, SessionID: id, Who: id, Released: len(released)})
	}
	// What the session read goes with it (docs/read-versions.md).
	return out, errors.Join(regErr, relErr, w.forgetPlace(id), w.Forget(ctx, id))
}

// EndSession is the end of a session its harness announced (a
// session-end hook): Finish, and the session's agent records (package
// agentproc) are removed. A session whose harness ended it is nobody's
// identity: a command run later under that harness process, or in the
// shell that ran the hooks, no longer answers with it, nor refuses
// another session in its name; the harness's next session start records
// the process again. (A session that finishes itself, agentlock finish,
// keeps its records: its harness goes on, and its hooks still name it.)
func (w *Workspace) EndSession(ctx context.Context, id string) (Finished, error) {
	out, err := w.Finish(ctx, id)
	// One flat list, so that a caller can tell each error apart
	// (core.Unjoin): an unregistered session is no problem at its end.
	return out, errors.Join(append(core.Unjoin(err), agentproc.RemoveSession(agentproc.Dir(w.Home), id))...)
}

// SessionStart says how StartSession treats an entry already there and
// what else it records.
type SessionStart struct {
	// Update, when not nil, changes an entry already there (working or
	// finished), which is then marked working, keeping its start and its
	// do_not_touch: register's re-registration, which says what the
	// session works on now. When nil, an entry already working is left as
	// it is and a finished one is marked working again, listing the locks
	// the session holds (the session-start hooks).
	Update func(old *core.Session)
	// AgentPID, when not zero, is recorded as the agent process of the
	// session (package agentproc), as a wrapper script: commands run under
	// it find the session by their ancestry even where AGENTLOCK_SESSION
	// was dropped from their environment.
	AgentPID int
	// Agent names the agent the session belongs to (claude, codex, ...),
	// recorded with AgentPID; "" for none known.
	Agent string
}

// Defaults of a new entry that does not say them.
const (
	// HumanProvider is the provider of a session of no known agent: a
	// person's (or a script's).
	HumanProvider = "human"
	// UnknownVersion is the AI version of a session that does not say it.
	UnknownVersion = "unknown"
)

// StartSession starts session s: the one session start of register, the
// wrapper scripts (which run register --agent-pid) and the session-start
// hooks. In one write section of the registry (core.Registry.StartWith:
// the registry is read inside it), s is registered as working, or the
// entry already there is changed as how says. A new entry, or a finished
// one started again, lists the live locks the session already holds as
// its do_not_touch (a hook may have taken some before it registered); a
// new entry without a provider is HumanProvider's, without an AI version
// UnknownVersion's. It returns the entry as written.
func (w *Workspace) StartSession(ctx context.Context, s core.Session, how SessionStart) (core.Session, error) {
	if err := core.ValidateSession(s.SessionID); err != nil {
		return core.Session{}, err
	}
	if err := w.ensureOwnHome(w.RegistryPath); err != nil {
		return core.Session{}, err
	}
	if how.AgentPID != 0 {
		if err := w.recordAgent(how.AgentPID, s.SessionID, how.Agent); err != nil {
			return core.Session{}, err
		}
	}
	held, err := w.heldBy(ctx, s.SessionID)
	if err != nil {
		return core.Session{}, err
	}
	s.DoNotTouch = held
	if s.Provider == "" {
		s.Provider = HumanProvider
	}
	if s.AIVersion == "" {
		s.AIVersion = UnknownVersion
	}
	w.placeSession(&s)
	out, _, err := w.Registry().StartWith(ctx, s, how.Update)
	return out, err
}

// recordAgent records process pid as the agent process of session in the
// workspace's agent records, as a wrapper script does.
func (w *Workspace) recordAgent(pid int, session, agent string) error {
	p, err := procs.Get(pid)
	if err != nil {
		return fmt.Errorf("agent process %d: %w", pid, err)
	}
	now, _ := w.settings.clockAndTimeout()
	_, err = agentproc.Write(agentproc.Dir(w.Home), p, session, agent, agentproc.KindWrapper, now())
	return err
}

// Coordinated returns the real paths that agentlock coordinates for a
// session working in w: those whose real path is in w's project (when
// agentlock is in use there), or in another project set up for agentlock.
// An edit of ~/.claude/settings.json or /tmp/x is nobody's business here.
// Relative paths are taken from cwd. The project of a path is found from
// its real path, so an alias (a symbolic link to a file or a folder) that
// lives outside the project is gated like the file itself. A path whose
// real path cannot be resolved comes back in unresolved, as the error that
// says why, so that the caller can refuse what it could not check.
func (w *Workspace) Coordinated(paths []string, cwd string) (out []string, unresolved []error) {
	for _, p := range paths {
		real, err := w.settings.RealPath(p, cwd)
		if err != nil {
			unresolved = append(unresolved, err)
			continue
		}
		if w.Gates(real) {
			out = append(out, real)
		}
	}
	return out, unresolved
}

// Gates reports whether agentlock coordinates the real path for a session
// working in w: the path is in w's project and agentlock is in use there,
// or it is in another project set up for agentlock. It is the one
// definition of "this path is coordinated here": the pre-edit hook gates
// exactly these paths (Coordinated), and doctor fails a project whose
// installed hooks would gate none of its files.
func (w *Workspace) Gates(realPath string) bool {
	project := w.settings.FindProject(realPath)
	return project != "" && ((project == w.Project && w.Enabled()) || w.settings.hasHome(project))
}

// Of returns the workspace of a real path under the same settings as w:
// where that path's lock lives.
func (w *Workspace) Of(ctx context.Context, realPath string) (*Workspace, error) {
	return Open(ctx, realPath, w.settings)
}

// heldBy returns the paths of the live (not stale) locks session owns in
// the workspace's lock folder.
func (w *Workspace) heldBy(ctx context.Context, session string) ([]string, error) {
	states, _, err := w.Locker().List(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the locks of %s: %w", session, err)
	}
	held := []string{}
	for _, st := range states {
		if st.Owner == session && !st.Stale {
			held = append(held, st.Name())
		}
	}
	return held, nil
}

// Idle returns the ids of the sessions that show as idle (core.StatusIdle):
// working, registered longer than the timeout ago, and holding no live
// lock in the workspace's lock folder.
func (w *Workspace) Idle(ctx context.Context, sessions []core.Session) map[string]bool {
	return w.idle(ctx, sessions)
}

// idle is Idle on the workspace's own lock store.
func (w *Workspace) idle(ctx context.Context, sessions []core.Session) map[string]bool {
	return w.settings.idleWith(w.lockStore)(ctx, sessions)
}

// IdleAmong is Idle for a caller that has just listed the lock folder
// (a dashboard): locks are the states of that listing, so that the folder
// is not read a second time.
func (w *Workspace) IdleAmong(sessions []core.Session, locks []core.State) map[string]bool {
	now, timeout := w.settings.clockAndTimeout()
	quiet := quietSessions(sessions, now(), timeout)
	if len(quiet) == 0 {
		return nil
	}
	return idleOf(quiet, locks)
}

// clockAndTimeout returns the settings' clock and staleness timeout, the
// defaults filled in.
func (s Settings) clockAndTimeout() (func() time.Time, time.Duration) {
	now, timeout := time.Now, s.Timeout
	if s.Now != nil {
		now = s.Now
	}
	if timeout <= 0 {
		timeout = core.DefaultTimeout
	}
	return now, timeout
}

// quietSessions returns the ids of the working sessions registered longer
// than timeout before now: idle unless they hold a live lock.
func quietSessions(sessions []core.Session, now time.Time, timeout time.Duration) []string {
	var quiet []string
	for i := range sessions {
		started, ok := sessions[i].Started()
		if sessions[i].IsSession() && sessions[i].Status == core.StatusWorking && ok && now.Sub(started) > timeout {
			quiet = append(quiet, sessions[i].SessionID)
		}
	}
	return quiet
}

// idleOf returns the sessions of quiet that hold no live lock among locks.
func idleOf(quiet []string, locks []core.State) map[string]bool {
	held := map[string]bool{}
	for _, l := range locks {
		if l.Owner != "" && !l.Stale {
			held[l.Owner] = true
		}
	}
	idle := map[string]bool{}
	for _, id := range quiet {
		if !held[id] {
			idle[id] = true
		}
	}
	return idle
}

// idleIn is the core.RegistryOptions.Idle of a registry whose sessions
// keep their locks in lockDir. When the lock folder cannot be listed no
// session is called idle: idle is a hint, and a wrong one would invite
// others onto a working session's files.
func (s Settings) idleIn(lockDir string) func(context.Context, []core.Session) map[string]bool {
	return s.idleWith(func() store.Locks {
		return s.fileLocks(s.lockDirFor, lockDir)
	})
}

// idleWith is idleIn on the lock store that locks returns.
func (s Settings) idleWith(locks func() store.Locks) func(context.Context, []core.Session) map[string]bool {
	return func(ctx context.Context, sessions []core.Session) map[string]bool {
		now, timeout := s.clockAndTimeout()
		quiet := quietSessions(sessions, now(), timeout)
		if len(quiet) == 0 {
			return nil
		}
		states, _, err := core.NewLocker(locks(), core.Options{Timeout: timeout, Now: now}).List(ctx)
		if err != nil {
			return nil
		}
		return idleOf(quiet, states)
	}
}

// placeSession names, in repository scope, the worktree and branch s works
// in: one registry lists the sessions of every worktree.
func (w *Workspace) placeSession(s *core.Session) {
	if w.repo == nil || s.Worktree != "" {
		return
	}
	s.Worktree = w.Project
	if _, here, err := w.Worktrees(); err == nil {
		s.Branch = here.Branch
	}
}

// ClaimSpace takes the space entries of the registered session s as area
// locks (each a folder and every path below it), all or none (Acquire),
// and writes them back to its space as the areas' real paths ending in
// "/", so that show and the registry's table mark them while they are
// held. It returns the session as written and the leases; a refusal
// matches core.ErrLocked and changes nothing.
func (w *Workspace) ClaimSpace(ctx context.Context, s core.Session) (core.Session, []core.Lease, *MirrorError, error) {
	if len(s.Space) == 0 {
		return s, nil, nil, fmt.Errorf("claim the space of %s: %w", s.SessionID, errNoSpace)
	}
	leases, warning, err := w.AcquireClaim(ctx, Areas(s.Space), core.Claim{Session: s.SessionID, Parent: s.Parent, Taken: store.TakenExplicit}, false)
	if err != nil {
		return s, nil, nil, err
	}
	claimed, err := w.Registry().Update(ctx, s.SessionID, func(old *core.Session) {
		old.Space = leasePaths(leases)
	})
	return claimed, leases, warning, err
}

// Areas returns the area paths of a session's space entries: each ending
// in "/", the mark of an area lock.
func Areas(space []string) []string {
	areas := make([]string, len(space))
	for i, e := range space {
		if !strings.HasSuffix(e, "/") {
			e += "/"
		}
		areas[i] = e
	}
	return areas
}

// errNoSpace is the failure of ClaimSpace for a session without a space.
var errNoSpace = errors.New("the session has no space to claim")
