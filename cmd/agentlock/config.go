package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/internal/agents/all"
	"github.com/agentlock/agentlock/internal/agents/kimi"
	"github.com/agentlock/agentlock/internal/agents/manifest"
	"github.com/agentlock/agentlock/internal/agents/pi"
	"github.com/agentlock/agentlock/internal/identity"
	"github.com/agentlock/agentlock/workspace"
)

// config is the configuration of one invocation, resolved fresh from flags
// and environment every time a process runs (never cached in a package
// variable), so that tests and agents isolate by environment alone.
type config struct {
	// Settings locate the workspace: AGENT_REGISTRY_HOME,
	// AGENT_REGISTRY_LOCK_DIR, AGENT_REGISTRY_PATH, the user's home, the
	// timeout (--timeout or AGENTLOCK_TIMEOUT), the bound on flock waits
	// (AGENTLOCK_LOCK_WAIT) and the clock.
	Settings workspace.Settings
	// AgentDirs are agent CLIs' user folders moved by their variables
	// (KIMI_CODE_HOME, KIMI_SHARE_DIR), absolute, for init and uninit.
	AgentDirs map[string]string
	Session   string // resolved session id (may be empty); see resolveSession
	// SessionSource names where Session came from: "--session",
	// "AGENTLOCK_SESSION", a harness variable such as
	// "CLAUDE_CODE_SESSION_ID", or an identity.Source* of a record.
	SessionSource string
	// Identity is the whole resolution, with the agent record it came
	// from, if any.
	Identity identity.Identity
	// Context is, when --session was given, the session that the agent
	// context names without it (a wrapper above, the harness's variable,
	// or a recorded agent process above); zero otherwise.
	Context identity.Identity
	// Lookup finds the agent records of this process's ancestry in the
	// workspace of the working directory, once.
	Lookup func() identity.Found
	// Harness holds, per agent name, the session id its harness exported
	// (raw, without the agent prefix).
	Harness map[string]string
	// Agents are the built-in agents and those of the manifests in the
	// user's and the project's folders (all.Load); AgentErrors are the
	// manifests that could not be used, one line each.
	Agents      all.Set
	AgentErrors []error
	JSON        bool // --json
	// SearchPath is PATH, where hooks and agents find agentlock (init and
	// doctor check it); CodexHome is $CODEX_HOME, CopilotHome
	// $COPILOT_HOME and CopilotAllowAll $COPILOT_ALLOW_ALL (doctor).
	SearchPath, CodexHome, CopilotHome, CopilotAllowAll string
	// PluginsOff are, by agent (opencode, kilo), the variables set in the
	// environment that stop that CLI from loading the project's plugins
	// ("OPENCODE_PURE=1"): doctor warns.
	PluginsOff map[string][]string
	// Problems are the settings whose values are invalid, each naming the
	// variable (or flag) and its allowed range; their defaults stand in.
	Problems []error
}

// envBindings maps configuration keys to their environment variables.
var envBindings = [][2]string{
	{"lock_dir", "AGENT_REGISTRY_LOCK_DIR"},
	{"registry_path", "AGENT_REGISTRY_PATH"},
	{"home", "AGENT_REGISTRY_HOME"},
	{"session", "AGENTLOCK_SESSION"},
	{"session_env", "AGENTLOCK_SESSION"}, // not overridden by --session
	{"timeout", "AGENTLOCK_TIMEOUT"},
	{"lock_wait", "AGENTLOCK_LOCK_WAIT"},
	{"conflict_cache", "AGENTLOCK_CONFLICT_CACHE"},
	{"search_path", "PATH"},
	{"codex_home", "CODEX_HOME"},
	{"copilot_home", "COPILOT_HOME"},
	{"copilot_allow_all", "COPILOT_ALLOW_ALL"},
	{"opencode_pure", "OPENCODE_PURE"},
	{"opencode_disable_project_config", "OPENCODE_DISABLE_PROJECT_CONFIG"},
	{"kilo_pure", "KILO_PURE"},
	{"kilo_disable_project_config", "KILO_DISABLE_PROJECT_CONFIG"},
	{"store", storeVar},
}

// storeVar names a distributed store for every project, overriding the
// project's own (.agent-registry/store).
const storeVar = "AGENTLOCK_STORE"

// frontVar tells the etcd build which program handed the command line over
// to it (see delegate), so that the checks of the agentlock on PATH compare
// that one, the program hooks run.
const frontVar = "AGENTLOCK_FRONT"

// selfProgram is the program that hooks should find on PATH: this one, or
// the one that handed over to it.
func selfProgram() (string, error) {
	if front := os.Getenv(frontVar); etcdBuild && front != "" {
		return front, nil
	}
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find this program's file: %w", err)
	}
	return self, nil
}

