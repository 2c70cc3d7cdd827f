// Package workspace is agentlock's policy layer: where a project's locks and
// registry live, and what a session does with them. Every front end — the
// command line, the agent hooks, a dashboard — calls it instead of
// deciding these things itself.
//
// A workspace is resolved for a path from explicit Settings (never from the
// process environment: the caller reads that): the project is the nearest
// folder above the path that holds .agent-registry/ or .git, its home is
// that project's .agent-registry/ (or the home the project shares, named in
// .agent-registry/home — agent-registry 0.2's, for a mixed fleet — or the
// configured one), and the home holds registry.md and locks/. Outside any
// project the home is ~/.agent-registry/.
//
// The session policy lives here once: Acquire and Release mirror the held
// paths into the session's do_not_touch, Finish marks a session Finished
// and releases every lock it owns, StartSession registers a session once,
// Setup and Teardown create and remove a project's home.
package workspace

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/store"
	"github.com/agentlock/agentlock/store/filestore"
	"github.com/agentlock/agentlock/templates"
)

// ErrNoWorkspace is the error of Open for a path that belongs to no
// workspace: outside every project, with no home folder configured or
// known. agentlock is not set up there.
var ErrNoWorkspace = errors.New("no agentlock workspace here")

// HomeDirName is the folder that holds a project's registry.md and locks/.
const HomeDirName = ".agent-registry"

// Settings are the explicit settings of one invocation. The zero value
// follows the default rules: a home per project.
type Settings struct {
	// Home is the folder holding registry.md and locks/ for every path
	// (AGENT_REGISTRY_HOME); empty for the project's own .agent-registry.
	Home string
	// LockDir is the lock folder for every path (AGENT_REGISTRY_LOCK_DIR);
	// empty for the home's locks/.
	LockDir string
	// RegistryPath is the registry file (AGENT_REGISTRY_PATH); empty for
	// the home's registry.md.
	RegistryPath string
	// UserHome is the user's home folder, where the home of paths outside
	// any project lives; empty when unknown.
	UserHome string
	// Timeout is the staleness timeout of locks; zero means
	// core.DefaultTimeout.
	Timeout time.Duration
	// LockWait bounds every wait for another process's flock on a lock
	// file, the lock folder or the registry's lock (AGENTLOCK_LOCK_WAIT);
	// zero means filestore.DefaultWait. Past it, the operation fails with
	// an error matching core.ErrBusy, naming the file: a process stopped
	// inside a critical section must not hang every agent behind it.
	LockWait time.Duration
	// ConflictCache is how long another worktree's changes are trusted
	// while its HEAD and index stay the same (AGENTLOCK_CONFLICT_CACHE);
	// zero means gitwt.DefaultMaxAge, negative caches nothing.
	ConflictCache time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Bin is the command that the registry's protocol block names; empty
	// means "agentlock".
	Bin string
	// Cache, when not nil, keeps the workspaces opened with these
	// settings, so that one command opens each workspace once: a
	// front end's session service gives every Open of one command the
	// same cache. nil gives each Open a cache of its own, which the
	// workspaces it opens from there (the router, the registry mirror)
	// share.
	Cache *Cache
	// Store names a distributed store for every project (AGENTLOCK_STORE
	// and its options); its fields override the project's store file.
	Store StoreSpec
	// Backends open the stores other than the lock files, by URL scheme
	// (NewBackends); nil opens none.
	Backends *Backends
	// StaleWrites is the stale-write mode (AGENTLOCK_STALE_WRITES), ""
	// for the project's (see Workspace.StaleMode).
	StaleWrites StaleMode
	// SettleWindow is how long before a read's after-tool hook a change
	// by another session makes the read unsettled
	// (AGENTLOCK_SETTLE_WINDOW); zero means the package's SettleWindow.
	SettleWindow time.Duration
	// HookLocks are the process's own values of the policy on the locks
	// hooks take (AGENTLOCK_HOOK_LOCKS, AGENTLOCK_HOOK_IDLE,
	// AGENTLOCK_HOOK_WAIT); unset ones are the project's (see
	// Workspace.HookLocks).
	HookLocks HookLockSettings
	// NewProject is a real folder in no project that init sets up as one:
	// its paths are located as if it held .agent-registry already, so that
	// the home init creates is the one its hooks and commands then find.
	NewProject string

	// origin is where the state of the workspace these settings were
	// opened for lives (set by Open): a path of another repository that
	// is not set up for agentlock keeps its lock and registry entry
	// there, not in a home created in that repository behind its back.
	origin *location
}

