package doctor

import (
	"fmt"
	"strings"

	"github.com/agentlock/agentlock/workspace"
)

// worktrees: in a repository with linked worktrees (or set up in
// repository scope), which lock space they use, and the worktrees whose
// folder is gone (docs/worktrees.md). Nothing for a lone checkout.
func (d *run) worktrees() []Check {
	list, here, err := d.ws.Worktrees()
	c := Check{Name: "worktrees", Status: OK}
	if err != nil {
		c.Status, c.Detail = Warn, err.Error()
		return []Check{c}
	}
	repo := d.ws.Scope() == workspace.ScopeRepository
	if len(list) < 2 && !repo {
		return nil
	}
	var names, gone []string
	for _, w := range list {
		name := w.Name(here.Root)
		if w.Gone {
			gone = append(gone, name)
			continue
		}
		if w.Branch != "" {
			name += " (" + w.Branch + ")"
		}
		names = append(names, name)
	}
	if repo {
		c.Detail = fmt.Sprintf("repository scope: %d worktree(s) share %s: %s", len(names), d.ws.Home, strings.Join(names, ", "))
	} else {
		c.Detail = fmt.Sprintf("%d worktrees, each with its own lock space (agentlock init --scope repository shares one); conflict warnings cover them all: %s",
			len(names), strings.Join(names, ", "))
	}
	if len(gone) > 0 {
		c.Status = Warn
		c.Detail += fmt.Sprintf("; the folder of %s is gone (their sessions' locks expire after the timeout)", strings.Join(gone, ", "))
		c.Fix = "git worktree prune"
	}
	return []Check{c}
}