// lazyConfig returns the Factory's Config and Lenient functions: the
// configuration is resolved from flags (parsed by then) on the first call
// of either, and kept for the rest of this process. Config refuses a
// configuration with Problems (a usage error naming the first); Lenient
// returns it with the defaults in their place, for the commands that must
// run whatever the configuration (hooks, doctor, version, whoami, env).
// done closes what the configuration opened (the stores' connections)
// once the command is done.
func lazyConfig(flags *pflag.FlagSet, now func() time.Time) (strict, lenient func() (*config, error), done func() error) {
	var c *config
	var err error
	lenient = func() (*config, error) {
		if c == nil && err == nil {
			c, err = loadConfig(flags, now)
		}
		return c, err
	}
	strict = func() (*config, error) {
		c, err := lenient()
		if err == nil && len(c.Problems) > 0 {
			return nil, &usageError{err: c.Problems[0]}
		}
		return c, err
	}
	done = func() error {
		if c == nil {
			return nil
		}
		return c.Settings.Backends.Close()
	}
	return strict, lenient, done
}

// loadConfig resolves the configuration with a new viper instance:
// flag > environment > default.
func loadConfig(flags *pflag.FlagSet, now func() time.Time) (*config, error) {
	v := viper.New()
	for _, b := range envBindings {
		if err := v.BindEnv(b[0], b[1]); err != nil {
			return nil, fmt.Errorf("configuration: %w", err)
		}
	}
	for _, name := range []string{"session", "timeout", "json"} {
		if err := v.BindPFlag(name, flags.Lookup(name)); err != nil {
			return nil, fmt.Errorf("configuration: %w", err)
		}
	}
	c := &config{
		Settings: workspace.Settings{
			LockDir:      v.GetString("lock_dir"),
			RegistryPath: v.GetString("registry_path"),
			Home:         v.GetString("home"),
			Now:          now,
			Store:        workspace.StoreSpec{URL: v.GetString("store")},
			Backends:     workspace.NewBackends(),
		},
		JSON:            v.GetBool("json"),
		SearchPath:      v.GetString("search_path"),
		CodexHome:       v.GetString("codex_home"),
		CopilotHome:     v.GetString("copilot_home"),
		CopilotAllowAll: v.GetString("copilot_allow_all"),
		PluginsOff:      map[string][]string{},
	}
	for _, b := range [][3]string{{"opencode", "opencode_pure", "OPENCODE_PURE"}, {"opencode", "opencode_disable_project_config", "OPENCODE_DISABLE_PROJECT_CONFIG"},
		{"kilo", "kilo_pure", "KILO_PURE"}, {"kilo", "kilo_disable_project_config", "KILO_DISABLE_PROJECT_CONFIG"}} {
		// OpenCode reads a flag variable as on when it is "true" or "1".
		if val := strings.ToLower(v.GetString(b[1])); val == "true" || val == "1" {
			c.PluginsOff[b[0]] = append(c.PluginsOff[b[0]], b[2]+"="+v.GetString(b[1]))
		}
	}
	if home, err := os.UserHomeDir(); err == nil {
		c.Settings.UserHome = home
	}
	c.Agents, c.AgentErrors = all.Load(agentSources(c.Settings.UserHome))
	c.Harness = c.Agents.HarnessSessions(func(name string) string {
		key := "harness_" + strings.ToLower(name)
		if err := v.BindEnv(key, name); err != nil {
			return ""
		}
		return v.GetString(key)
	})
	// A bad value is a problem of the configuration, not a crash: the
	// default stands in, and each command decides (see lazyConfig).
	timeoutVar := "AGENTLOCK_TIMEOUT"
	if flags.Changed("timeout") {
		timeoutVar = "--timeout"
	}
	timeout, err := parseTimeout(timeoutVar, v.GetString("timeout"))
	if err != nil {
		c.Problems = append(c.Problems, err)
	}
	c.Settings.Timeout = timeout
	if c.Settings.LockWait, err = parseLockWait(v.GetString("lock_wait")); err != nil {
		c.Problems = append(c.Problems, err)
	}
	if c.Settings.ConflictCache, err = parseConflictCache(v.GetString("conflict_cache")); err != nil {
		c.Problems = append(c.Problems, err)
	}
	if err := c.absoluteLocations(); err != nil {
		return nil, err
	}
	if c.AgentDirs, err = agentDirs(v); err != nil {
		return nil, err
	}
	c.Lookup = c.ancestryLookup()
	c.Identity = resolveSession(flags.Changed("session"), v.GetString("session"), c.Agents, c.Harness, c.Lookup)
	c.Session, c.SessionSource = c.Identity.Session, c.Identity.Source
	// A --session equal to AGENTLOCK_SESSION (the wrapper's) is the
	// agent's own, whatever else the context says.
	if c.SessionSource == identity.SourceFlag && c.Session != v.GetString("session_env") {
		c.Context = resolveSession(false, "", c.Agents, c.Harness, c.Lookup)
	}
	return c, nil
}

