package session

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/store"
	"github.com/agentlock/agentlock/workspace"
)

// AcquireRequest is what Acquire takes.
type AcquireRequest struct {
	// Paths are the paths to lock, all or none; relative ones are taken
	// from the working folder. A path ending in "/" or naming an existing
	// folder is an area.
	Paths []string
	// Session is the session to lock for; "" for the command's own
	// (Identity).
	Session string
	// Wait, when positive, retries a refused acquisition until the paths
	// are free or Wait has passed.
	Wait time.Duration
	// OnWait, when not nil, is told once that the acquisition was refused
	// and now waits: the progress of a waiting acquire, which a front end
	// shows (a line on stderr, an MCP progress notification).
	OnWait func(Waiting)
	// Gate makes it the pre-edit hook's acquisition, with the gate's
	// policy (see Gate); nil for a command's.
	Gate *Gate
	// JudgeViews, for a command's acquisition (no Gate), judges the
	// session's views of the files taken as the gate does: a stale view is a StaleError in deny mode (the
	// locks, taken, stay: the file is reserved for its read again),
	// Acquired.Stale in warn mode. The MCP server's acquire sets it: the
	// model locks a file before it changes it by any means.
	JudgeViews bool
}

// Gate is the policy of the pre-edit hook, which acquires the paths an
// agent's tool is about to change before letting it run:
//
//   - only the paths agentlock coordinates are locked
//     (workspace.Workspace.Coordinated); none is nothing to do;
//   - a path it cannot resolve, an invalid setting, no session: refused
//     (UnresolvedError, ProblemError, NoSessionError), since a path known
//     to be agentlock's business that could not be checked must not be
//     let through;
//   - files also changed in another worktree are Conflicts (notices for
//     the model) and, where the repository denies such edits
//     (init --deny-conflicts), a ConflictError — the locks, taken, stay;
//   - with the locks taken, the session's view of each file is judged
//     against the version it last read (workspace.Workspace.Views, by
//     each workspace's stale-write mode): a stale view is a StaleError in
//     deny mode (the locks, taken, stay: the file is reserved for the
//     session's re-read and redo) and Acquired.Stale in warn mode.
//   - a path held by another session's hook lock that its idle bound frees
//     within the working folder's hook wait (workspace.HookLocks.GateWait)
//     is waited for, that long at most, instead of refused.
type Gate struct {
	// Problems are the invalid settings of the command (AGENTLOCK_TIMEOUT
	// out of range, say): the timeout decides who holds a file, so a
	// coordinated path is refused while there is one.
	Problems []error
	// Whole are the paths of the edit (as given, like Paths) that the
	// tool writes whole — a whole-file write, a patch's Add File or
	// Delete File — for which a file the session never read is judged too
	// (workspace.ViewOverwrite).
	Whole []string
	// ReadsUnseen is set for an agent whose reads agentlock cannot see
	// (it declares no read tools: Codex reads through its shell): a
	// refusal for a stale view then records the file as it is as the
	// session's version, the refusal being its notice.
	ReadsUnseen bool
}

// Waiting is what OnWait is told when an acquisition starts waiting.
type Waiting struct {
	// Held is the refusal it waits out (the first held path).
	Held *core.HeldError
	// Wait is how long it waits at most.
	Wait time.Duration
	// Legacy is what Acquired.Legacy holds, known before the wait.
	Legacy LegacyHeld
}

// LegacyHeld are the live locks that agent-registry 0.2's default home
// holds on paths whose locks this workspace keeps elsewhere (see
// workspace.Workspace.LegacyHeld): a split, a warning.
type LegacyHeld struct {
	Home string
	Held []core.State
}

