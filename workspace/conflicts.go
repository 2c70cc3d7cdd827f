package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/gitwt"
	"github.com/agentlock/agentlock/internal/sys/atomicfile"
	"github.com/agentlock/agentlock/internal/sys/plainfile"
)

// Conflict warnings (in both scopes): a file about to be locked or edited
// here that another worktree of the repository has already changed —
// uncommitted there, or committed on its branch since its merge base with
// this worktree's HEAD — is named, with that worktree, its branch and the
// session holding the file there, if any. Package gitwt asks git.

// ConflictsFile is the file, in the repository's RepoHomeDir, that holds
// the conflict policy ("deny-conflicts=true": hooks deny instead of warn).
const ConflictsFile = "conflicts"

// Conflict is a file of this worktree also changed in another worktree.
type Conflict struct {
	// Path is the file's real path in this worktree.
	Path string `json:"path"`
	// Rel is its path relative to the worktree root, with slashes.
	Rel string `json:"rel"`
	// Worktree is the other worktree's root; Name its name for people
	// (relative to this worktree's root when near).
	Worktree string `json:"worktree"`
	Name     string `json:"worktree_name"`
	// Branch is the other worktree's branch ("" when detached).
	Branch string `json:"branch,omitempty"`
	// How is "uncommitted" or "committed".
	How string `json:"how"`
	// Session is the session holding the file there, if any.
	Session string `json:"session,omitempty"`
}

// Message is the one line that tells an agent about c.
func (c Conflict) Message() string {
	var about []string
	if c.Branch != "" {
		about = append(about, "branch "+c.Branch)
	} else {
		about = append(about, "detached HEAD")
	}
	if c.Session != "" {
		about = append(about, "session "+c.Session)
	}
	return fmt.Sprintf("%s is also changed in %s (%s, %s): coordinate before editing", c.Rel, c.Name, strings.Join(about, ", "), c.How)
}

// conflictOptions are gitwt's options for the workspace's repository.
func (w *Workspace) conflictOptions(common string) gitwt.Options {
	o := gitwt.Options{CacheDir: filepath.Join(common, RepoHomeDir, "cache"), MaxAge: w.settings.ConflictCache, Now: w.settings.Now}
	if o.MaxAge < 0 {
		o.CacheDir = ""
	}
	return o
}

// Worktrees returns the worktrees of the workspace's repository and which
// of them is this one; nil when the project is no git worktree.
func (w *Workspace) Worktrees() (list []gitwt.Worktree, here gitwt.Worktree, err error) {
	common := GitCommonDir(w.Project)
	if common == "" {
		return nil, here, nil
	}
	list, err = gitwt.List(common)
	if err != nil {
		return nil, here, err
	}
	here, ok := gitwt.Find(list, w.Project)
	if !ok {
		return nil, here, nil
	}
	return list, here, nil
}

// ListedPaths are the paths of a lock listing (states) that a listing asks
// the other worktrees about (Conflicts): those of held locks, and of free
// lock files too with free; never an area (git reports files) nor a
// record that does not say its path.
func ListedPaths(states []core.State, free bool) []string {
	var paths []string
	for _, st := range states {
		if (st.Owner != "" || free) && st.Path != "" && !st.Area() {
			paths = append(paths, st.Path)
		}
	}
	return paths
}

// Conflicts returns, for real paths of this worktree, the other worktrees
// that changed the same files. Paths outside the worktree have none. With
// only one worktree it asks git nothing.
func (w *Workspace) Conflicts(ctx context.Context, paths []string) ([]Conflict, error) {
	var rels []string
	for _, p := range paths {
		if rel, ok := relIn(w.Project, p); ok {
			rels = append(rels, rel)
		}
	}
	if len(rels) == 0 {
		return nil, nil
	}
	if common := GitCommonDir(w.Project); common == "" || !hasLinkedWorktrees(common) {
		// One worktree: nothing to compare with, and nothing to read.
		return nil, nil
	}
	list, here, err := w.Worktrees()
	if err != nil || len(list) < 2 {
		return nil, err
	}
	o := w.conflictOptions(GitCommonDir(w.Project))
	var out []Conflict
	for _, wt := range list {
		if wt.Root == here.Root || wt.Gone {
			continue
		}
		ch, err := gitwt.Changed(wt, here.Head, o)
		if err != nil {
			return nil, err
		}
		for _, rel := range rels {
			how, ok := ch.Has(rel)
			if !ok {
				continue
			}
			c := Conflict{Path: filepath.Join(w.Project, filepath.FromSlash(rel)), Rel: rel, Worktree: wt.Root,
				Name: wt.Name(w.Project), Branch: wt.Branch, How: how}
			c.Session = w.holderIn(ctx, wt.Root, rel)
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Rel < out[j].Rel })
	return out, nil
}

// holderIn names the session holding rel in the worktree at root, "" when
// none (or when that cannot be read: this is only a warning's detail).
func (w *Workspace) holderIn(ctx context.Context, root, rel string) string {
	p := filepath.Join(root, filepath.FromSlash(rel))
	other, err := Open(ctx, p, w.settings)
	if err != nil {
		return ""
	}
	st, err := other.Locker().IsLocked(ctx, p)
	if err != nil || !st.Locked() {
		return ""
	}
	if w.repo != nil {
		// One lock for every worktree: its holder is that worktree's
		// only when the registry says the session works there.
		doc, err := w.Registry().Load(ctx)
		if err != nil {
			return ""
		}
		if s, ok := doc.Find(st.Owner); !ok || s.Worktree != root {
			return ""
		}
	}
	return st.Owner
}

