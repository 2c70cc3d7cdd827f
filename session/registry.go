package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/workspace"
)

// StartRequest is what Start takes.
type StartRequest struct {
	// Session is the entry to register; its SessionID "" is the command's
	// own session.
	Session core.Session
	// Update, AgentPID and Agent say how an entry already there is treated
	// and what else is recorded (workspace.SessionStart).
	Update   func(old *core.Session)
	AgentPID int
	Agent    string
	// Claim then takes the session's space entries as area locks, all or
	// none (workspace.Workspace.ClaimSpace).
	Claim bool
}

// Started is the outcome of Start.
type Started struct {
	// Session is the entry as written (its space claimed, with Claim).
	Session core.Session
	// Registry names the registry, for people.
	Registry string
	// Leases are the areas claimed; Mirror says that the session's
	// do_not_touch could not follow them.
	Leases []core.Lease
	Mirror *workspace.MirrorError
	// ClaimErr says why the space was not claimed (a refusal matches
	// core.ErrLocked); the session is registered all the same.
	ClaimErr error
	// VersionsErr says why the session's start could not be recorded
	// with its read versions (workspace.Workspace.Begin): a warning, the
	// session is registered.
	VersionsErr error
}

// Start registers a session as working, or marks the entry already there
// working again (see workspace.Workspace.StartSession), and with Claim
// claims its space. The error is a failure to register.
func (s *Service) Start(ctx context.Context, req StartRequest) (Started, error) {
	var out Started
	ws, err := s.Workspace(ctx)
	if err != nil {
		return out, err
	}
	entry := req.Session
	entry.SessionID = s.session(ctx, entry.SessionID)
	if id := s.Identity(ctx); entry.Parent == "" && entry.SessionID == id.ID {
		entry.Parent = id.Parent // a sub-agent's session is registered under its parent
	}
	out.Session, err = ws.StartSession(ctx, entry, workspace.SessionStart{Update: req.Update, AgentPID: req.AgentPID, Agent: req.Agent})
	if err != nil {
		return out, err
	}
	if err := ws.Begin(ctx, out.Session.SessionID); err != nil && !errors.Is(err, workspace.ErrNoVersions) {
		out.VersionsErr = err
	}
	out.Registry = ws.Registry().Where()
	if req.Claim {
		claimed, leases, mirror, err := ws.ClaimSpace(ctx, out.Session)
		if err != nil {
			out.ClaimErr = err
			return out, nil
		}
		out.Session, out.Leases, out.Mirror = claimed, leases, mirror
	}
	return out, nil
}

// Registration is what register says of a session.
type Registration struct {
	// WorkingOn is what the session works on.
	WorkingOn string
	// Provider, AIVersion, Space and TodoPresent (comma-separated lists,
	// workspace.SplitList) are the fields given; "" is not given. A new
	// entry without a provider gets DefaultProvider (the agent's, for a
	// front end that knows the agents), then Start's defaults; an entry
	// already there keeps the fields not given, its start, the paths it
	// holds, its todo lists and notes.
	Provider, AIVersion, Space, TodoPresent string
	DefaultProvider                         string
	// AgentPID and Agent record the session's agent process
	// (StartRequest).
	AgentPID int
	Agent    string
	// Claim then takes the space entries as area locks, all or none.
	Claim bool
}

// Register registers a session as register does: a new entry, or the one
// already there marked working again with the fields given changed (see
// Registration), its space claimed with Claim.
func (s *Service) Register(ctx context.Context, session string, r Registration) (Started, error) {
	provider := r.Provider
	if provider == "" {
		provider = r.DefaultProvider
	}
	entry := core.Session{SessionID: session, Provider: provider, AIVersion: r.AIVersion, WorkingOn: r.WorkingOn,
		Space: workspace.SplitList(r.Space), Todo: core.Todo{Present: workspace.SplitList(r.TodoPresent)}}
	update := func(old *core.Session) {
		old.WorkingOn = r.WorkingOn
		for _, f := range []struct{ value, dst *string }{{&r.Provider, &old.Provider}, {&r.AIVersion, &old.AIVersion}} {
			if *f.value != "" {
				*f.dst = *f.value
			}
		}
		if r.Space != "" {
			old.Space = workspace.SplitList(r.Space)
		}
		if r.TodoPresent != "" {
			old.Todo.Present = workspace.SplitList(r.TodoPresent)
		}
	}
	return s.Start(ctx, StartRequest{Session: entry, Update: update, AgentPID: r.AgentPID, Agent: r.Agent, Claim: r.Claim})
}