// Acquired is the outcome of Acquire. It is filled as far as the
// acquisition went, refused or not.
type Acquired struct {
	// Session is the session the paths were locked for.
	Session string
	// Parent is, when Session is a sub-agent's, the session it works for
	// (Identity.Parent): the rules between relatives applied.
	Parent string
	// Paths are the paths the acquisition was about: the request's, or a
	// gate's coordinated real paths.
	Paths []string
	// Leases are the locks taken or renewed, all or none.
	Leases []core.Lease
	// Workspace is the working folder's workspace.
	Workspace *workspace.Workspace
	// Legacy are the split locks of agent-registry 0.2's home.
	Legacy LegacyHeld
	// Mirror are the registries that could not list the paths in the
	// session's do_not_touch (the locks are taken all the same).
	Mirror []*workspace.MirrorError
	// Conflicts are the files just locked that another worktree of their
	// repository changed too; ConflictsErr says why they could not be
	// looked for (a warning: the locks are taken).
	Conflicts    []workspace.Conflict
	ConflictsErr error
	// Waited, for a gate, is how long at most it waited for locks their
	// holders' idle bound was about to free (see Gate); zero when it did
	// not wait.
	Waited time.Duration
	// Places, for a refusal by held locks, say where each holder works,
	// by its session id (workspace.Workspace.Place: " (worktree ../wt-a,
	// branch feat-a)" in repository scope, "" elsewhere): every front end
	// names them.
	Places map[string]string
	// Stale are, for a gate, the files whose view is stale or could not
	// be judged (see Gate), refused or not.
	Stale []workspace.View
	// VersionsErr says why a command's acquisition could not be recorded
	// as a hold of its files (workspace.Workspace.Held): a warning, the
	// locks are taken.
	VersionsErr error

	// claim is who the paths are locked for, and how.
	claim  core.Claim
	groups []group
}

// group is the paths whose locks live in one workspace, and what they
// took there.
type group struct {
	ws     *workspace.Workspace
	paths  []string
	leases []core.Lease
	// unresolved is set when a path of the group has no real path: the
	// engine refuses the group first, before anything is taken.
	unresolved bool
}

