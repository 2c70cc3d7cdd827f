package session

import (
	"context"
	"time"

	"github.com/agentlock/agentlock/audit"
	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/workspace"
)

// ReleaseRequest is what Release takes.
type ReleaseRequest struct {
	// Paths are the paths to release, in order.
	Paths []string
	// All releases, instead, every lock the session holds in the working
	// folder's lock store (found by owner); the session stays registered.
	All bool
	// Session is the session whose locks these are; "" for the command's
	// own.
	Session string
}

// Released is the outcome of Release.
type Released struct {
	Session string
	// Results are the paths released, in order: a path held by another
	// session is refused there (workspace.Released.Refused) and the others
	// go on.
	Results []workspace.Released
	// Mirror says that the session's do_not_touch could not follow.
	Mirror *workspace.MirrorError
}

// Release releases a session's locks on paths, or all of them (see
// ReleaseRequest). An error other than a refusal stops at that path,
// with what was done before it in Results.
func (s *Service) Release(ctx context.Context, req ReleaseRequest) (Released, error) {
	out := Released{Session: s.session(ctx, req.Session)}
	ws, err := s.Workspace(ctx)
	if err != nil {
		return out, err
	}
	if req.All {
		out.Results, out.Mirror, err = ws.ReleaseAll(ctx, out.Session)
	} else {
		out.Results, out.Mirror, err = ws.Release(ctx, req.Paths, out.Session)
	}
	return out, err
}

// TurnEnded is the outcome of EndTurn.
type TurnEnded struct {
	Session string
	// Released are the locks the session's hooks had taken, now released.
	Released []core.State
	// Mirror says that the session's do_not_touch could not follow.
	Mirror *workspace.MirrorError
}

// EndTurn ends a turn of a session (its harness's turn-end event: Claude
// Code's Stop, Gemini CLI's AfterAgent, ...): where the workspace's hook
// locks live as long as a turn (workspace.LifetimeTurn), the locks the
// session's pre-edit hooks took are released; those it took on purpose
// stay (workspace.Workspace.EndTurn).
func (s *Service) EndTurn(ctx context.Context, session string) (TurnEnded, error) {
	out := TurnEnded{Session: s.session(ctx, session)}
	ws, err := s.Workspace(ctx)
	if err != nil {
		return out, err
	}
	out.Released, out.Mirror, err = ws.EndTurn(ctx, out.Session)
	return out, err
}

// ForceRequest is what ForceRelease takes.
type ForceRequest struct {
	// Path is the lock to empty, whoever holds it.
	Path string
	// Who released it, and Action, for the audit log: a person at the
	// command line (audit.Person(), audit.ActionForceRelease), the
	// dashboard (audit.ActionPageRelease).
	Who, Action string
	// If, when not nil, is the guard: it sees the lock as it is inside the
	// release's critical section, with the owners read before it, and
	// returns nil to release it or an error to leave it untouched (that
	// error is returned as it is). A record that cannot be read is then
	// never released. Without a guard the lock is emptied whatever it
	// holds, even a corrupt record.
	If func(now core.State, owners workspace.Owners) error
	// Owners are the registry's owners as the caller already read them;
	// nil reads them first.
	Owners *workspace.Owners
}

// ForceReleased is the outcome of ForceRelease.
type ForceReleased struct {
	// Previous is what the lock held.
	Previous core.State
	// StillWorking is set when the lock was taken from an owner still at
	// work: renewed within the timeout by a session that is not finished
	// (workspace.Owners.Releasable), who is not told.
	StillWorking bool
	// Timeout is the staleness timeout the lock was judged with.
	Timeout time.Duration
	// AuditErr says why the audit log could not record the release (the
	// lock is released all the same).
	AuditErr error
}

// ForceRelease empties a lock whoever holds it — the one release by force
// of every front end: release --force, the dashboard's button. The
// registry is read before the lock's critical section (a registry write
// takes its own lock and may list the lock folder): whether the owner is
// still at work is judged on that reading, everything else on the record
// itself. A release that emptied something is recorded in the audit log.
func (s *Service) ForceRelease(ctx context.Context, req ForceRequest) (ForceReleased, error) {
	var out ForceReleased
	ws, err := s.Workspace(ctx)
	if err != nil {
		return out, err
	}
	owners := req.Owners
	if owners == nil {
		// A registry that cannot be read knows no finished session.
		o, _ := ws.Owners(ctx)
		owners = &o
	}
	locker := ws.Locker()
	out.Timeout = locker.Timeout()
	if req.If == nil {
		out.Previous, err = locker.ForceRelease(ctx, req.Path)
	} else {
		out.Previous, err = locker.ForceReleaseIf(ctx, req.Path, func(now core.State) error { return req.If(now, *owners) })
	}
	if err != nil {
		return out, err
	}
	prev := out.Previous
	if prev.Owner != "" || prev.Corrupt != nil {
		out.AuditErr = ws.Audit().Append(audit.ForceReleased(req.Action, req.Who, prev))
	}
	out.StillWorking = prev.Owner != "" && !prev.Stale && !owners.Releasable(prev)
	return out, nil
}
