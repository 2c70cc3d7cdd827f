package workspace

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/agentlock/agentlock/gitwt"
	"github.com/agentlock/agentlock/internal/sys/atomicfile"
	"github.com/agentlock/agentlock/internal/sys/plainfile"
)

// In repository scope every worktree of a repository shares one lock space,
// and a refusal names where its holder works: " (worktree ../wt-a, branch
// feat-a)" (docs/worktrees.md). The lock record cannot say it: it is
// agent-registry 0.2's session|seconds|path, whose last field is the rest
// of the line, and whose path is the main worktree's (the identity). A
// registered session's row has worktree and branch keys, but a session
// with no row (a person's acquire --session, a script) has nowhere else.
// So every acquire from a worktree records, per session, where it was
// taken: a small JSON file in the shared home's PlacesDir, named by a hash
// of the session id. Not a registry row: rows are what agent-registry 0.2
// agents read and list, and a person who locks a file is no agent session
// (update and finish of an unregistered id stay refusals); the file is
// agentlock's own, unknown to 0.2, local to the machine like the shared
// home itself (the git common folder), written only when it changes, read
// only to word a refusal, and removed when the session finishes.

// PlacesDir is the folder of a shared home (repository scope) that records
// where each session last acquired a lock: its worktree and branch.
const PlacesDir = "places"

// place is one session's record in PlacesDir.
type place struct {
	SessionID  string    `json:"session_id"`
	Worktree   string    `json:"worktree"`
	Branch     string    `json:"branch,omitempty"`
	RecordedAt time.Time `json:"recorded_at"`
}

// placeFile is the record of session in the home's PlacesDir.
func (w *Workspace) placeFile(session string) string {
	sum := sha256.Sum256([]byte(session))
	return filepath.Join(w.Home, PlacesDir, hex.EncodeToString(sum[:8])+".json")
}

// recordPlace records, in repository scope, that session works in this
// worktree (and its branch), unless the record says so already. It is
// best effort: the record only words refusals, and a lock already taken
// must not fail for it; the error is returned for a warning.
func (w *Workspace) recordPlace(session string) error {
	if w.repo == nil || session == "" {
		return nil
	}
	want := place{SessionID: session, Worktree: w.Project}
	if _, here, err := w.Worktrees(); err == nil {
		want.Branch = here.Branch
	}
	if got, ok := w.readPlace(session); ok && got.Worktree == want.Worktree && got.Branch == want.Branch {
		return nil
	}
	now, _ := w.settings.clockAndTimeout()
	want.RecordedAt = now().UTC()
	data, err := json.Marshal(want)
	if err != nil {
		return fmt.Errorf("record where %s works: %w", session, err)
	}
	file := w.placeFile(session)
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return fmt.Errorf("record where %s works: %w", session, err)
	}
	if err := atomicfile.Write(file, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("record where %s works: %w", session, err)
	}
	return nil
}

// readPlace reads the record of session; ok is false when there is none
// (or it names another session: a hash collision).
func (w *Workspace) readPlace(session string) (place, bool) {
	data, err := plainfile.ReadFile(w.placeFile(session))
	if err != nil {
		return place{}, false
	}
	var p place
	if json.Unmarshal(data, &p) != nil || p.SessionID != session || p.Worktree == "" {
		return place{}, false
	}
	return p, true
}

// forgetPlace removes the record of a session that finished.
func (w *Workspace) forgetPlace(session string) error {
	if w.repo == nil {
		return nil
	}
	err := os.Remove(w.placeFile(session))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("forget where %s worked: %w", session, err)
	}
	return nil
}

// Place names where session works, for messages: " (worktree ../wt-a,
// branch feat-a)" in repository scope, else "". Where it last acquired a
// lock (recordPlace) comes first, then its registry row: a session with
// no row (a person's acquire --session) is named too.
func (w *Workspace) Place(ctx context.Context, session string) string {
	if w.repo == nil || session == "" {
		return ""
	}
	p, ok := w.readPlace(session)
	if !ok {
		doc, err := w.Registry().Load(ctx)
		if err != nil {
			return ""
		}
		s, found := doc.Find(session)
		if !found || s.Worktree == "" {
			return ""
		}
		p = place{Worktree: s.Worktree, Branch: s.Branch}
	}
	name := gitwt.Worktree{Root: p.Worktree}.Name(w.Project)
	if p.Worktree == w.Project {
		name = "this worktree"
	}
	if p.Branch != "" {
		return fmt.Sprintf(" (worktree %s, branch %s)", name, p.Branch)
	}
	return fmt.Sprintf(" (worktree %s)", name)
}