// Finished is the outcome of Finish.
type Finished struct {
	workspace.Finished
	// RegistryPath is the registry the session was marked Finished in.
	RegistryPath string
}

// Finish ends a session: marked Finished, every lock it owns released,
// even when it is not registered (see workspace.Workspace.Finish).
func (s *Service) Finish(ctx context.Context, session string) (Finished, error) {
	return s.finish(ctx, session, (*workspace.Workspace).Finish)
}

// End is the end of a session its harness announced (a session-end
// hook): Finish, and the session is nobody's identity any more (see
// workspace.Workspace.EndSession).
func (s *Service) End(ctx context.Context, session string) (Finished, error) {
	return s.finish(ctx, session, (*workspace.Workspace).EndSession)
}

// finish runs end, Finish or EndSession, in the workspace.
func (s *Service) finish(ctx context.Context, session string, end func(*workspace.Workspace, context.Context, string) (workspace.Finished, error)) (Finished, error) {
	var out Finished
	ws, err := s.Workspace(ctx)
	if err != nil {
		return out, err
	}
	out.RegistryPath = ws.RegistryPath
	out.Finished, err = end(ws, ctx, s.session(ctx, session))
	return out, err
}

// Changed is a registry entry as a change wrote it.
type Changed struct {
	Session core.Session
	// Registry names the registry, for people.
	Registry string
}

// Update changes the fields of a registered session that edit names.
func (s *Service) Update(ctx context.Context, session string, edit workspace.SessionEdit) (Changed, error) {
	return s.change(ctx, func(reg *core.Registry) (core.Session, error) {
		return reg.Update(ctx, s.session(ctx, session), edit.Apply)
	})
}

// Handoff records the path of a handoff note in a session's entry,
// replacing the previous one.
func (s *Service) Handoff(ctx context.Context, session, notes string) (Changed, error) {
	return s.change(ctx, func(reg *core.Registry) (core.Session, error) {
		return reg.AddHandoffRef(ctx, s.session(ctx, session), notes)
	})
}

// change runs one change of the working folder's registry.
func (s *Service) change(ctx context.Context, do func(*core.Registry) (core.Session, error)) (Changed, error) {
	ws, err := s.Workspace(ctx)
	if err != nil {
		return Changed{}, err
	}
	reg := ws.Registry()
	out := Changed{Registry: reg.Where()}
	out.Session, err = do(reg)
	return out, err
}

// Shown is the outcome of Show.
type Shown struct {
	// Sessions are the registry's entries.
	Sessions []core.Session
	// Idle are the ids of the sessions that show as idle.
	Idle map[string]bool
	// Registry names the registry, for people; RegistryPath is its file
	// and Project the project it belongs to.
	Registry, RegistryPath, Project string
	// StaleViews are, by session, the working sessions' stale views of
	// the files they read (workspace.Workspace.StaleViews): what each must
	// read again before it writes it. StaleViewsErr says why some could not
	// be judged.
	StaleViews    map[string][]workspace.View
	StaleViewsErr error
}

// Show reads the working folder's registry: who works on what.
func (s *Service) Show(ctx context.Context) (Shown, error) {
	ws, err := s.Workspace(ctx)
	if err != nil {
		return Shown{}, err
	}
	reg := ws.Registry()
	doc, err := reg.Load(ctx)
	if err != nil {
		return Shown{}, err
	}
	out := Shown{Sessions: doc.Agents, Idle: ws.Idle(ctx, doc.Agents), Registry: reg.Where(), RegistryPath: ws.RegistryPath, Project: ws.Project}
	var errs []error
	for _, a := range doc.Agents {
		if !a.IsSession() || a.Status != core.StatusWorking {
			continue
		}
		views, err := ws.StaleViews(ctx, a.SessionID)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", a.SessionID, err))
		}
		if len(views) > 0 {
			if out.StaleViews == nil {
				out.StaleViews = map[string][]workspace.View{}
			}
			out.StaleViews[a.SessionID] = views
		}
	}
	out.StaleViewsErr = errors.Join(errs...)
	return out, nil
}
