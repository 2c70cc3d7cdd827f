package session

import (
	"context"

	"github.com/agentlock/agentlock/internal/sys/agentproc"
	"github.com/agentlock/agentlock/internal/sys/procs"
)

// Life returns whether the agent processes that bound a renewal loop of
// session still run, each time it is called: true while any does. They
// are the recorded process the command's identity came from, when it is
// session's; else the nearest recorded ancestor when it runs session;
// else the live processes recorded for session in the working folder's
// workspace, most recent first. It returns nil when nothing is known to
// watch: a loop started from a one-shot shell would then be re-parented
// and renew the session's locks forever after the agent died.
func (s *Service) Life(ctx context.Context, session string) func() bool {
	ws, err := s.Workspace(ctx)
	if err != nil {
		return nil
	}
	id := s.Identity(ctx)
	if id.ID != session {
		id = Identity{ID: session}
	}
	return agentproc.AnyAlive(s.watch(ctx, id, agentproc.Dir(ws.Home)))
}

// watch returns the processes whose life bounds a renewal loop of id's
// session, with the records of dir (see Life).
func (s *Service) watch(ctx context.Context, id Identity, dir string) []procs.ID {
	if p := id.Process; p != nil && p.Session == id.ID && procs.Alive(p.id()) {
		return []procs.ID{p.id()}
	}
	s.mu.Lock()
	found := s.lookup(ctx)
	s.mu.Unlock()
	if p := found.Agent; p != nil && p.Session == id.ID && procs.Alive(p.id()) {
		return []procs.ID{p.id()}
	}
	var out []procs.ID
	for _, r := range agentproc.OfSession(dir, id.ID) {
		out = append(out, r.ID())
	}
	return out
}
