package workspace

import (
	"context"

	"github.com/agentlock/agentlock/audit"
	"github.com/agentlock/agentlock/core"
)

// Undo releases what an acquisition newly took for session, for a caller
// that could not tell its user of the success (who would then never
// release the locks): the locks it only renewed, which the session already
// held and knows of, are left alone. It reports whether anything was
// released.
func (w *Workspace) Undo(ctx context.Context, leases []core.Lease, session string) (bool, error) {
	var taken []string
	for _, l := range leases {
		if !l.Renewed {
			taken = append(taken, l.Path)
		}
	}
	if len(taken) == 0 {
		return false, nil
	}
	_, _, err := w.Release(ctx, taken, session)
	return err == nil, err
}

// ForceRelease empties the lock on path whoever holds it, even a corrupt
// one (core.Locker.ForceRelease), and records a release that emptied
// something in the audit log as done by who. It returns what the lock
// held; auditErr says why the audit log could not record it (the lock is
// released all the same).
func (w *Workspace) ForceRelease(ctx context.Context, path, who string) (prev core.State, auditErr, err error) {
	prev, err = w.Locker().ForceRelease(ctx, path)
	if err != nil {
		return prev, nil, err
	}
	if prev.Owner != "" || prev.Corrupt != nil {
		auditErr = w.Audit().Append(audit.ForceReleased(audit.ActionForceRelease, who, prev))
	}
	return prev, auditErr, nil
}
