// Package gitwt knows a git repository's worktrees and which files each
// has changed, for agentlock's conflict warnings (docs/worktrees.md).
//
// It reads git's own small files to find the worktrees and their HEADs
// (the layout of gitrepository-layout(5): <common>/worktrees/<id>/gitdir,
// HEAD, refs) and asks the git binary for everything else: the changed
// files (git status, git diff) and the predicted conflicts (git merge-tree
// --write-tree). Nothing of git's object model is re-implemented.
//
// Asking git costs two processes per worktree, which every pre-edit hook
// would pay; so each worktree's answer is cached in a folder the caller
// names, keyed on that worktree's HEAD, its index (size and modification
// time) and the base it was compared with, and trusted for at most MaxAge
// (an edit not yet staged changes neither index nor HEAD).
package gitwt

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// Worktree is one worktree of a repository.
type Worktree struct {
	// Root is the worktree's folder (a real path when it exists).
	Root string
	// GitDir is its own git folder (the common folder for the main one).
	GitDir string
	// Branch is the branch checked out, "" when HEAD is detached.
	Branch string
	// Head is the commit HEAD points at, "" when unknown (no commit yet).
	Head string
	// Gone is set when the worktree's folder no longer exists (removed
	// without `git worktree remove`).
	Gone bool
}

// Name is the worktree's name for people: its folder relative to from
// when that is short, else its path.
func (w Worktree) Name(from string) string {
	if rel, err := filepath.Rel(from, w.Root); err == nil && from != "" {
		if !strings.HasPrefix(rel, "..") {
			return rel
		}
		if strings.Count(rel, "..") <= 2 {
			return rel
		}
	}
	return w.Root
}

// List returns the worktrees of the repository whose common git folder is
// common: the main one first (unless the repository is bare), then the
// linked ones by folder.
func List(common string) ([]Worktree, error) {
	var out []Worktree
	if filepath.Base(common) == ".git" {
		out = append(out, describe(filepath.Dir(common), common, common))
	}
	entries, err := os.ReadDir(filepath.Join(common, "worktrees"))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("worktrees of %s: %w", common, err)
	}
	var linked []Worktree
	for _, e := range entries {
		gitdir := filepath.Join(common, "worktrees", e.Name())
		data, err := os.ReadFile(filepath.Join(gitdir, "gitdir"))
		if err != nil {
			continue
		}
		root := filepath.Dir(strings.TrimSpace(string(data)))
		linked = append(linked, describe(root, gitdir, common))
	}
	sort.Slice(linked, func(i, j int) bool { return linked[i].Root < linked[j].Root })
	return append(out, linked...), nil
}

// describe reads a worktree's HEAD.
func describe(root, gitdir, common string) Worktree {
	w := Worktree{Root: root, GitDir: gitdir}
	if real, err := filepath.EvalSymlinks(root); err == nil {
		w.Root = real
	} else {
		w.Gone = true
	}
	head, err := os.ReadFile(filepath.Join(gitdir, "HEAD"))
	if err != nil {
		return w
	}
	h := strings.TrimSpace(string(head))
	if ref, ok := strings.CutPrefix(h, "ref: "); ok {
		w.Branch = strings.TrimPrefix(ref, "refs/heads/")
		w.Head = resolveRef(common, ref)
		return w
	}
	w.Head = h
	return w
}

// resolveRef reads a branch's commit from its loose ref or packed-refs.
func resolveRef(common, ref string) string {
	if data, err := os.ReadFile(filepath.Join(common, filepath.FromSlash(ref))); err == nil {
		return strings.TrimSpace(string(data))
	}
	f, err := os.Open(filepath.Join(common, "packed-refs"))
	if err != nil {
		return ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if sha, name, ok := strings.Cut(sc.Text(), " "); ok && name == ref {
			return sha
		}
	}
	return ""
}

// Find returns the worktree of list whose root is root, and whether there
// is one.
func Find(list []Worktree, root string) (Worktree, bool) {
	for _, w := range list {
		if w.Root == root {
			return w, true
		}
	}
	return Worktree{}, false
}

// Changes are the files one worktree has changed, relative to its root
// with forward slashes: Uncommitted (staged, unstaged or untracked) and
// Committed (on its branch since its merge base with the base commit).
type Changes struct {
	Uncommitted []string `json:"uncommitted"`
	Committed   []string `json:"committed"`
}

// Has reports whether rel is changed, and how ("uncommitted" or
// "committed").
func (c Changes) Has(rel string) (string, bool) {
	for _, p := range c.Uncommitted {
		if p == rel {
			return "uncommitted", true
		}
	}
	for _, p := range c.Committed {
		if p == rel {
			return "committed", true
		}
	}
	return "", false
}

