package session

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentlock/agentlock/audit"
	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/internal/sys/filedigest"
	"github.com/agentlock/agentlock/store"
	"github.com/agentlock/agentlock/workspace"
)

// ReadRequest is what Read and Wrote take.
type ReadRequest struct {
	// Paths are the files read (or written), as the front end got them:
	// relative ones are taken from the working folder. Only the paths
	// agentlock coordinates are recorded (workspace.Workspace.Coordinated).
	Paths []string
	// Session is the session that read them; "" for the command's own.
	Session string
	// Before, for Read, is a time the read happened before: when the hook
	// that reports it started (see workspace.SettleWindow); zero for now.
	Before time.Time
}

// Seen is the outcome of Read and Wrote.
type Seen struct {
	// Session is the session the versions were recorded for.
	Session string
	// Files are the coordinated files, each with the version recorded or
	// why none could be (workspace.Seen.Err).
	Files []workspace.Seen
}

// Read records what a session read of files: for each one agentlock
// coordinates, its version (docs/read-versions.md), kept in the store of
// its lock so that a later write of it can be judged (Acquire's Gate). A
// path that cannot be resolved or digested is reported in the outcome,
// never an error: a read is never refused.
func (s *Service) Read(ctx context.Context, req ReadRequest) (Seen, error) {
	return s.record(ctx, req, func(ws *workspace.Workspace, ctx context.Context, session string, paths []string) ([]workspace.Seen, error) {
		return ws.See(ctx, session, paths, req.Before)
	})
}

// Wrote records a session's own edit of files, after its tool ran: their
// new content is its version of each (so that its consecutive edits pass
// the check) and the file's last change (so that another session's stale
// write of it is refused naming this one).
func (s *Service) Wrote(ctx context.Context, req ReadRequest) (Seen, error) {
	return s.record(ctx, req, (*workspace.Workspace).Wrote)
}