// Configured reports whether the locations were set explicitly, so that
// agentlock is in use wherever it runs.
func (s Settings) Configured() bool {
	return s.Home != "" || s.LockDir != "" || s.RegistryPath != ""
}

// location is where the state of a real path lives.
type location struct {
	project, home, lockDir, registry string
	// shared is set when the home is the one the project's
	// .agent-registry/home names.
	shared bool
	// repo is set when the home is the one every worktree of the
	// project's repository shares (repository scope).
	repo bool
}

// locate resolves the locations of a real path: its project (maybe ""),
// home, lock folder and registry file. The project is searched once, and
// only when a location depends on it. A project that shares a home
// (.agent-registry/home) has it as its home, unless AGENT_REGISTRY_HOME
// (Settings.Home) names another.
//
// A path outside every project, when there is no user home to fall back
// on, has no workspace: ErrNoWorkspace.
func (s Settings) locate(realPath string) (location, error) {
	loc, err := s.locateOwn(realPath)
	if err == nil && s.redirected(loc) {
		return *s.origin, nil
	}
	return loc, err
}

// redirected reports whether a path located at loc keeps its state in the
// origin workspace instead: it is in another project, one with no home of
// its own (not set up), and no home is configured for every path.
func (s Settings) redirected(loc location) bool {
	return s.origin != nil && s.Home == "" && loc.project != "" && loc.project != s.origin.project &&
		!loc.shared && !s.hasHome(loc.project)
}

// Redirected returns, for a real path of another repository that is not
// set up for agentlock, that repository's root: the path's lock and
// registry entry are kept in this workspace instead (Locker, Registry).
// It returns "" for every other path.
func (w *Workspace) Redirected(realPath string) string {
	loc, err := w.settings.locateOwn(realPath)
	if err != nil || !w.settings.redirected(loc) {
		return ""
	}
	return loc.project
}

// locateOwn is locate without the redirection of unset-up repositories.
func (s Settings) locateOwn(realPath string) (loc location, err error) {
	if s.Home != "" {
		loc.home, err = filepath.Abs(s.Home)
	} else {
		loc.project = s.projectOf(realPath)
		known := s.Cache.facts()
		rh := known.repoHome(loc.project)
		switch {
		case rh != "":
			loc.home, loc.repo = rh, true
		case loc.project != "":
			loc.home = filepath.Join(loc.project, HomeDirName)
			var shared string
			if shared, err = known.sharedHome(loc.project); shared != "" {
				loc.home, loc.shared = shared, true
			}
		case s.UserHome == "":
			err = fmt.Errorf("no project found above %s and no home folder: set AGENT_REGISTRY_HOME: %w", realPath, ErrNoWorkspace)
		default:
			loc.home = filepath.Join(s.UserHome, HomeDirName)
		}
	}
	if err != nil {
		return location{}, err
	}
	loc.lockDir, loc.registry = filepath.Join(loc.home, "locks"), filepath.Join(loc.home, "registry.md")
	if s.LockDir != "" {
		if loc.lockDir, err = filepath.Abs(s.LockDir); err != nil {
			return location{}, fmt.Errorf("lock folder: %w", err)
		}
	}
	if s.RegistryPath != "" {
		if loc.registry, err = filepath.Abs(s.RegistryPath); err != nil {
			return location{}, fmt.Errorf("registry path: %w", err)
		}
	}
	return loc, nil
}

// lockDirFor returns the lock folder for a real path.
func (s Settings) lockDirFor(realPath string) (string, error) {
	if s.LockDir != "" {
		return filepath.Abs(s.LockDir)
	}
	loc, err := s.locate(realPath)
	return loc.lockDir, err
}

