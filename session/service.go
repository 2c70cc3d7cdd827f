package session

import (
	"context"
	"slices"
	"sync"

	"github.com/agentlock/agentlock/internal/sys/agentproc"
	"github.com/agentlock/agentlock/workspace"
)

// Config is what a front end gives the Service of one command.
type Config struct {
	// Settings locate the workspaces (package workspace). Their Cache,
	// when nil, is made by New: every workspace the command opens is
	// opened once.
	Settings workspace.Settings
	// Identity is what the front end gathered to resolve the session.
	Identity Inputs
	// WorkDir is the real path of the folder the command works in: its
	// workspace is where commands that take no path work, where relative
	// paths of a hook are taken from, and whose agent records the
	// identity's look-up reads. "" is the process's working directory.
	WorkDir string
}

// Service runs the verbs of one command (a command line, a hook, one MCP
// tool call). It opens each workspace once and resolves the identity once,
// lazily, for the life of the command; it is safe for concurrent use.
type Service struct {
	settings workspace.Settings
	inputs   Inputs
	workDir  string

	mu      sync.Mutex
	work    *workspace.Workspace
	workErr error
	opened  bool
	found   *Recorded
	id      *Identity
	context *Identity
	// lookups counts the look-ups of the ancestry's agent records.
	lookups int
}

// New returns the service of one command.
func New(cfg Config) *Service {
	if cfg.Settings.Cache == nil {
		cfg.Settings.Cache = workspace.NewCache()
	}
	return &Service{settings: cfg.Settings, inputs: cfg.Identity, workDir: cfg.WorkDir}
}

// ForWorkspace returns a service whose working folder's workspace is ws,
// already open, and which knows no identity: a front end that holds one
// workspace for its life (the dashboard).
func ForWorkspace(ws *workspace.Workspace) *Service {
	return &Service{work: ws, opened: true, workDir: ws.Project}
}

// Problems returns the problems of the project settings of the workspaces
// this command opened (workspace.Workspace.Problems: a timeout file that
// is no timeout, say), each once: warnings, since safe values stand in.
func (s *Service) Problems() []error {
	var out []error
	for _, ws := range s.workspaces() {
		for _, p := range ws.Problems() {
			if !slices.ContainsFunc(out, func(q error) bool { return q.Error() == p.Error() }) {
				out = append(out, p)
			}
		}
	}
	return out
}

// workspaces returns the workspaces this command opened.
func (s *Service) workspaces() []*workspace.Workspace {
	if s.settings.Cache == nil {
		if s.work == nil {
			return nil
		}
		return []*workspace.Workspace{s.work}
	}
	return s.settings.Cache.Opened()
}

// Workspace returns the workspace of the working folder, opened once (see
// workspace.Open, which finishes the sessions whose agent exited).
func (s *Service) Workspace(ctx context.Context) (*workspace.Workspace, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.workspace(ctx)
}

// workspace is Workspace with s.mu held.
func (s *Service) workspace(ctx context.Context) (*workspace.Workspace, error) {
	if !s.opened {
		s.opened = true
		dir := s.workDir
		if dir == "" {
			dir, s.workErr = workspace.WorkDir()
		}
		if s.workErr == nil {
			s.work, s.workErr = workspace.Open(ctx, dir, s.settings)
		}
	}
	return s.work, s.workErr
}

// WorkspaceOf returns the workspace of a real path, as the working
// folder's workspace sees it (a repository not set up for agentlock keeps
// its paths' state there): opened once per command.
func (s *Service) WorkspaceOf(ctx context.Context, realPath string) (*workspace.Workspace, error) {
	if ws, err := s.Workspace(ctx); err == nil {
		return ws.Of(ctx, realPath)
	}
	return workspace.Open(ctx, realPath, s.settings)
}

// Identity returns the session this command acts for, resolved once from
// the front end's Inputs (see Inputs for the order). Its ID is "" when
// nothing names one.
func (s *Service) Identity(ctx context.Context) Identity {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.id == nil {
		id := resolve(s.inputs, func() Recorded { return s.lookup(ctx) })
		s.id = &id
	}
	return *s.id
}

// Context returns, when --session was given (Inputs.Flag) and is not
// AGENTLOCK_SESSION, the session that the agent context names without it:
// a wrapper above, the harness's variable, a recorded agent process above.
// It is zero otherwise: the session a typed id must match (see
// internal/frontend/sessionarg).
func (s *Service) Context(ctx context.Context) Identity {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.context == nil {
		var id Identity
		if s.inputs.Flag != "" && s.inputs.Flag != s.inputs.Env {
			in := s.inputs
			in.Flag, in.Env = "", ""
			id = resolve(in, func() Recorded { return s.lookup(ctx) })
		}
		s.context = &id
	}
	return *s.context
}

// lookup finds, once, the agent records of this process's ancestry in the
// working folder's workspace; nothing when it cannot be opened. s.mu is
// held.
func (s *Service) lookup(ctx context.Context) Recorded {
	if s.found != nil {
		return *s.found
	}
	s.found = &Recorded{}
	ws, err := s.workspace(ctx)
	if err != nil {
		return *s.found
	}
	s.lookups++
	dir := agentproc.Dir(ws.Home)
	if s.inputs.Lookup != nil {
		*s.found = s.inputs.Lookup(dir)
	} else {
		*s.found = recordedOf(agentproc.LookupSelf(dir)())
	}
	return *s.found
}

// session returns typed when not empty, else the command's own session.
func (s *Service) session(ctx context.Context, typed string) string {
	if typed != "" {
		return typed
	}
	return s.Identity(ctx).ID
}