// record runs see on the coordinated paths of req, per workspace.
func (s *Service) record(ctx context.Context, req ReadRequest, see func(*workspace.Workspace, context.Context, string, []string) ([]workspace.Seen, error)) (Seen, error) {
	var out Seen
	ws, err := s.Workspace(ctx)
	if err != nil {
		return out, err
	}
	paths, unresolved := ws.Coordinated(req.Paths, s.workDir)
	for _, u := range unresolved {
		out.Files = append(out.Files, workspace.Seen{Err: u})
	}
	if len(paths) == 0 {
		return out, nil
	}
	out.Session = s.session(ctx, req.Session)
	if err := core.ValidateSession(out.Session); err != nil {
		return out, err
	}
	groups, err := s.group(ctx, paths, true)
	if err != nil {
		return out, err
	}
	var errs []error
	for _, g := range groups {
		got, err := see(g.ws, ctx, out.Session, g.paths)
		out.Files = append(out.Files, got...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return out, errors.Join(errs...)
}

// StaleError refuses a write based on a stale view of its files (see
// workspace.View): Views are the files whose view is stale or could not
// be judged. The locks were taken and stay the session's, so that its
// re-read and redo cannot go stale again (the reservation).
type StaleError struct {
	Session string
	Views   []workspace.View
}

func (e *StaleError) Error() string {
	v := e.Views[0]
	if v.Err != nil {
		return fmt.Sprintf("cannot check whether %s changed since %s read it: %v", v.Path, e.Session, v.Err)
	}
	return fmt.Sprintf("%s %s since %s read it", v.Path, StaleWhat(v), e.Session)
}

// StaleWhat says how a stale view's file changed, in a few words:
// "changed", "was deleted", "is a folder now", ...
func StaleWhat(v workspace.View) string {
	switch v.Why {
	case workspace.ViewUnsettled:
		return "may have changed"
	case workspace.ViewDamaged:
		return "cannot be compared (agentlock's record of the read is damaged)"
	}
	switch d := filedigest.Describe(v.Now); d {
	case "":
		return "changed"
	case "deleted":
		return "was deleted"
	default:
		return "was replaced by " + d
	}
}

// StaleBy names who made the change a stale view misses, for a message:
// "session X (at 15:04:05)", "session X, which held its lock", or "a
// process outside agentlock".
func StaleBy(v workspace.View) string {
	if v.By == nil {
		return "a process outside agentlock (an editor, a script, an agent without agentlock's hooks)"
	}
	at := v.By.At.Local().Format("15:04:05")
	switch v.By.Kind {
	case store.ChangeHold:
		return fmt.Sprintf("session %s, which took its lock at %s", v.By.Session, at)
	case store.ChangeRelease:
		return fmt.Sprintf("session %s, which released its lock at %s", v.By.Session, at)
	}
	return fmt.Sprintf("session %s at %s", v.By.Session, at)
}

// judge judges, after the gate took the locks, the session's views of the
// files of each group, by the stale-write mode of the group's workspace
// (workspace.Workspace.StaleMode): off checks nothing; warn fills
// Acquired.Stale; deny also returns a *StaleError, records the refusal in
// the audit log and, for an agent whose reads agentlock cannot see
// (Gate.ReadsUnseen), settles the session's version (the refusal is the
// notice). A view that could not be judged refuses in deny mode: a path
// known to agentlock that could not be checked is not let through.
func (a *Acquired) judge(ctx context.Context, gate *Gate, whole, aliases []string) error {
	var refused []workspace.View
	for _, g := range a.groups {
		mode, _, modeErr := g.ws.StaleMode()
		if mode == workspace.StaleOff && modeErr == nil || len(g.paths) == 0 {
			continue
		}
		paths := append([]string{}, g.paths...)
		for _, al := range aliases {
			if real, err := core.RealPath(al, ""); err == nil && slices.Contains(g.paths, real) {
				paths = append(paths, al)
			}
		}
		views, err := g.ws.Views(ctx, a.Session, paths, whole)
		if err != nil {
			views = []workspace.View{{Path: g.paths[0], Err: err}}
		}
		var stale []workspace.View
		for _, v := range views {
			if v.Stale || v.Err != nil {
				stale = append(stale, v)
			}
		}
		if len(stale) == 0 || mode != workspace.StaleDeny {
			// The edit goes on: its files are the session's own edit
			// until its after-tool hook, if the CLI runs one for it,
			// records the new content. Best effort: without it, the
			// session's next edit may be refused once.
			_ = g.ws.Editing(ctx, a.Session, views)
		}
		if len(stale) == 0 {
			continue
		}
		a.Stale = append(a.Stale, stale...)
		if mode != workspace.StaleDeny {
			continue
		}
		refused = append(refused, stale...)
		var entries []audit.Entry
		for _, v := range stale {
			e := audit.Entry{Action: audit.ActionStaleWrite, Path: v.Path, SessionID: a.Session, Who: a.Session}
			if v.By != nil {
				e.PreviousOwner = v.By.Session
			}
			entries = append(entries, e)
		}
		_ = g.ws.Audit().Append(entries...)
		if gate.ReadsUnseen {
			// Best effort: a failure leaves the version stale, and the
			// next write is refused again.
			_ = g.ws.Settle(ctx, a.Session, stale)
		}
	}
	if len(refused) == 0 {
		return nil
	}
	return &StaleError{Session: a.Session, Views: refused}
}

// aliasesOf returns, for the paths of an edit, the absolute path of each
// whose final component is a symbolic link (its lock is its target's): a
// session that read the file at that path before it became a link sees it
// replaced. realPath is core.RealPath, or the command's (each path
// resolved once: workspace.Settings.RealPath), whose lock call resolved
// these paths already; a link's folder is resolved only for a link.
func aliasesOf(paths []string, cwd string, realPath func(path, cwd string) (string, error)) []string {
	var out []string
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, p)
		}
		p = filepath.Clean(p)
		// Only a path whose last part is a symbolic link can be an alias:
		// one lstat tells, where resolving its folder walks every part.
		if info, err := os.Lstat(p); err != nil || info.Mode()&fs.ModeSymlink == 0 {
			continue
		}
		dir, err := realPath(filepath.Dir(p), "")
		if err != nil {
			continue
		}
		lexical := filepath.Join(dir, filepath.Base(p))
		if real, err := realPath(p, ""); err == nil && real != lexical && !strings.HasSuffix(p, "/") {
			out = append(out, lexical)
		}
	}
	return out
}

// Untold returns the files session has read that another session (or a
// process outside agentlock) changed since, which it was not told of yet,
// and records them as told (workspace.Workspace.Untold): the after-tool
// hook tells the model once, at its next tool call. Session "" is the
// command's own.
func (s *Service) Untold(ctx context.Context, session string) ([]workspace.View, error) {
	ws, err := s.Workspace(ctx)
	if err != nil {
		return nil, err
	}
	session = s.session(ctx, session)
	if session == "" || !ws.Enabled() {
		return nil, nil
	}
	return ws.Untold(ctx, session)
}