// FindProject returns the project that a real path belongs to: the nearest
// folder, walking up from path (or from its parent when path is not an
// existing folder), that holds a HomeDirName folder or a .git entry. It
// returns "" when the path is in no project. Folders that do not exist yet
// are skipped, so a file about to be created finds its project too.
func FindProject(path string) string { return findProject(path, "", "") }

// FindProject is the package's FindProject, except that the user's home
// folder (Settings.UserHome) is no project by its .agent-registry alone:
// that folder is the home of every path outside a project, and taking it
// for a project's would make every file below the home one project's (init
// would write into ~/.claude). A .git there still makes it one.
//
// The settings' Cache, when it keeps facts, answers each path once and
// resolves the user's home once.
func (s Settings) FindProject(path string) string { return s.Cache.facts().project(path, s.UserHome) }

// projectOf is the project of a real path: FindProject's, else
// NewProject when the path is in it.
func (s Settings) projectOf(realPath string) string {
	if project := s.FindProject(realPath); project != "" || s.NewProject == "" || !inside(realPath, s.NewProject) {
		return project
	}
	return s.NewProject
}

// findProject walks up from path; at userHome (either spelling) only .git
// marks a project.
func findProject(path, userHome, realUserHome string) string {
	return (*facts)(nil).walkProject(path, userHome, realUserHome)
}

// HasHome reports whether project has its own .agent-registry folder, or
// its repository a home shared by every worktree (repository scope): the
// sign that agentlock is set up there.
func HasHome(project string) bool { return Settings{}.hasHome(project) }

// hasHome is HasHome, the repository scope read once per command when the
// settings' Cache keeps facts.
func (s Settings) hasHome(project string) bool {
	if project == "" {
		return false
	}
	info, err := os.Stat(filepath.Join(project, HomeDirName))
	return err == nil && info.IsDir() || s.Cache.facts().repoHome(project) != ""
}

// Workspace is where the locks and the registry of one path live.
type Workspace struct {
	// Project is the project root of the path it was opened for; empty
	// outside any project.
	Project string
	// Home is the folder that holds the registry and the lock folder by
	// default.
	Home string
	// LockDir is the lock folder: where Locker lists and finds a
	// session's locks.
	LockDir string
	// RegistryPath is the registry file.
	RegistryPath string

	shared   bool // the home is the one the project shares
	settings Settings
	// repo is set in repository scope: the home is shared by every
	// worktree of the repository, and paths are mapped (see repoScope).
	repo *repoScope
	// ownTimeout is the process's configured timeout; settings.Timeout
	// holds it raised to the project's (see TimeoutFile).
	ownTimeout time.Duration
	// spec, locks and doc are set when the workspace uses a distributed
	// store (see StoreFile).
	spec  StoreSpec
	locks store.Locks
	doc   store.Document
	// ended and endErr are what Open's FinishExited did (see Ended).
	ended  []Finished
	endErr error
	// problems are the project's own settings that could not be used
	// (see Problems).
	problems []error
	// hookLocks is the policy on the locks hooks take (see HookLocks).
	hookLocks HookLocks
}

// Cache keeps the workspaces one command opened, by where their state
// lives (project, home, lock folder, registry), so that the command opens
// each once however many of its paths or steps need it (see
// Settings.Cache). It is safe for concurrent use.
type Cache struct {
	mu   sync.Mutex
	open map[location]*Workspace
	// opened are the workspaces opened, in order: Opened, and the tests
	// that hold a command to one open per workspace.
	opened []*Workspace
	// known are the facts of the file system the command learned (see
	// facts); nil in the cache Open makes for itself, which keeps none.
	known *facts
}

// NewCache returns an empty cache for one command: it keeps the
// workspaces the command opens, and what the command learns of the file
// system while locating paths (see facts).
func NewCache() *Cache { return &Cache{open: map[location]*Workspace{}, known: newFacts()} }

