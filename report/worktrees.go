package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentlock/agentlock/audit"
	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/workspace"
)

// Conflict is the record of one line of conflicts --json: a file changed
// in more than one worktree of the repository.
type Conflict struct {
	Kind string `json:"kind"` // "conflict"
	workspace.Overlap
}

// Overlapped reports a file changed in more than one worktree: its record
// and its line for people (not escaped).
func Overlapped(ov workspace.Overlap) (Conflict, string) {
	var in []string
	for _, w := range ov.In {
		in = append(in, worktreeName(w.Name, w.Branch)+" "+w.How)
	}
	line := fmt.Sprintf("%s: changed in %s", ov.Rel, strings.Join(in, ", "))
	if len(ov.Predicted) > 0 {
		line += "; merge conflict predicted between " + strings.Join(ov.Predicted, ", ")
	}
	return Conflict{Kind: "conflict", Overlap: ov}, line
}

// worktreeName is a worktree for people: its name, and its branch in
// parentheses when it is on one.
func worktreeName(name, branch string) string {
	if branch != "" {
		return name + " (" + branch + ")"
	}
	return name
}

// MarkConflicts fills the AlsoChangedIn of the records whose files the
// other worktrees of the repository changed too (found:
// workspace.Workspace.Conflicts).
func MarkConflicts(records []Status, found []workspace.Conflict) {
	for _, c := range found {
		for i := range records {
			if records[i].Path == c.Path {
				records[i].AlsoChangedIn = append(records[i].AlsoChangedIn, worktreeName(c.Name, c.Branch))
			}
		}
	}
}

// MarkStaleViews fills the StaleView and ChangedBy of the records of held
// locks whose holder's view of the file is stale (views, by real path:
// session.Listing.StaleViews).
func MarkStaleViews(records []Status, views map[string]workspace.View) {
	if len(views) == 0 {
		return
	}
	for i := range records {
		v, ok := views[records[i].Path]
		if !ok || records[i].SessionID == "" {
			continue
		}
		records[i].StaleView = v.Why
		if v.By != nil {
			records[i].ChangedBy = v.By.Session
		}
	}
}

// AuditLine is an entry of the audit log for people (not escaped): when
// (local time), what, on which path, by whom, the previous owner, and for
// a finish the locks it released.
func AuditLine(e audit.Entry) string {
	when := e.Time
	if t, err := time.Parse(time.RFC3339Nano, e.Time); err == nil {
		when = t.Local().Format("2006-01-02 15:04:05")
	}
	line := fmt.Sprintf("%s  %s", when, e.Action)
	if e.Path != "" {
		line += " " + e.Path
	}
	line += " by " + e.Who
	if e.PreviousOwner != "" {
		line += " (held by " + e.PreviousOwner + ")"
	}
	if e.Action == audit.ActionFinish {
		line += fmt.Sprintf(", %d lock(s) released", e.Released)
	}
	return line
}

// MarkOrphans sets the Orphaned of the records of held locks (states, as
// the listing that made records gave them) whose owner is gone. owners
// gives the rule (workspace.Owners.Orphaned); it is asked only when a lock
// is held, since it reads the registry, and its error comes back.
func MarkOrphans(records []Status, states []core.State, owners func() (func(core.State) bool, error)) error {
	held := map[string]core.State{}
	for _, st := range states {
		if st.Owner != "" {
			held[st.Ref] = st
		}
	}
	if len(held) == 0 {
		return nil
	}
	orphaned, err := owners()
	if err != nil {
		return err
	}
	for i := range records {
		if st, ok := held[records[i].File]; ok {
			records[i].Orphaned = orphaned(st)
		}
	}
	return nil
}
