package session

import (
	"context"
	"errors"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/workspace"
)

// Checked is the outcome of Check.
type Checked struct {
	// Legacy are the split locks of agent-registry 0.2's home.
	Legacy LegacyHeld
	// Checks are the paths' states, in order, as far as they were read.
	Checks []core.Check
	// Blocked is set when another session holds one of the paths.
	Blocked bool
	// Stale are the session's views of the paths that a write would find
	// stale (workspace.Workspace.Views: read versions), by real path; nil
	// when it has none, or no session is known. StaleErr says why they
	// could not be judged.
	Stale    map[string]workspace.View
	StaleErr error
}

// Check tells a session whether it may change each of paths, changing
// nothing (core.Locker.CheckAndWarn); session "" is the command's own,
// which may be none. An error stops at that path.
func (s *Service) Check(ctx context.Context, paths []string, session string) (Checked, error) {
	var out Checked
	ws, err := s.Workspace(ctx)
	if err != nil {
		return out, err
	}
	session = s.session(ctx, session)
	locker := ws.Locker()
	out.Legacy.Home, out.Legacy.Held = ws.LegacyHeld(ctx, paths)
	for _, p := range paths {
		chk, err := locker.CheckAndWarn(ctx, p, session)
		if err != nil {
			return out, err
		}
		out.Blocked = out.Blocked || !chk.OK
		out.Checks = append(out.Checks, chk)
	}
	if session != "" {
		out.Stale, out.StaleErr = s.staleViews(ctx, ws, paths, session)
	}
	return out, nil
}

// staleViews judges session's views of the coordinated files of paths, as
// the pre-edit hook would before a write of them (not written whole):
// the stale ones, by real path.
func (s *Service) staleViews(ctx context.Context, ws *workspace.Workspace, paths []string, session string) (map[string]workspace.View, error) {
	coordinated, _ := ws.Coordinated(paths, s.workDir)
	if len(coordinated) == 0 {
		return nil, nil
	}
	groups, err := s.group(ctx, coordinated, true)
	if err != nil {
		return nil, err
	}
	var out map[string]workspace.View
	var errs []error
	for _, g := range groups {
		views, err := g.ws.Views(ctx, session, g.paths, nil)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, v := range views {
			if v.Stale || v.Err != nil {
				if out == nil {
					out = make(map[string]workspace.View)
				}
				out[v.Path] = v
			}
		}
	}
	return out, errors.Join(errs...)
}

// StatusRequest is what Status takes.
type StatusRequest struct {
	// All lists the released (free) lock files too.
	All bool
	// Orphans marks the locks whose owner is gone (Listing.Orphaned).
	Orphans bool
	// Conflicts looks for the listed files that another worktree of the
	// repository changed too.
	Conflicts bool
	// StaleViews judges each holder's view of the file it holds
	// (workspace.Workspace.HeldViews).
	StaleViews bool
}

// Listing is the outcome of Status.
type Listing struct {
	// States are the locks of the working folder's lock store; Problems
	// its records that could not be read.
	States   []core.State
	Problems []error
	// Orphaned tells, with StatusRequest.Orphans, whether a held lock's
	// owner is gone (workspace.Owners.Orphaned); nil when no lock is held,
	// or when the registry could not be read (OwnersErr says why).
	Orphaned  func(core.State) bool
	OwnersErr error
	// Conflicts are, with StatusRequest.Conflicts, the listed files also
	// changed in another worktree; ConflictsErr says why they could not be
	// looked for.
	Conflicts    []workspace.Conflict
	ConflictsErr error
	// StaleViews are, with StatusRequest.StaleViews, the held files whose
	// holder's view is stale (it must read the file again before it writes
	// it), by real path; StaleViewsErr says why some could not be judged.
	StaleViews    map[string]workspace.View
	StaleViewsErr error
	// Where names the lock store: the lock folder, or a distributed
	// store's lock space (Remote).
	Where  string
	Remote bool
	// Workspace is the working folder's workspace.
	Workspace *workspace.Workspace
}

// Status lists the locks of the working folder's lock store; with Orphans
// it tells the orphaned ones (the registry is then read when a lock is
// held).
func (s *Service) Status(ctx context.Context, req StatusRequest) (Listing, error) {
	var out Listing
	ws, err := s.Workspace(ctx)
	if err != nil {
		return out, err
	}
	out.Workspace, out.Where = ws, ws.LockDir
	if w, ok := ws.LockStore().(interface{ Where() string }); ok {
		out.Where, out.Remote = w.Where(), true
	}
	out.States, out.Problems, err = ws.Locker().List(ctx)
	if err != nil {
		return out, err
	}
	for _, st := range out.States {
		if req.Orphans && st.Owner != "" {
			owners, err := ws.Owners(ctx)
			if err != nil {
				out.OwnersErr = err
			} else {
				out.Orphaned = owners.Orphaned
			}
			break
		}
	}
	if req.Conflicts {
		out.Conflicts, out.ConflictsErr = ws.Conflicts(ctx, workspace.ListedPaths(out.States, req.All))
	}
	if req.StaleViews {
		out.StaleViews, out.StaleViewsErr = ws.HeldViews(ctx, out.States)
	}
	return out, nil
}

// Changes returns the change feed of the working folder's lock store: a
// value whenever its locks or its registry may have changed.
func (s *Service) Changes(ctx context.Context) (<-chan struct{}, error) {
	ws, err := s.Workspace(ctx)
	if err != nil {
		return nil, err
	}
	return ws.Changes(ctx)
}