// flagConflict refuses, in one line, a --session that is not the session
// of the agent this runs for (a wrapper above, the harness's variable, a
// recorded agent process above): an agent that typed another id would
// take locks its own hooks then refuse it. AGENTLOCK_SESSION alone does
// not count: there the flag wins, as configuration flags do. run is the
// command to suggest instead, without --session.
func (c *config) flagConflict(run string) error {
	if !c.Context.Known() || c.Context.Session == c.Session {
		return nil
	}
	return &lineUsageError{msg: fmt.Sprintf("you are session %s (from %s), not %s: run '%s' (without --session)",
		c.Context.Session, c.Context.Describe(), c.Session, run)}
}

// ancestryLookup returns a lookup, done at most once, of the agent records
// of this process's ancestry in the workspace of the working directory.
func (c *config) ancestryLookup() func() identity.Found {
	var found *identity.Found
	return func() identity.Found {
		if found == nil {
			found = &identity.Found{}
			// Resolved while the configuration loads, before any
			// command's context exists: only the best-effort finishing of
			// exited sessions that opening the workspace does uses it.
			if ws, err := c.workWorkspace(context.Background()); err == nil {
				*found = identity.LookupSelf(identity.Dir(ws.Home))()
			}
		}
		return *found
	}
}

// resolveSession applies the one resolution order of the session id that
// every command uses (package identity): --session, AGENTLOCK_SESSION, a
// wrapper script among the ancestors, the session id that an agent harness
// exported (CLAUDE_CODE_SESSION_ID, CODEX_THREAD_ID, GEMINI_SESSION_ID,
// COPILOT_AGENT_SESSION_ID, in that order) mapped to "<agent>-<id>", then the session recorded for the
// nearest recorded agent process among the ancestors. explicit is the
// flag-or-AGENTLOCK_SESSION value viper resolved.
func resolveSession(flagGiven bool, explicit string, agents all.Set, harness map[string]string, lookup func() identity.Found) identity.Identity {
	in := identity.Inputs{Lookup: lookup}
	if flagGiven {
		in.Flag = explicit
	} else {
		in.Env = explicit
	}
	in.Harness, in.HarnessVar = agents.SessionFromHarness(harness)
	return identity.Resolve(in)
}

// agentSources are the folders of agent manifests: the user's
// (~/.config/agentlock/agents) and the one of the working directory's
// project (.agentlock/agents), where init keeps the manifests given by
// path.
func agentSources(home string) all.Sources {
	src := all.Sources{User: all.UserDir(os.Getenv, home)}
	if wd, err := workspace.WorkDir(); err == nil {
		if project := workspace.FindProject(wd); project != "" {
			src.Project = filepath.Join(project, filepath.FromSlash(manifest.ProjectDir))
		}
	}
	return src
}

// absoluteLocations makes relative AGENT_REGISTRY_LOCK_DIR, _PATH and
// _HOME absolute from the project root of the working directory (the
// working directory itself outside any project), so that every process of
// a project, wherever in it it runs, finds one lock folder and one
// registry.
func (c *config) absoluteLocations() error {
	locs := []*string{&c.Settings.LockDir, &c.Settings.RegistryPath, &c.Settings.Home}
	var base string
	for _, p := range locs {
		if *p == "" || filepath.IsAbs(*p) {
			continue
		}
		if base == "" {
			wd, err := workspace.WorkDir()
			if err != nil {
				return err
			}
			if base = workspace.FindProject(wd); base == "" {
				base = wd
			}
		}
		*p = filepath.Join(base, *p)
	}
	return nil
}

// Bounds of the staleness timeout: below MinTimeout a lock would expire
// between two steps of one command; above MaxTimeout a crashed session's
// locks would outlive anyone's patience.
const (
	MinTimeout = 100 * time.Millisecond
	MaxTimeout = 7 * 24 * time.Hour
)

// parseTimeout accepts seconds ("120", "0.5") or a Go duration ("2m"),
// from MinTimeout to MaxTimeout; empty means core.DefaultTimeout. what
// names where the value came from (AGENTLOCK_TIMEOUT or --timeout). An
// invalid value comes back with the default.
func parseTimeout(what, s string) (time.Duration, error) {
	d, err := boundedDuration(what, s, core.DefaultTimeout, MinTimeout, MaxTimeout)
	if err != nil {
		return core.DefaultTimeout, err
	}
	return d, nil
}