// Acquire takes the locks of paths for a session, all or none (see
// AcquireRequest, Gate).
//
// Paths whose locks live in several workspaces (another project, another
// lock folder) are the one rule of every front end: each workspace's
// paths are one all-or-none transaction on that workspace's store, the
// workspaces taken one by one in a fixed order (by lock folder), and a
// refusal in one releases what the earlier ones newly took — all or none
// across workspaces too. Refusing such a mix instead would refuse an edit
// that spans two projects, which the hooks have always let through when
// both were free, and the two stores may be of different kinds (etcd and
// lock files), which no single transaction spans. The fixed order keeps
// two sessions that wait for the same workspaces from holding one each.
// The locks of the earlier workspaces are visible to others between the
// steps; the lock is the promise, not the instant.
//
// A refusal is the engine's error (a *core.HeldError per held path,
// joined, matching core.ErrLocked), or a gate's; any other error is a
// failure. The mirror into the registry (Acquired.Mirror) and the
// worktree check (Acquired.ConflictsErr) never fail an acquisition.
func (s *Service) Acquire(ctx context.Context, req AcquireRequest) (Acquired, error) {
	out := Acquired{Paths: req.Paths}
	ws, err := s.Workspace(ctx)
	if err != nil {
		return out, err
	}
	out.Workspace = ws
	paths := req.Paths
	if req.Gate != nil {
		var unresolved []error
		paths, unresolved = ws.Coordinated(paths, s.workDir)
		if len(unresolved) > 0 && ws.Enabled() {
			return out, &UnresolvedError{Err: unresolved[0]}
		}
		out.Paths = paths
		if len(paths) == 0 {
			return out, nil
		}
		if len(req.Gate.Problems) > 0 {
			return out, &ProblemError{Err: req.Gate.Problems[0]}
		}
	}
	out.Session = s.session(ctx, req.Session)
	if req.Gate != nil && out.Session == "" {
		return out, &NoSessionError{Path: paths[0]}
	}
	if err := core.ValidateSession(out.Session); err != nil {
		return out, err
	}
	out.claim = core.Claim{Session: out.Session, Taken: store.TakenExplicit}
	if id := s.Identity(ctx); out.Session == id.ID {
		out.Parent = id.Parent // a sub-agent's: the rules between relatives apply
		out.claim.Parent = id.Parent
	}
	if req.Gate != nil {
		out.claim.Taken = store.TakenByHook
	}
	if len(paths) == 0 {
		return out, errors.New("acquire: no path given")
	}
	if out.groups, err = s.group(ctx, paths, req.Gate != nil); err != nil {
		return out, err
	}
	out.Legacy.Home, out.Legacy.Held = ws.LegacyHeld(ctx, paths)
	err = out.take(ctx, false)
	if wait := gateWait(req.Gate, ws, err); wait > 0 {
		// The holders' idle bound frees every lock in the way within the
		// hook's wait: waiting serves the model better than a refusal.
		wctx, cancel := context.WithTimeout(ctx, wait)
		defer cancel()
		out.Waited = wait
		err = out.take(wctx, true)
	}
	if errors.Is(err, core.ErrLocked) && req.Wait > 0 {
		if req.OnWait != nil {
			var held *core.HeldError
			errors.As(err, &held)
			req.OnWait(Waiting{Held: held, Wait: req.Wait, Legacy: out.Legacy})
		}
		wctx, cancel := context.WithTimeout(ctx, req.Wait)
		defer cancel()
		err = out.take(wctx, true)
	}
	if err != nil {
		out.placeHolders(ctx, err)
		return out, err
	}
	for _, g := range out.groups {
		out.Leases = append(out.Leases, g.leases...)
	}
	if req.Gate == nil {
		var stale error
		if req.JudgeViews {
			// The files taken, by real path (a command's paths are as
			// given); areas have no version. Judged before the holds are
			// recorded: a file keeps one hold record, which names the
			// session that changed it.
			for i := range out.groups {
				out.groups[i].paths = nil
				for _, l := range out.groups[i].leases {
					if !store.IsArea(l.Path) {
						out.groups[i].paths = append(out.groups[i].paths, l.Path)
					}
				}
			}
			stale = out.judge(ctx, &Gate{}, nil, nil)
		}
		for _, g := range out.groups {
			out.VersionsErr = errors.Join(out.VersionsErr, g.ws.Held(ctx, out.Session, g.leases))
		}
		if stale != nil {
			return out, stale
		}
	} else {
		whole, _ := ws.Coordinated(req.Gate.Whole, s.workDir)
		if err := out.judge(ctx, req.Gate, whole, aliasesOf(req.Paths, s.workDir, s.settings.RealPath)); err != nil {
			return out, err
		}
	}
	var denied error
	for _, g := range out.groups {
		found, err := g.ws.Conflicts(ctx, leasePaths(g.leases))
		if err != nil {
			out.ConflictsErr = errors.Join(out.ConflictsErr, err)
			continue
		}
		out.Conflicts = append(out.Conflicts, found...)
		if req.Gate != nil && denied == nil && len(found) > 0 && g.ws.DenyConflicts() {
			// The locks just taken stay the session's: it did not edit,
			// and it may wait on the other worktree while holding them.
			denied = &ConflictError{Conflict: found[0]}
		}
	}
	return out, denied
}

// group sorts real or given paths into the workspaces that keep their
// locks, in the order first met: an alias's lock lives in its target's
// project. A workspace that cannot be opened is an error: its path cannot
// be checked.
func (s *Service) group(ctx context.Context, paths []string, real bool) ([]group, error) {
	var groups []group
	for _, p := range paths {
		lockPath, unresolved := p, false
		var ws *workspace.Workspace
		var err error
		if !real {
			if lockPath, err = s.settings.RealPath(p, ""); err != nil {
				// The engine refuses it, in its own words, in the
				// working folder's workspace.
				unresolved = true
				ws, err = s.Workspace(ctx)
			}
		}
		if !unresolved {
			ws, err = s.WorkspaceOf(ctx, lockPath)
		}
		if err != nil {
			if real {
				return nil, err
			}
			return nil, fmt.Errorf("acquire: the lock of %s: %w", lockPath, err)
		}
		i := slices.IndexFunc(groups, func(g group) bool { return g.ws == ws })
		if i < 0 {
			i = len(groups)
			groups = append(groups, group{ws: ws})
		}
		groups[i].paths = append(groups[i].paths, p)
		groups[i].unresolved = groups[i].unresolved || unresolved
	}
	return groups, nil
}

