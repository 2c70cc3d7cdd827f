package workspace

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentlock/agentlock/internal/sys/atomicfile"
	"github.com/agentlock/agentlock/internal/sys/plainfile"
	"github.com/agentlock/agentlock/store"
)

// Repository scope (agentlock init --scope repository): every worktree of
// one git repository shares one home, RepoHomeDir inside the repository's
// common git folder (what `git rev-parse --git-common-dir` prints), which
// git never commits and which goes with the clone. The home's store file
// says "scope=repository"; its presence is the setting every worktree
// reads, so no worktree needs a home of its own.
//
// A lock's identity there is the path relative to its worktree's root: a
// path of any worktree is stored as the same relative path below the
// main worktree (the canonical root), so src/x.py of worktree A and of
// worktree B are one lock. Each command sees the records as paths of its
// own worktree. Paths outside the repository keep their real-path
// identity.

// ScopeRepository is the scope value of a home shared by every worktree of
// a repository; ScopeCheckout (the default) is a home per checkout.
const (
	ScopeRepository = "repository"
	ScopeCheckout   = "checkout"
)

// RepoHomeDir is the folder, inside a repository's common git folder, that
// is the home of a repository-scoped project.
const RepoHomeDir = "agentlock"

// GitCommonDir returns the common git folder of the worktree rooted at
// root, read from git's own files (root/.git, a folder, or a file naming
// the worktree's git folder, whose "commondir" names the common one): no
// git process, since every hook pays for this. "" when root is no git
// worktree.
func GitCommonDir(root string) string {
	dotgit := filepath.Join(root, ".git")
	info, err := os.Lstat(dotgit)
	if err != nil {
		return ""
	}
	if info.IsDir() {
		return dotgit
	}
	data, err := plainfile.ReadFile(dotgit)
	if err != nil {
		return ""
	}
	gitdir, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
	if !ok {
		return ""
	}
	gitdir = strings.TrimSpace(gitdir)
	if !filepath.IsAbs(gitdir) {
		gitdir = filepath.Join(root, gitdir)
	}
	common := gitdir
	if c, err := plainfile.ReadFile(filepath.Join(gitdir, "commondir")); err == nil {
		common = strings.TrimSpace(string(c))
		if !filepath.IsAbs(common) {
			common = filepath.Join(gitdir, common)
		}
	}
	if real, err := filepath.EvalSymlinks(common); err == nil {
		common = real
	}
	return filepath.Clean(common)
}

// repoScope is what a repository-scoped workspace needs to map paths.
type repoScope struct {
	common string // the common git folder
	root   string // the canonical root: the main worktree (or the common folder of a bare repository)
	tree   string // this workspace's worktree root
}

// canonicalRoot is the main worktree of a repository whose common git
// folder is common.
func canonicalRoot(common string) string {
	if filepath.Base(common) == ".git" {
		return filepath.Dir(common)
	}
	return common
}

// repoHome returns the shared home of project's repository when it is set
// up in repository scope, else "".
func repoHome(project string) string {
	if project == "" {
		return ""
	}
	common := GitCommonDir(project)
	if common == "" {
		return ""
	}
	home := filepath.Join(common, RepoHomeDir)
	data, err := plainfile.ReadFile(filepath.Join(home, StoreFile))
	if err != nil || !hasScopeLine(data) {
		return ""
	}
	return home
}

// hasScopeLine reports whether a store file says scope=repository.
func hasScopeLine(data []byte) bool {
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), "=")
		if ok && strings.TrimSpace(name) == "scope" && strings.TrimSpace(value) == ScopeRepository {
			return true
		}
	}
	return false
}

// RepoHome returns the home shared by every worktree of project's
// repository, "" when the repository is not set up in repository scope.
func RepoHome(project string) string { return repoHome(project) }

// SetRepoScope sets up (on) or removes (off) the repository scope of
// project's repository: the scope in the shared home's store file, which
// keeps the rest of the store setting. It reports whether anything
// changed. Removing it keeps the shared home's locks and registry (see
// Teardown).
func SetRepoScope(project string, on bool) (bool, error) {
	common := GitCommonDir(project)
	if common == "" {
		return false, fmt.Errorf("--scope repository: %s is not a git worktree (no .git there)", project)
	}
	home := filepath.Join(common, RepoHomeDir)
	if (repoHome(project) != "") == on {
		return false, nil
	}
	file := filepath.Join(home, StoreFile)
	if !on {
		spec, err := ReadStoreSpec(project)
		if err != nil {
			return false, err
		}
		if spec.Set() {
			return false, fmt.Errorf("--scope checkout: the worktrees share the store %s (in %s): run agentlock init --store files first", spec.URL, file)
		}
		if err := os.Remove(file); err != nil {
			return false, fmt.Errorf("repository scope: %w", err)
		}
		return true, nil
	}
	// The project's own store setting (init --store), if any, moves to
	// the shared home with the scope: one setting for every worktree.
	spec, err := ReadStoreSpec(project)
	if err != nil {
		return false, err
	}
	spec.Scope = ScopeRepository
	if err := os.MkdirAll(filepath.Join(home, "locks"), 0o700); err != nil {
		return false, fmt.Errorf("repository scope: %w", err)
	}
	if err := atomicfile.Write(file, []byte(renderSpec(spec)), 0o600); err != nil {
		return false, fmt.Errorf("repository scope: %w", err)
	}
	return true, nil
}

// Scope returns the workspace's scope: ScopeRepository or ScopeCheckout.
func (w *Workspace) Scope() string {
	if w.repo != nil {
		return ScopeRepository
	}
	return ScopeCheckout
}

