package workspace

import (
	"errors"
	"fmt"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/identity"
)

// FinishExited finishes the sessions whose agent process has exited
// without finishing them: a harness that never fires its session-end event
// (kimi -p, qwen -p), or one killed before it could. A session qualifies
// when the workspace's home holds a record of its agent process (written
// by the session-start hook or a wrapper, package identity), that process
// is gone, and no record of a live process runs the same session (a
// resumed session, the wrapper around the harness). It is then marked
// Finished and its locks are released, as `agentlock finish` would; a
// session that is not registered has its locks released. The records of
// gone processes are removed once their session is dealt with; one whose
// session could not be finished stays, for the next command to retry.
//
// Every agentlock command that opens the workspace calls it (the next
// command that notices), so nobody sees such a session as working. It
// returns the sessions it finished.
func (w *Workspace) FinishExited() ([]Finished, error) {
	dir := identity.Dir(w.Home)
	gone := identity.Exited(dir)
	if len(gone) == 0 {
		return nil, nil
	}
	var doc *core.Document
	var out []Finished
	var errs []error
	done := map[string]error{}
	for _, g := range gone {
		id := g.Record.Session
		if err, seen := done[id]; id == "" || seen {
			if err == nil {
				errs = append(errs, identity.Remove(dir, g.ID))
			}
			continue
		}
		if len(identity.OfSession(dir, id)) > 0 {
			// Another process runs the session now.
			done[id] = nil
			errs = append(errs, identity.Remove(dir, g.ID))
			continue
		}
		if doc == nil {
			d, err := w.Registry().Load()
			if err != nil {
				return out, fmt.Errorf("finish the sessions of exited agents: %w", err)
			}
			doc = &d
		}
		f, err := w.finishGone(doc, id)
		done[id] = err
		if err != nil {
			errs = append(errs, fmt.Errorf("finish %s, whose agent process %s exited: %w", id, g.ID, err))
			continue
		}
		if f.Registered || len(f.Released) > 0 {
			out = append(out, f)
		}
		errs = append(errs, identity.Remove(dir, g.ID))
	}
	return out, errors.Join(errs...)
}

// finishGone finishes session id, whose agent process exited, as doc (the
// registry read once) shows it: a working session is finished; a finished
// one is left as it is; one the registry does not know has its locks
// released.
func (w *Workspace) finishGone(doc *core.Document, id string) (Finished, error) {
	if err := core.ValidateExistingSession(id); err != nil {
		return Finished{}, err
	}
	s, ok := doc.Find(id)
	switch {
	case ok && s.Status == core.StatusFinished:
		return Finished{}, nil
	case ok:
		return w.Finish(id)
	}
	released, err := w.Locker().ReleaseSession(id)
	return Finished{Released: released}, err
}