// maxLockWait bounds AGENTLOCK_LOCK_WAIT: a longer wait for a critical
// section of microseconds is a hang by another name.
const maxLockWait = time.Hour

// parseLockWait reads AGENTLOCK_LOCK_WAIT, how long to wait at most for
// another process's flock, like parseTimeout, up to maxLockWait; empty
// means the store's default (zero).
func parseLockWait(s string) (time.Duration, error) {
	return boundedDuration("AGENTLOCK_LOCK_WAIT", s, 0, time.Millisecond, maxLockWait)
}

// boundedDuration reads the setting what: seconds ("120", "0.5") or a Go
// duration ("2m") from min to max, def when empty. NaN, infinities and
// anything out of bounds are usage errors.
// parseConflictCache reads AGENTLOCK_CONFLICT_CACHE, how long the changes
// of another worktree are trusted while its HEAD and index stay the same
// (docs/worktrees.md): 0 caches nothing; empty means the default.
func parseConflictCache(s string) (time.Duration, error) {
	d, err := boundedDuration("AGENTLOCK_CONFLICT_CACHE", s, 0, 0, time.Minute)
	if err == nil && d == 0 && strings.TrimSpace(s) != "" {
		d = -1
	}
	return d, err
}

func boundedDuration(what, s string, def, min, max time.Duration) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return def, nil
	}
	outOfRange := func() error {
		return fmt.Errorf("%s=%q is invalid: it must be from %g s to %g s (seconds, or a duration from %s to %s)", what, s, min.Seconds(), max.Seconds(), min, max)
	}
	var d time.Duration
	if secs, err := strconv.ParseFloat(s, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		// Compare in float seconds first: converting NaN, an infinity or
		// 1e30 to a Duration is undefined or overflows.
		if math.IsNaN(secs) || secs < min.Seconds() || secs > max.Seconds() {
			return 0, outOfRange()
		}
		d = time.Duration(secs * float64(time.Second))
	} else if d, err = time.ParseDuration(s); err != nil {
		return 0, fmt.Errorf("%s=%q is invalid: it must be seconds (120) or a duration (2m), from %g s to %g s", what, s, min.Seconds(), max.Seconds())
	}
	if d < min || d > max {
		return 0, outOfRange()
	}
	return d, nil
}

// warnProblems prints a warning per invalid setting, for the commands that
// run anyway (with the default in its place).
func warnProblems(io *IOStreams, c *config) {
	for _, p := range c.Problems {
		warnf(io, "%v; using the default here, but other commands refuse to run until it is fixed", p)
	}
}

// workspaceOf returns the workspace of a real path. Every command that
// opens one first finishes the sessions whose agent process exited
// without finishing them (workspace.FinishExited): best effort, a session
// it could not finish is retried by the next command.
func (c *config) workspaceOf(ctx context.Context, realPath string) (*workspace.Workspace, error) {
	ws, err := workspace.Open(realPath, c.Settings)
	if err == nil && ws.Enabled() {
		_, _ = ws.FinishExited(ctx)
	}
	return ws, err
}

// workWorkspace returns the workspace of the working directory, for the
// commands that take no path.
func (c *config) workWorkspace(ctx context.Context) (*workspace.Workspace, error) {
	wd, err := workspace.WorkDir()
	if err != nil {
		return nil, err
	}
	return c.workspaceOf(ctx, wd)
}

// workConfig resolves the configuration and the workspace of the working
// directory, for the commands that need nothing else first.
func workConfig(ctx context.Context, get func() (*config, error)) (*config, *workspace.Workspace, error) {
	c, err := get()
	if err != nil {
		return nil, nil, err
	}
	ws, err := c.workWorkspace(ctx)
	return c, ws, err
}

// agentDirVars are the variables that move an agent CLI's user folder.
var agentDirVars = []string{kimi.KimiCodeHomeVar, kimi.KimiShareDirVar, pi.AgentDirVar}

// agentDirs reads agentDirVars, made absolute; unset ones are left out.
func agentDirs(v *viper.Viper) (map[string]string, error) {
	dirs := map[string]string{}
	for _, name := range agentDirVars {
		key := "agent_dir_" + strings.ToLower(name)
		if err := v.BindEnv(key, name); err != nil {
			return nil, fmt.Errorf("configuration: %w", err)
		}
		dir := v.GetString(key)
		if dir == "" {
			continue
		}
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		dirs[name] = abs
	}
	return dirs, nil
}
