package workspace

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/internal/sys/atomicfile"
	"github.com/agentlock/agentlock/internal/sys/plainfile"
)

// A project may keep its registry and locks in a home it shares with other
// tools — agent-registry 0.2's ~/Desktop/agent-registry/, above all, so
// that a mixed fleet of 0.2 and agentlock agents contends for the same lock
// files and reads one registry. The project then holds, instead of its own
// registry and locks, the file .agent-registry/home: one line, the
// absolute path of the shared home. Every agentlock command that resolves
// the project's home reads it (the environment variables still win), and
// `agentlock env` exports the shared paths under the names 0.2 reads too.

// SharedHomeFile is the file, inside a project's HomeDirName folder, that
// names the home the project shares.
const SharedHomeFile = "home"

// LegacyHomeDir is agent-registry 0.2's default home, relative to the
// user's home folder: it holds registry.md and locks/.
const LegacyHomeDir = "Desktop/agent-registry"

// sharedHome returns the home that project's SharedHomeFile names, or ""
// when it has none. A file that names no absolute folder is an error: using
// another home than the one the project shares would let two agents hold
// the same file.
func sharedHome(project string) (string, error) {
	file := filepath.Join(project, HomeDirName, SharedHomeFile)
	data, err := plainfile.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("shared home: %w", err)
	}
	line, _, _ := strings.Cut(string(data), "\n")
	dir := strings.TrimSuffix(line, "\r")
	if !filepath.IsAbs(dir) {
		return "", fmt.Errorf("%s must name the absolute path of a folder, not %q", file, dir)
	}
	return filepath.Clean(dir), nil
}

// Shared reports whether the workspace's home is one that its project
// shares (named by .agent-registry/home).
func (w *Workspace) Shared() bool { return w.shared }

// ShareHome makes dir the home of project, recorded in
// .agent-registry/home, so that every agent of the project — and, when dir
// is agent-registry 0.2's home, every 0.2 agent — uses dir's registry.md
// and locks/. dir = the project's own .agent-registry folder removes the
// record instead. It reports whether anything changed.
//
// The project's agents must not lose sight of locks and sessions when its
// home moves: the project's own registry and locks are removed first, and
// only when no lock is held and no session works there; a home shared
// before is left only when it holds no live lock on the project's files.
// Otherwise a *KeptError says why, and nothing changes.
func ShareHome(ctx context.Context, project, dir string, s Settings) (bool, error) {
	own := filepath.Join(project, HomeDirName)
	pointer := filepath.Join(own, SharedHomeFile)
	dir = filepath.Clean(dir)
	if !filepath.IsAbs(dir) {
		return false, fmt.Errorf("shared home %q: must be an absolute path", dir)
	}
	if strings.ContainsAny(dir, "\r\n") {
		return false, fmt.Errorf("shared home %q: a line break cannot be recorded in %s", dir, pointer)
	}
	current, err := sharedHome(project)
	if err != nil {
		return false, err
	}
	plain := Settings{UserHome: s.UserHome, Timeout: s.Timeout, Now: s.Now} // no variable overrides the homes compared here
	switch {
	case current != "" && SameFolder(current, dir), current == "" && SameFolder(dir, own):
		return false, nil
	case current != "":
		old := &Workspace{Project: project, Home: current, LockDir: filepath.Join(current, "locks"),
			RegistryPath: filepath.Join(current, "registry.md"), shared: true, settings: plain}
		if SameFolder(dir, own) {
			if err := old.Unshare(ctx, false); err != nil {
				return false, err
			}
			return true, nil
		}
		if err := old.Unshare(ctx, true); err != nil {
			return false, err
		}
	default:
		ownWS := &Workspace{Project: project, Home: own, LockDir: filepath.Join(own, "locks"),
			RegistryPath: filepath.Join(own, "registry.md"), settings: plain}
		if exists(ownWS.LockDir) || exists(ownWS.RegistryPath) {
			if err := ownWS.Teardown(ctx, false); err != nil {
				return false, err
			}
		}
	}
	defer s.Cache.facts().forget()
	if err := os.MkdirAll(own, 0o700); err != nil {
		return false, fmt.Errorf("create %s: %w", own, err)
	}
	if err := atomicfile.Write(pointer, []byte(dir+"\n"), 0o644); err != nil {
		return false, err
	}
	return true, nil
}

// Unshare removes the project's record of a shared home (and the
// .agent-registry folder, when that leaves it empty); the shared home
// itself is never touched. It refuses, with a *KeptError, while the shared
// home holds a live lock on a path inside the project: the agents of the
// project would stop seeing it. With dryRun nothing is removed.
func (w *Workspace) Unshare(ctx context.Context, dryRun bool) error {
	if !w.shared {
		return nil
	}
	states, _, err := w.Locker().List(ctx)
	if err != nil {
		return err
	}
	var held []string
	for _, st := range states {
		if st.Locked() && inside(st.Path, w.Project) {
			held = append(held, st.Path+" ("+st.Owner+")")
		}
	}
	if len(held) > 0 {
		return &KeptError{Reason: "the shared home " + w.Home + " holds locks on files of this project: " + strings.Join(held, ", ")}
	}
	if dryRun {
		return nil
	}
	defer w.settings.Cache.facts().forget()
	return atomicfile.Remove(filepath.Join(w.Project, HomeDirName, SharedHomeFile), w.Project)
}