// take acquires every group, waiting or not, in the order of their lock
// folders; a failure releases what the groups before it newly took.
func (a *Acquired) take(ctx context.Context, wait bool) error {
	order := make([]int, len(a.groups))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(i, j int) int {
		// A group the engine will refuse goes first: nothing is taken.
		gi, gj := a.groups[i], a.groups[j]
		if gi.unresolved != gj.unresolved {
			if gi.unresolved {
				return -1
			}
			return 1
		}
		return cmp.Compare(gi.ws.LockDir, gj.ws.LockDir)
	})
	a.Mirror = nil
	for n, i := range order {
		g := &a.groups[i]
		var mirror *workspace.MirrorError
		var err error
		g.leases, mirror, err = g.ws.AcquireClaim(ctx, g.paths, a.claim, wait)
		if err != nil {
			// Released whatever the caller's context says: the earlier
			// groups must not stay taken for a request that failed.
			undo := context.WithoutCancel(ctx)
			for _, j := range order[:n] {
				_, _ = a.groups[j].ws.Undo(undo, a.groups[j].leases, a.Session)
				a.groups[j].leases = nil
			}
			g.leases = nil
			return err
		}
		if mirror != nil {
			a.Mirror = append(a.Mirror, mirror)
		}
	}
	return nil
}

// refusedIn returns the workspace of the group a refusal names, else the
// first.
// placeHolders fills Places for the holders of the locks that refused
// the acquisition (err), in the workspace of each refused path.
func (a *Acquired) placeHolders(ctx context.Context, err error) {
	for _, e := range core.Unjoin(err) {
		var held *core.HeldError
		if !errors.As(e, &held) || len(a.groups) == 0 {
			continue
		}
		if _, done := a.Places[held.Owner]; done {
			continue
		}
		if a.Places == nil {
			a.Places = map[string]string{}
		}
		a.Places[held.Owner] = a.refusedIn(held).Place(ctx, held.Owner)
	}
}

func (a *Acquired) refusedIn(held *core.HeldError) *workspace.Workspace {
	for _, g := range a.groups {
		for _, p := range g.paths {
			if real, err := core.LockPath(p, ""); err == nil && (real == held.Path || p == held.Path) {
				return g.ws
			}
		}
	}
	return a.groups[0].ws
}

// Undo releases what the acquisition newly took, for a front end that
// could not tell its user of the success (who would then never release
// the locks): the locks it only renewed, which the session already held
// and knows of, are left alone (workspace.Workspace.Undo). It reports
// whether anything was released.
func (a Acquired) Undo(ctx context.Context) (bool, error) {
	undone := false
	var errs []error
	for _, g := range a.groups {
		u, err := g.ws.Undo(ctx, g.leases, a.Session)
		undone = undone || u
		errs = append(errs, err)
	}
	return undone, errors.Join(errs...)
}

// gateWait is how long a gate waits after the refusal err: the working
// folder's hook wait, when every lock that refused it is another session's
// hook lock that its idle bound frees within it (the holders' turns may
// end sooner; a lock taken on purpose may be held for long); else zero.
func gateWait(gate *Gate, ws *workspace.Workspace, err error) time.Duration {
	wait := ws.HookLocks().GateWait()
	if gate == nil || wait <= 0 || !errors.Is(err, core.ErrLocked) {
		return 0
	}
	var longest time.Duration
	for _, e := range core.Unjoin(err) {
		var held *core.HeldError
		if !errors.As(e, &held) || held.Queued || held.Via != "" || held.Taken != store.TakenByHook || held.Left > wait {
			return 0
		}
		longest = max(longest, held.Left)
	}
	// A little past the bound: the holder's clock, the retry's own time.
	return min(wait, longest+longest/10+100*time.Millisecond)
}

func leasePaths(leases []core.Lease) []string {
	paths := make([]string, len(leases))
	for i, l := range leases {
		paths[i] = l.Path
	}
	return paths
}