// NewCacheIn is NewCache for a process whose working directory's real
// path, WorkDir's answer, its caller found already (workDir, "" for not
// found): a relative path the command resolves (RealPath with no folder)
// starts from it, not from the root.
func NewCacheIn(workDir string) *Cache {
	c := NewCache()
	if workDir != "" {
		c.known.wd, c.known.wdFound = resolved{path: workDir}, true
	}
	return c
}

// openCache is the cache Open makes when the settings give none: it keeps
// the workspaces opened from there, and no facts.
func openCache() *Cache { return &Cache{open: map[location]*Workspace{}} }

// Opened returns the workspaces opened through c, in the order opened:
// each once, however many times Open asked for it.
func (c *Cache) Opened() []*Workspace {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.opened)
}

func (c *Cache) get(loc location) *Workspace {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.open[loc]
}

// put keeps w as the workspace of loc, unless another was kept
// meanwhile, which it returns instead.
func (c *Cache) put(loc location, w *Workspace) (*Workspace, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if got, ok := c.open[loc]; ok {
		return got, false
	}
	c.open[loc] = w
	c.opened = append(c.opened, w)
	return w, true
}

// Open resolves the workspace of a real path (a file or a folder). Where
// agentlock is in use (Enabled), opening it finishes the sessions whose
// agent process exited without finishing them (FinishExited: best effort,
// what it did and could not do are in Ended): every command that opens a
// workspace is the next command that notices. A workspace already in the
// settings' Cache is returned as it was opened.
func Open(ctx context.Context, realPath string, s Settings) (*Workspace, error) {
	return open(ctx, realPath, s, true)
}

// Locate resolves the workspace of a real path as Open does, without
// opening its distributed store, which Open refuses when it cannot be used
// (an unknown scheme, a build without its backend): Store names it, and
// the lock files stand in for it, which hold none of the project's locks.
// Only for the checks that do not need the store (agentlock doctor, which
// says why the others did not run); never to lock or to read the registry.
// It changes nothing (no session is finished) and keeps nothing in the
// settings' Cache, which holds opened workspaces only.
func Locate(realPath string, s Settings) (*Workspace, error) {
	return open(context.Background(), realPath, s, false)
}

// Problems are the settings of the workspace's project that could not be
// used: a TimeoutFile that cannot be read or is not a timeout. Safe values
// stand in for them (the longest known timeout); front ends warn, and
// agentlock doctor reports them with the configuration.
func (w *Workspace) Problems() []error { return w.problems }

// open is Open; connect opens the distributed store, and keeps the
// workspace in the cache and finishes exited sessions (see Locate).
func open(ctx context.Context, realPath string, s Settings, connect bool) (*Workspace, error) {
	loc, err := s.locate(realPath)
	if err != nil {
		return nil, err
	}
	if loc.project == "" && s.Home != "" {
		loc.project = s.projectOf(realPath)
	}
	if s.Cache == nil {
		s.Cache = openCache()
	}
	if w := s.Cache.get(loc); w != nil && connect {
		return w, nil
	}
	if s.origin == nil {
		origin := loc
		s.origin = &origin
	}
	own := s.timeout()
	var timeoutErr error
	s.Timeout, timeoutErr = s.effectiveTimeout(loc.home)
	w := &Workspace{Project: loc.project, Home: loc.home, LockDir: loc.lockDir, RegistryPath: loc.registry,
		shared: loc.shared, settings: s, ownTimeout: own}
	if timeoutErr != nil {
		w.problems = append(w.problems, timeoutErr)
	}
	var hookErr error
	if w.hookLocks, hookErr = s.hookLocks(loc.home); hookErr != nil {
		w.problems = append(w.problems, hookErr)
	}
	if loc.repo {
		common := GitCommonDir(loc.project)
		w.repo = &repoScope{common: common, root: canonicalRoot(common), tree: loc.project}
	}
	spec, err := s.storeOf(loc.project)
	if err != nil {
		return nil, err
	}
	// A store keeps the locks of a repository's files: outside any
	// project (AGENTLOCK_STORE set for a whole shell, say) there is no
	// repository, and the lock files stay.
	switch {
	case !spec.Set() || loc.project == "":
	case !connect:
		w.spec = spec
	default:
		if err := w.openRemote(spec); err != nil {
			return nil, err
		}
	}
	if !connect {
		return w, nil
	}
	// Kept before the sessions are finished, which may open it again.
	if got, fresh := s.Cache.put(loc, w); !fresh {
		return got, nil
	}
	if w.Enabled() {
		w.ended, w.endErr = w.FinishExited(ctx)
	}
	return w, nil
}