// canon maps a real path to its identity: a path in any worktree of the
// repository becomes the same relative path below the canonical root.
func (r *repoScope) canon(s Settings, p string) string {
	if p == "" {
		return p
	}
	area := store.IsArea(p)
	bare := strings.TrimSuffix(p, "/")
	if bare == "" {
		return p
	}
	// The path's own worktree (a worktree may lie inside another's
	// folder: the nearest root decides).
	tree := s.FindProject(bare)
	if tree == "" || tree != r.tree && GitCommonDir(tree) != r.common {
		return p
	}
	out := rebase(bare, tree, r.root)
	if area {
		out += "/"
	}
	return out
}

// local maps an identity back to the path in this workspace's worktree.
func (r *repoScope) local(p string) string {
	if p == "" || r.tree == r.root {
		return p
	}
	area := store.IsArea(p)
	bare := strings.TrimSuffix(p, "/")
	if !inside(bare, r.root) || inside(bare, r.common) {
		return p
	}
	out := rebase(bare, r.root, r.tree)
	if area {
		out += "/"
	}
	return out
}

// rebase moves p from below from to below to.
func rebase(p, from, to string) string {
	rel, err := filepath.Rel(from, p)
	if err != nil || rel == "." {
		return to
	}
	return filepath.Join(to, rel)
}

// repoLocks is a lock store that stores the paths of every worktree under
// their repository identity (see repoScope) and shows them as paths of
// this workspace's worktree.
type repoLocks struct {
	inner store.Locks
	r     *repoScope
	s     Settings
}

var (
	_ store.Locks   = (*repoLocks)(nil)
	_ store.Areas   = (*repoLocks)(nil)
	_ store.Watcher = (*repoLocks)(nil)
	_ store.Index   = (*repoLocks)(nil)
)

func (l *repoLocks) inKeys(keys []store.Key) []store.Key {
	out := make([]store.Key, len(keys))
	for i, k := range keys {
		out[i] = store.Key{Path: l.r.canon(l.s, k.Path), Ref: k.Ref}
	}
	return out
}

func (l *repoLocks) outSlots(slots []store.Slot, keys []store.Key) []store.Slot {
	out := make([]store.Slot, len(slots))
	for i, sl := range slots {
		out[i] = sl
		if keys != nil && i < len(keys) {
			out[i].Key = store.Key{Path: keys[i].Path, Ref: sl.Key.Ref}
		} else {
			out[i].Key.Path = l.r.local(sl.Key.Path)
		}
		out[i].Record.Path = l.r.local(sl.Record.Path)
	}
	return out
}

func (l *repoLocks) inSlots(slots []store.Slot) []store.Slot {
	out := make([]store.Slot, len(slots))
	for i, sl := range slots {
		out[i] = sl
		out[i].Key.Path = l.r.canon(l.s, sl.Key.Path)
		out[i].Record.Path = l.r.canon(l.s, sl.Record.Path)
	}
	return out
}

func (l *repoLocks) inRecords(recs []*store.Record) []*store.Record {
	out := make([]*store.Record, len(recs))
	for i, rec := range recs {
		if rec != nil {
			c := *rec
			c.Path = l.r.canon(l.s, c.Path)
			out[i] = &c
		}
	}
	return out
}

// Transact implements store.Locks.
func (l *repoLocks) Transact(ctx context.Context, mode store.Mode, keys []store.Key, decide store.Decide) error {
	return l.inner.Transact(ctx, mode, l.inKeys(keys), func(slots []store.Slot) ([]*store.Record, error) {
		next, err := decide(l.outSlots(slots, keys))
		return l.inRecords(next), err
	})
}

// Scan implements store.Locks.
func (l *repoLocks) Scan(ctx context.Context) ([]store.Slot, error) {
	slots, err := l.inner.Scan(ctx)
	return l.outSlots(slots, nil), err
}

// Changes implements store.Feed.
func (l *repoLocks) Changes(ctx context.Context) (<-chan struct{}, error) {
	return l.inner.Changes(ctx)
}

// TransactAreas implements store.Areas.
func (l *repoLocks) TransactAreas(ctx context.Context, mode store.Mode, keys []store.Key, decide store.DecideAreas) error {
	as, ok := l.inner.(store.Areas)
	if !ok {
		return fmt.Errorf("this store cannot hold area locks")
	}
	return as.TransactAreas(ctx, mode, l.inKeys(keys), func(slots, related []store.Slot) ([]*store.Record, []store.Slot, error) {
		next, release, err := decide(l.outSlots(slots, keys), l.outSlots(related, nil))
		return l.inRecords(next), l.inSlots(release), err
	})
}

// Watch implements store.Watcher.
func (l *repoLocks) Watch(ctx context.Context, keys []store.Key) (<-chan struct{}, func(), error) {
	if w, ok := l.inner.(store.Watcher); ok {
		return w.Watch(ctx, l.inKeys(keys))
	}
	return make(chan struct{}), func() {}, nil
}

// Note implements store.Index.
func (l *repoLocks) Note(ctx context.Context, session string, keys []store.Key) error {
	if ix, ok := l.inner.(store.Index); ok {
		return ix.Note(ctx, session, l.inKeys(keys))
	}
	return nil
}

// Noted implements store.Index.
func (l *repoLocks) Noted(ctx context.Context, session string, visit func(keys []store.Key, complete bool) ([]store.Key, error)) error {
	ix, ok := l.inner.(store.Index)
	if !ok {
		return fmt.Errorf("this store keeps no index")
	}
	return ix.Noted(ctx, session, func(keys []store.Key, complete bool) ([]store.Key, error) {
		local := make([]store.Key, len(keys))
		for i, k := range keys {
			local[i] = store.Key{Path: l.r.local(k.Path), Ref: k.Ref}
		}
		keep, err := visit(local, complete)
		return l.inKeys(keep), err
	})
}
