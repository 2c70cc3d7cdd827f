package session

import (
	"context"
	"time"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/workspace"
)

// RenewPaths renews a session's lock on each of paths, in order (see
// workspace.Workspace.RenewPaths): a lost lock does not stop the others;
// any other error stops at that path. session "" is the command's own.
func (s *Service) RenewPaths(ctx context.Context, paths []string, session string) ([]workspace.Renewal, error) {
	ws, err := s.Workspace(ctx)
	if err != nil {
		return nil, err
	}
	return ws.RenewPaths(ctx, paths, s.session(ctx, session))
}

// Renewed is the outcome of RenewSession.
type Renewed struct {
	// States are the locks renewed, when they were asked for.
	States []core.State
	// Notices are what the store repaired on the way (a rebuilt index),
	// for a warning.
	Notices []error
}

// RenewSession renews every lock a session holds in the working folder's
// lock store, found by owner, however many there are (including none).
// With list, the renewed locks are listed; without, a store that can
// renew a whole session at once does so in one round trip (etcd's lease).
// The error joins the records it could not read, skipped while the others
// were renewed.
func (s *Service) RenewSession(ctx context.Context, session string, list bool) (Renewed, error) {
	var out Renewed
	ws, err := s.Workspace(ctx)
	if err != nil {
		return out, err
	}
	session = s.session(ctx, session)
	if list {
		out.States, out.Notices, err = ws.RenewSession(ctx, session)
	} else {
		out.Notices, err = ws.KeepSessionAlive(ctx, session)
	}
	return out, err
}

// KeepRenewing runs renew at once and then every interval until it fails,
// watching reports that the process bounding the loop is gone (see Life),
// or ctx is done: the one renewal loop (workspace.KeepRenewing).
func (s *Service) KeepRenewing(ctx context.Context, every time.Duration, watching func() bool, renew func() error) error {
	return workspace.KeepRenewing(ctx, every, watching, renew)
}