// Ended returns the sessions that Open finished because their agent
// process had exited (FinishExited), and the error of those it could not
// finish, which the next command retries.
func (w *Workspace) Ended() ([]Finished, error) { return w.ended, w.endErr }

// WorkDir returns the real path of the process's working directory, where
// commands that take no path find their workspace.
func WorkDir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	return core.RealPath(wd, "")
}

// Enabled reports whether agentlock is in use here: the locations are
// configured, or the project has its own home. Hooks do nothing elsewhere.
func (w *Workspace) Enabled() bool {
	return w.settings.Configured() || w.settings.hasHome(w.Project)
}

// OwnHome reports whether the home is the project's own .agent-registry
// folder (not one configured elsewhere).
func (w *Workspace) OwnHome() bool {
	return w.Project != "" && w.Home == filepath.Join(w.Project, HomeDirName)
}

// Locker returns the lock manager of the workspace. A path it locks goes to
// the lock folder of that path's own workspace (a file of another project
// is locked in that project); List, ReleaseSession and RenewSession cover
// this workspace's lock folder.
func (w *Workspace) Locker() *core.Locker {
	return core.NewLocker(w.lockStore(), core.Options{Timeout: w.settings.Timeout, Now: w.settings.Now, RealPath: w.settings.RealPath, HookIdle: w.hookLocks.LockIdle()})
}

// Registry returns the workspace's registry.
func (w *Workspace) Registry() *core.Registry {
	if w.doc != nil {
		return newRegistry(w.doc, w.settings, w.idle, false)
	}
	return registryAt(w.RegistryPath, w.LockDir, w.settings, w.SharedWithLegacy())
}

// registryAt returns the registry kept in the file path, whose sessions
// hold their locks in lockDir; legacy, that agent-registry 0.2's agents
// share it (SharedWithLegacy).
func registryAt(path, lockDir string, s Settings, legacy bool) *core.Registry {
	return newRegistry(&filestore.Document{Path: path, Wait: s.LockWait}, s, s.idleIn(lockDir), legacy)
}

// newRegistry returns the registry kept in doc. Its protocol block gives
// agent-registry 0.2's commands beside agentlock's when legacy is set.
func newRegistry(doc store.Document, s Settings, idle func(context.Context, []core.Session) map[string]bool, legacy bool) *core.Registry {
	bin := s.Bin
	if bin == "" {
		bin = "agentlock"
	}
	protocol := func() (string, error) { return templates.Protocol(templates.ProtocolData{Bin: bin, Legacy: legacy}) }
	return core.NewRegistry(doc, core.RegistryOptions{Protocol: protocol, Now: s.Now, Idle: idle})
}

// registryOf returns the registry of the workspace of a real path.
func (s Settings) registryOf(ctx context.Context, realPath string) (*core.Registry, error) {
	w, err := Open(ctx, realPath, s)
	if err != nil {
		return nil, err
	}
	return w.Registry(), nil
}

// Missing reports whether the registry or the lock folder does not exist.
func (w *Workspace) Missing() bool {
	for _, p := range []string{w.RegistryPath, w.LockDir} {
		if _, err := os.Stat(p); err != nil {
			return true
		}
	}
	return false
}

// Setup creates the lock folder and an empty registry (with its protocol
// block) when they are missing; an existing registry is kept. The registry
// is written like every other registry write, under its lock.
func (w *Workspace) Setup(ctx context.Context) error {
	defer w.settings.Cache.facts().forget()
	if w.OwnHome() {
		// The home folder marks the project, wherever its files are.
		if err := os.MkdirAll(w.Home, 0o700); err != nil {
			return fmt.Errorf("create %s: %w", w.Home, err)
		}
	}
	if err := os.MkdirAll(w.LockDir, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", w.LockDir, err)
	}
	if w.doc == nil && exists(w.Home) {
		if err := w.settings.recordTimeout(w.Home); err != nil {
			return err
		}
	}
	if _, err := w.Registry().Create(ctx); err != nil {
		return err
	}
	return nil
}