// All returns every changed file, once, sorted.
func (c Changes) All() []string {
	seen := map[string]bool{}
	var out []string
	for _, p := range append(append([]string{}, c.Uncommitted...), c.Committed...) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// Options say how Changed asks git and caches its answers.
type Options struct {
	// Git is the git binary; empty means "git" on PATH.
	Git string
	// CacheDir keeps each worktree's answer; empty caches nothing.
	CacheDir string
	// MaxAge bounds how long a cached answer is trusted; zero means
	// DefaultMaxAge.
	MaxAge time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Timeout bounds each git process; zero means 5 seconds.
	Timeout time.Duration
}

// DefaultMaxAge is how long a worktree's cached changes are trusted when
// its HEAD and index did not change.
const DefaultMaxAge = 2 * time.Second

// cached is one cache file's content.
type cached struct {
	Key     string    `json:"key"`
	At      time.Time `json:"at"`
	Changes Changes   `json:"changes"`
}

// Changed returns the files worktree w has changed: uncommitted ones, and
// those committed on its branch since its merge base with base (a commit;
// "" compares nothing committed).
func Changed(w Worktree, base string, o Options) (Changes, error) {
	if w.Gone {
		return Changes{}, nil
	}
	now := time.Now
	if o.Now != nil {
		now = o.Now
	}
	maxAge := o.MaxAge
	if maxAge <= 0 {
		maxAge = DefaultMaxAge
	}
	key := cacheKey(w, base)
	var file string
	if o.CacheDir != "" {
		// One file per worktree and base: worktrees comparing with
		// different commits do not overwrite each other's answers.
		sum := sha256.Sum256([]byte(w.GitDir + "\x00" + base))
		file = filepath.Join(o.CacheDir, "changes-"+hex.EncodeToString(sum[:8])+".json")
		if data, err := os.ReadFile(file); err == nil {
			var c cached
			if json.Unmarshal(data, &c) == nil && c.Key == key && now().Sub(c.At) < maxAge && now().Sub(c.At) >= 0 {
				return c.Changes, nil
			}
		}
	}
	var ch Changes
	out, err := o.git(w.Root, "--no-optional-locks", "status", "--porcelain=v1", "-z", "--untracked-files=all")
	if err != nil {
		return ch, err
	}
	ch.Uncommitted = parseStatus(out)
	if base != "" && w.Head != "" && base != w.Head {
		out, err := o.git(w.Root, "diff", "--name-only", "-z", "--no-renames", base+"..."+w.Head)
		if err != nil {
			return ch, err
		}
		ch.Committed = splitZ(out)
	}
	if file != "" {
		if data, err := json.Marshal(cached{Key: key, At: now(), Changes: ch}); err == nil {
			_ = os.MkdirAll(o.CacheDir, 0o700)
			tmp := fmt.Sprintf("%s.tmp-%d", file, os.Getpid())
			if os.WriteFile(tmp, data, 0o600) == nil {
				_ = os.Rename(tmp, file) // a cache: a failure only costs the next call
			}
		}
	}
	return ch, nil
}

// cacheKey names the state of w that its answer depends on.
func cacheKey(w Worktree, base string) string {
	k := w.Head + "|" + base
	if info, err := os.Stat(filepath.Join(w.GitDir, "index")); err == nil {
		k += fmt.Sprintf("|%d|%d", info.Size(), info.ModTime().UnixNano())
	}
	return k
}

// parseStatus reads `git status --porcelain=v1 -z`: "XY path\0", a rename
// adding "orig\0" after.
func parseStatus(out []byte) []string {
	var files []string
	fields := splitZ(out)
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if len(f) < 4 {
			continue
		}
		files = append(files, f[3:])
		if f[0] == 'R' || f[0] == 'C' {
			i++ // the original path
		}
	}
	sort.Strings(files)
	return files
}

// splitZ splits NUL-terminated fields.
func splitZ(out []byte) []string {
	var fields []string
	for _, f := range bytes.Split(out, []byte{0}) {
		if len(f) > 0 {
			fields = append(fields, string(f))
		}
	}
	return fields
}

// git runs git in dir and returns its standard output.
func (o Options) git(dir string, args ...string) ([]byte, error) {
	bin := o.Git
	if bin == "" {
		bin = "git"
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"-C", dir}, args...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s in %s: %w: %s", strings.Join(args, " "), dir, err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// Predict returns the files that merging commit b into commit a would
// leave in conflict, as `git merge-tree --write-tree` computes (git 2.38
// or later), run in dir (any worktree of the repository).
func Predict(dir, a, b string, o Options) ([]string, error) {
	bin := o.Git
	if bin == "" {
		bin = "git"
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-C", dir, "merge-tree", "--write-tree", "--name-only", "--no-messages", "-z", a, b)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return nil, nil // a clean merge
	case errors.As(err, &exit) && exit.ExitCode() == 1:
		fields := splitZ(out)
		if len(fields) > 0 {
			fields = fields[1:] // the tree written
		}
		sort.Strings(fields)
		return fields, nil
	}
	return nil, fmt.Errorf("git merge-tree --write-tree %s %s in %s (git 2.38 or later needed): %w: %s", a, b, dir, err, strings.TrimSpace(stderr.String()))
}
