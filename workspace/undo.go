package workspace

import (
	"context"

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