// LegacyHome returns agent-registry 0.2's default home for the user's home
// folder userHome, when it exists (with its registry or its lock folder);
// "" otherwise.
func LegacyHome(userHome string) string {
	if userHome == "" {
		return ""
	}
	home := filepath.Join(userHome, LegacyHomeDir)
	if exists(filepath.Join(home, "locks")) || exists(filepath.Join(home, "registry.md")) {
		return home
	}
	return ""
}

// SharedWithLegacy reports whether agent-registry 0.2's agents share the
// workspace's registry, so that its protocol block must tell them their
// own commands too (docs/mixed-fleet.md): its home is the one the project
// records in .agent-registry/home (init --home, the way a project shares
// 0.2's home), or agent-registry 0.2's default home (~/Desktop/
// agent-registry), or the folder that AGENT_REGISTRY_PATH or
// AGENT_REGISTRY_LOCK_DIR — the variables 0.2 reads too — make a home of
// (Settings.EnvHome), other than the project's own. A registry kept in a
// store (etcd) is agentlock's alone.
func (w *Workspace) SharedWithLegacy() bool {
	if w.doc != nil {
		return false
	}
	if w.shared {
		return true
	}
	home := filepath.Dir(w.RegistryPath)
	known := w.settings.Cache.facts()
	if w.settings.UserHome != "" && known.sameFolder(filepath.Join(w.settings.UserHome, LegacyHomeDir), home) {
		return true
	}
	env := w.settings.EnvHome()
	if env == "" || !known.sameFolder(home, env) || w.repo != nil {
		return false
	}
	return w.Project == "" || !known.sameFolder(home, filepath.Join(w.Project, HomeDirName))
}

// EnvHome returns the folder that the configured lock folder and registry
// (AGENT_REGISTRY_LOCK_DIR, AGENT_REGISTRY_PATH: the variables agent-registry
// 0.2 reads too) form a home in (D/locks and D/registry.md), absolute; ""
// when they are not set or do not.
func (s Settings) EnvHome() string {
	var dirs []string
	if s.LockDir != "" {
		if filepath.Base(s.LockDir) != "locks" {
			return ""
		}
		dirs = append(dirs, filepath.Dir(s.LockDir))
	}
	if s.RegistryPath != "" {
		if filepath.Base(s.RegistryPath) != "registry.md" {
			return ""
		}
		dirs = append(dirs, filepath.Dir(s.RegistryPath))
	}
	if len(dirs) == 0 || (len(dirs) == 2 && !SameFolder(dirs[0], dirs[1])) {
		return ""
	}
	dir, err := filepath.Abs(dirs[0])
	if err != nil {
		return ""
	}
	return dir
}

// SameFolder reports whether a and b name one folder, through symbolic
// links too.
func SameFolder(a, b string) bool { return (*facts)(nil).sameFolder(a, b) }

// LegacyHeld returns agent-registry 0.2's default home and the locks it
// holds, fresh, on paths (resolved like every lock path) — when the
// workspace keeps those paths' locks elsewhere. Such locks are a split: a
// 0.2 agent and an agentlock agent can both believe they hold the file. It
// only reads, and finds nothing (at the cost of one stat) when there is no
// 0.2 home. Problems reading the 0.2 home are ignored: this is a warning.
func (w *Workspace) LegacyHeld(ctx context.Context, paths []string) (home string, held []core.State) {
	if home = LegacyHome(w.settings.UserHome); home == "" {
		return "", nil
	}
	legacyLocks := filepath.Join(home, "locks")
	st := w.settings.fileLocks(func(string) (string, error) { return legacyLocks, nil }, legacyLocks)
	legacy := core.NewLocker(st, core.Options{Timeout: w.settings.Timeout, Now: w.settings.Now})
	for _, p := range paths {
		real, err := w.settings.RealPath(p, "")
		if err != nil {
			continue
		}
		dir, err := w.settings.lockDirFor(real)
		if err != nil || SameFolder(dir, legacyLocks) {
			continue
		}
		if s, err := legacy.IsLocked(ctx, real); err == nil && s.Locked() {
			held = append(held, s)
		}
	}
	return home, held
}

// LegacyLive returns agent-registry 0.2's default home and its fresh
// locks, when that home exists and is not this workspace's lock folder's
// home: locks that this workspace's agents do not see. It only reads; an
// error says the 0.2 lock folder could not be listed.
func (w *Workspace) LegacyLive(ctx context.Context) (home string, live []core.State, err error) {
	if home = LegacyHome(w.settings.UserHome); home == "" {
		return "", nil, nil
	}
	legacyLocks := filepath.Join(home, "locks")
	if SameFolder(w.LockDir, legacyLocks) {
		return "", nil, nil
	}
	st := w.settings.fileLocks(func(string) (string, error) { return legacyLocks, nil }, legacyLocks)
	states, _, err := core.NewLocker(st, core.Options{Timeout: w.settings.Timeout, Now: w.settings.Now}).List(ctx)
	if err != nil {
		return home, nil, err
	}
	for _, s := range states {
		if s.Locked() {
			live = append(live, s)
		}
	}
	return home, live, nil
}

// inside reports whether path is dir or below it.
func inside(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && filepath.IsLocal(rel)
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