// HomeIgnoreFile is the .gitignore that agentlock writes in a project's
// home when a command (not init, which writes the project's .gitignore
// block) creates it: the registry and the lock files are never for the
// repository, whatever `git add -A` picks up.
const HomeIgnoreFile = ".gitignore"

// homeIgnore is the content of HomeIgnoreFile.
const homeIgnore = "# Created by agentlock: the registry and lock files of this folder are not for the repository.\n*\n"

// ensureOwnHome creates the project's own home, with its HomeIgnoreFile,
// when it is missing and target (the lock folder or the registry about to
// be written) is in it: the first command that writes state in a project
// nobody ran init in must not leave files for git to commit.
func (w *Workspace) ensureOwnHome(target string) error {
	if !w.OwnHome() || w.doc != nil || !inside(target, w.Home) || exists(w.Home) {
		return nil
	}
	defer w.settings.Cache.facts().forget()
	if err := os.MkdirAll(w.Home, 0o700); err != nil {
		return fmt.Errorf("create %s: %w", w.Home, err)
	}
	if err := os.WriteFile(filepath.Join(w.Home, HomeIgnoreFile), []byte(homeIgnore), 0o644); err != nil {
		return fmt.Errorf("create %s: %w", filepath.Join(w.Home, HomeIgnoreFile), err)
	}
	return w.settings.recordTimeout(w.Home)
}

// KeptError explains why Teardown kept the home.
type KeptError struct {
	Reason string
}

func (e *KeptError) Error() string { return "kept: " + e.Reason }

// Teardown removes the project's own home (registry and locks) when nothing
// depends on it: no lock held, no session working, and every file readable.
// Otherwise it returns a *KeptError saying why. The check and the removal
// happen while no lock can be taken in the lock folder and no registry
// write can run, so a lock taken meanwhile is never deleted. With dryRun
// nothing is removed.
func (w *Workspace) Teardown(ctx context.Context, dryRun bool) error {
	if !w.OwnHome() {
		return &KeptError{Reason: "the home is not the project's own .agent-registry"}
	}
	defer w.settings.Cache.facts().forget()
	check := func() error {
		if err := w.InUse(ctx); err != nil {
			return err
		}
		if dryRun {
			return errDryRun
		}
		return nil
	}
	err := filestore.RemoveHome(ctx, w.Home, w.LockDir, &filestore.Document{Path: w.RegistryPath, Wait: w.settings.LockWait}, check)
	if errors.Is(err, errDryRun) {
		return nil
	}
	return err
}

// InUse returns a *KeptError saying why the workspace's state must not be
// dropped — a lock is held, a session works, or a file cannot be read —
// and nil when nothing depends on it (Teardown; init --scope, which moves
// every worktree to another home).
func (w *Workspace) InUse(ctx context.Context) error {
	states, problems, err := w.Locker().List(ctx)
	if err != nil {
		return err
	}
	var held []string
	for _, st := range states {
		if st.Locked() {
			held = append(held, st.Path+" ("+st.Owner+")")
		}
	}
	doc, regErr := w.Registry().Load(ctx)
	var working []string
	for _, sess := range doc.Agents {
		if sess.Status == core.StatusWorking {
			working = append(working, sess.SessionID)
		}
	}
	switch {
	case len(held) > 0:
		return &KeptError{Reason: "locks are held: " + strings.Join(held, ", ")}
	case len(working) > 0:
		return &KeptError{Reason: "sessions are working: " + strings.Join(working, ", ") + " (finish them first)"}
	case len(problems) > 0 || regErr != nil:
		return &KeptError{Reason: fmt.Sprintf("it holds files agentlock cannot read: %v", errors.Join(append(problems, regErr)...))}
	}
	return nil
}

// errDryRun stops a dry-run Teardown after its check passed.
var errDryRun = errors.New("dry run")