// relIn returns p relative to root with slashes, if p is inside root.
func relIn(root, p string) (string, bool) {
	if root == "" || !inside(p, root) || p == root {
		return "", false
	}
	rel, err := filepath.Rel(root, p)
	if err != nil {
		return "", false
	}
	return filepath.ToSlash(rel), true
}

// DenyConflicts reports whether the repository of the workspace denies
// edits of files changed in another worktree (init --deny-conflicts).
func (w *Workspace) DenyConflicts() bool {
	common := GitCommonDir(w.Project)
	if common == "" {
		return false
	}
	data, err := plainfile.ReadFile(filepath.Join(common, RepoHomeDir, ConflictsFile))
	return err == nil && strings.Contains(string(data), "deny-conflicts=true")
}

// SetDenyConflicts records the conflict policy of the repository whose
// common git folder is common; it reports whether anything changed.
func SetDenyConflicts(common string, deny bool) (bool, error) {
	file := filepath.Join(common, RepoHomeDir, ConflictsFile)
	old, _ := plainfile.ReadFile(file)
	content := fmt.Sprintf("# agentlock: edits of files changed in another worktree (agentlock init --deny-conflicts)\ndeny-conflicts=%t\n", deny)
	if string(old) == content || old == nil && !deny {
		return false, nil
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return false, fmt.Errorf("conflict policy: %w", err)
	}
	if err := atomicfile.Write(file, []byte(content), 0o644); err != nil {
		return false, fmt.Errorf("conflict policy: %w", err)
	}
	return true, nil
}

// Overlap is one file changed in more than one worktree of the
// repository.
type Overlap struct {
	// Rel is the file's path relative to a worktree root, with slashes.
	Rel string `json:"path"`
	// In are the worktrees that changed it.
	In []OverlapIn `json:"worktrees"`
	// Predicted names the pairs of worktrees whose branches git merge-tree
	// says would conflict on the file ("../wt-b+../wt-c"), with predict.
	Predicted []string `json:"predicted_conflicts,omitempty"`
}

// OverlapIn is one worktree that changed an Overlap's file.
type OverlapIn struct {
	Worktree string `json:"worktree"`
	Name     string `json:"worktree_name"`
	Branch   string `json:"branch,omitempty"`
	How      string `json:"how"`
}

// Overlaps returns every file changed in more than one worktree of the
// repository, each pair of worktrees compared from their merge base; with
// predict, also which of them `git merge-tree --write-tree` says the merge
// of the two branches would leave in conflict (committed changes only).
func (w *Workspace) Overlaps(predict bool) ([]Overlap, error) {
	list, _, err := w.Worktrees()
	if err != nil || len(list) < 2 {
		return nil, err
	}
	o := w.conflictOptions(GitCommonDir(w.Project))
	byRel := map[string]*Overlap{}
	add := func(rel string, wt gitwt.Worktree, how string) *Overlap {
		ov := byRel[rel]
		if ov == nil {
			ov = &Overlap{Rel: rel}
			byRel[rel] = ov
		}
		for _, in := range ov.In {
			if in.Worktree == wt.Root {
				return ov
			}
		}
		ov.In = append(ov.In, OverlapIn{Worktree: wt.Root, Name: wt.Name(w.Project), Branch: wt.Branch, How: how})
		return ov
	}
	for i, a := range list {
		for _, b := range list[i+1:] {
			if a.Gone || b.Gone {
				continue
			}
			ca, err := gitwt.Changed(a, b.Head, o)
			if err != nil {
				return nil, err
			}
			cb, err := gitwt.Changed(b, a.Head, o)
			if err != nil {
				return nil, err
			}
			for _, rel := range ca.All() {
				howB, ok := cb.Has(rel)
				if !ok {
					continue
				}
				howA, _ := ca.Has(rel)
				add(rel, a, howA)
				add(rel, b, howB)
			}
			if !predict || a.Head == "" || b.Head == "" || a.Head == b.Head {
				continue
			}
			files, err := gitwt.Predict(w.Project, a.Head, b.Head, o)
			if err != nil {
				return nil, err
			}
			for _, rel := range files {
				howA, _ := ca.Has(rel)
				howB, _ := cb.Has(rel)
				ov := add(rel, a, howA)
				add(rel, b, howB)
				ov.Predicted = append(ov.Predicted, a.Name(w.Project)+"+"+b.Name(w.Project))
			}
		}
	}
	out := make([]Overlap, 0, len(byRel))
	for _, ov := range byRel {
		out = append(out, *ov)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Rel < out[j].Rel })
	return out, nil
}

// hasLinkedWorktrees reports whether the repository whose common git
// folder is common may have worktrees besides its main one: git keeps
// each in common/worktrees/. Only a folder known to be missing says no.
func hasLinkedWorktrees(common string) bool {
	_, err := os.Stat(filepath.Join(common, "worktrees"))
	return !errors.Is(err, fs.ErrNotExist)
}
