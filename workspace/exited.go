package workspace

import (
	"context"
	"errors"
	"fmt"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/internal/sys/agentproc"
)

// FinishExited finishes the sessions whose agent process has exited
// without finishing them: a harness that never fires its session-end event
// (kimi -p, qwen -p), or one killed before it could. A session qualifies
// when the workspace's home holds a record of its agent process (written
// by the session-start hook or a wrapper, package agentproc), that process
// is gone, and no record of a live process runs the same session (a
// resumed session, the wrapper around the harness). It is then marked
// Finished and its locks are released, as `agentlock finish` would; a
// session that is not registered has its locks released. The records of
// gone processes are removed once their session is dealt with; one whose
// session could not be finished stays, for the next command to retry.
//
// Open calls it for every workspace where agentlock is in use, once per
// command (the next command that notices), so nobody sees such a session
// as working. It returns the sessions it finished.
func (w *Workspace) FinishExited(ctx context.Context) ([]Finished, error) {
	dir := agentproc.Dir(w.Home)
	gone := agentproc.Exited(dir)
	if len(gone) == 0 {
		return nil, nil
	}
	ended := endedSessions(dir, gone)
	var doc *core.Document
	var out []Finished
	var errs []error
	done := map[string]error{}
	for _, g := range gone {
		id := g.Record.Session
		if !ended[id] {
			// Unreadable, or another process runs the session now.
			errs = append(errs, agentproc.Remove(dir, g.ID))
			continue
		}
		err, seen := done[id]
		if !seen {
			if doc == nil {
				d, lerr := w.Registry().Load(ctx)
				if lerr != nil {
					return out, fmt.Errorf("finish the sessions of exited agents: %w", lerr)
				}
				doc = &d
			}
			var f Finished
			f, err = w.finishGone(ctx, doc, id)
			done[id] = err
			if err != nil {
				errs = append(errs, fmt.Errorf("finish %s, whose agent process %s exited: %w", id, g.ID, err))
			} else if f.Registered || len(f.Released) > 0 {
				out = append(out, f)
			}
		}
		if err == nil {
			errs = append(errs, agentproc.Remove(dir, g.ID))
		}
	}
	return out, errors.Join(errs...)
}

// Exited returns the ids of the sessions whose recorded agent processes
// have all exited: those FinishExited would finish. It writes nothing, for
// a view that shows them as ended until a command finishes them (the
// dashboard).
func (w *Workspace) Exited() map[string]bool {
	dir := agentproc.Dir(w.Home)
	return endedSessions(dir, agentproc.Exited(dir))
}

// endedSessions returns the sessions of the gone records that no record of
// a live process in dir runs.
func endedSessions(dir string, gone []agentproc.Gone) map[string]bool {
	ended := map[string]bool{}
	for _, g := range gone {
		if id := g.Record.Session; id != "" && !ended[id] && len(agentproc.OfSession(dir, id)) == 0 {
			ended[id] = true
		}
	}
	return ended
}

// finishGone finishes session id, whose agent process exited, as doc (the
// registry read once) shows it: a working session is finished; a finished
// one is left as it is; one the registry does not know has its locks
// released.
func (w *Workspace) finishGone(ctx context.Context, doc *core.Document, id string) (Finished, error) {
	if err := core.ValidateExistingSession(id); err != nil {
		return Finished{}, err
	}
	s, ok := doc.Find(id)
	switch {
	case ok && s.Status == core.StatusFinished:
		return Finished{}, nil
	case ok:
		return w.Finish(ctx, id)
	}
	released, err := w.Locker().ReleaseSession(ctx, id)
	_ = w.Freed(ctx, id, released)
	return Finished{Released: released}, err
}
