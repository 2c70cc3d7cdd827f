// Package cliconfig resolves the configuration of one invocation of the
// command line: from its flags and the environment (viper, flag >
// environment > default), fresh for every process and never cached in a
// package variable, so that tests and agents isolate by environment alone.
// It also opens the workspaces the commands work in.
package cliconfig

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/agentlock/agentlock/identity"
	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/all"
	"github.com/agentlock/agentlock/internal/frontend/hooks"
	"github.com/agentlock/agentlock/internal/frontend/sessionarg"
	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/workspace"
)

// Config is the configuration of one invocation (see Load).
type Config struct {
	// Settings locate the workspace: AGENT_REGISTRY_HOME,
	// AGENT_REGISTRY_LOCK_DIR, AGENT_REGISTRY_PATH, the user's home, the
	// timeout (--timeout or AGENTLOCK_TIMEOUT), the bound on flock waits
	// (AGENTLOCK_LOCK_WAIT) and the clock.
	Settings workspace.Settings
	// AgentDirs are agent CLIs' user folders moved by their variables
	// (KIMI_CODE_HOME, KIMI_SHARE_DIR), absolute, for init and uninit.
	AgentDirs map[string]string
	Session   string // resolved session id (may be empty); see all.Set.ResolveSession
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
	// doctor check it).
	SearchPath string
	// AgentVars are the values of the variables that the agents read for
	// their doctor checks (integrations.Variables.EnvVars: CODEX_HOME,
	// OPENCODE_PURE, ...), by name; unset ones are left out.
	AgentVars map[string]string
	// Problems are the settings whose values are invalid, each naming the
	// variable (or flag) and its allowed range; their defaults stand in.
	Problems []error
	// projectProblems are the problems of the projects' own settings met
	// by the workspaces opened (workspace.Workspace.Problems), once each:
	// warnings, which done returns.
	projectProblems []error
}

// EnvBindings maps configuration keys to the environment variables Load
// reads for them.
var EnvBindings = [][2]string{
	{"lock_dir", "AGENT_REGISTRY_LOCK_DIR"},
	{"registry_path", "AGENT_REGISTRY_PATH"},
	{"home", "AGENT_REGISTRY_HOME"},
	{"session", "AGENTLOCK_SESSION"},
	{"session_env", "AGENTLOCK_SESSION"}, // not overridden by --session
	{"timeout", "AGENTLOCK_TIMEOUT"},
	{"lock_wait", "AGENTLOCK_LOCK_WAIT"},
	{"conflict_cache", "AGENTLOCK_CONFLICT_CACHE"},
	{"search_path", "PATH"},
	{"store", workspace.StoreVar},
}

// Load resolves the configuration of an invocation from its flags (the
// root's persistent --session, --timeout and --json, parsed by then) and
// the environment, with a new viper instance:
// flag > environment > default.
func Load(flags *pflag.FlagSet, now func() time.Time) (*Config, error) {
	v := viper.New()
	for _, b := range EnvBindings {
		if err := v.BindEnv(b[0], b[1]); err != nil {
			return nil, fmt.Errorf("configuration: %w", err)
		}
	}
	for _, name := range []string{"session", "timeout", "json"} {
		if err := v.BindPFlag(name, flags.Lookup(name)); err != nil {
			return nil, fmt.Errorf("configuration: %w", err)
		}
	}
	// getenv reads any other variable through viper too.
	getenv := func(name string) string {
		key := "env_" + strings.ToLower(name)
		if err := v.BindEnv(key, name); err != nil {
			return ""
		}
		return v.GetString(key)
	}
	c := &Config{
		Settings: workspace.Settings{
			LockDir:      v.GetString("lock_dir"),
			RegistryPath: v.GetString("registry_path"),
			Home:         v.GetString("home"),
			Now:          now,
			Store:        workspace.StoreSpec{URL: v.GetString("store")},
			Backends:     workspace.NewBackends(),
		},
		JSON:       v.GetBool("json"),
		SearchPath: v.GetString("search_path"),
	}
	if home, err := os.UserHomeDir(); err == nil {
		c.Settings.UserHome = home
	}
	c.Agents, c.AgentErrors = all.Load(all.DefaultSources(os.Getenv, c.Settings.UserHome))
	c.Harness = c.Agents.HarnessSessions(getenv)
	c.AgentVars = c.Agents.EnvVars(getenv)
	// A bad value is a problem of the configuration, not a crash: the
	// default stands in, and each command decides (see Lazy).
	timeoutVar := "AGENTLOCK_TIMEOUT"
	if flags.Changed("timeout") {
		timeoutVar = "--timeout"
	}
	var err error
	for _, s := range []struct {
		dst   *time.Duration
		parse func(string) (time.Duration, error)
		key   string
	}{
		{&c.Settings.Timeout, func(s string) (time.Duration, error) { return workspace.ParseTimeout(timeoutVar, s) }, "timeout"},
		{&c.Settings.LockWait, workspace.ParseLockWait, "lock_wait"},
		{&c.Settings.ConflictCache, workspace.ParseConflictCache, "conflict_cache"},
	} {
		if *s.dst, err = s.parse(v.GetString(s.key)); err != nil {
			c.Problems = append(c.Problems, err)
		}
	}
	if err := c.Settings.Absolute(); err != nil {
		return nil, err
	}
	if c.AgentDirs, err = c.Agents.AgentDirs(getenv); err != nil {
		return nil, err
	}
	c.Lookup = c.ancestryLookup()
	c.Identity = c.Agents.ResolveSession(flags.Changed("session"), v.GetString("session"), c.Harness, c.Lookup)
	c.Session, c.SessionSource = c.Identity.Session, c.Identity.Source
	// A --session equal to AGENTLOCK_SESSION (the wrapper's) is the
	// agent's own, whatever else the context says.
	if c.SessionSource == identity.SourceFlag && c.Session != v.GetString("session_env") {
		c.Context = c.Agents.ResolveSession(false, "", c.Harness, c.Lookup)
	}
	return c, nil
}

// ancestryLookup returns a lookup, done at most once, of the agent records
// of this process's ancestry in the workspace of the working directory.
func (c *Config) ancestryLookup() func() identity.Found {
	var found *identity.Found
	return func() identity.Found {
		if found == nil {
			found = &identity.Found{}
			// Resolved while the configuration loads, before any
			// command's context exists: only the best-effort finishing of
			// exited sessions that opening the workspace does uses it.
			if ws, err := c.WorkWorkspace(context.Background()); err == nil {
				*found = identity.LookupSelf(identity.Dir(ws.Home))()
			}
		}
		return *found
	}
}

// WorkspaceOf returns the workspace of a real path. Every command that
// opens one first finishes the sessions whose agent process exited
// without finishing them (workspace.FinishExited): best effort, a session
// it could not finish is retried by the next command.
func (c *Config) WorkspaceOf(ctx context.Context, realPath string) (*workspace.Workspace, error) {
	ws, err := workspace.Open(realPath, c.Settings)
	if err == nil && ws.Enabled() {
		_, _ = ws.FinishExited(ctx)
	}
	if err == nil {
		c.noteProblems(ws.Problems())
	}
	return ws, err
}

// noteProblems keeps the problems of a project's settings for the
// warnings of the invocation, each once.
func (c *Config) noteProblems(problems []error) {
	for _, p := range problems {
		if !slices.ContainsFunc(c.projectProblems, func(q error) bool { return q.Error() == p.Error() }) {
			c.projectProblems = append(c.projectProblems, p)
		}
	}
}

// WorkWorkspace returns the workspace of the working directory, for the
// commands that take no path.
func (c *Config) WorkWorkspace(ctx context.Context) (*workspace.Workspace, error) {
	wd, err := workspace.WorkDir()
	if err != nil {
		return nil, err
	}
	return c.WorkspaceOf(ctx, wd)
}

// Lazy returns a front end's configuration functions, resolved from flags
// (parsed by then) on the first call of either and kept for the rest of
// the process. strict refuses a configuration with Problems (a usage error
// naming the first); lenient returns it with the defaults in their place,
// for the commands that must run whatever the configuration (hooks,
// doctor, version, whoami, env). done closes what the configuration opened
// (the stores' connections) once the command is done, and returns what to
// warn about: the problems of the projects' own settings that the
// command's workspaces met (a .agent-registry/timeout that is no timeout,
// say: every command warns while it stays), then any error closing.
func Lazy(flags *pflag.FlagSet, now func() time.Time) (strict, lenient func() (*Config, error), done func() error) {
	var c *Config
	var err error
	lenient = func() (*Config, error) {
		if c == nil && err == nil {
			c, err = Load(flags, now)
		}
		return c, err
	}
	strict = func() (*Config, error) {
		c, err := lenient()
		if err == nil && len(c.Problems) > 0 {
			return nil, &report.UsageError{Err: c.Problems[0]}
		}
		return c, err
	}
	done = func() error {
		if c == nil {
			return nil
		}
		return errors.Join(append(slices.Clone(c.projectProblems), c.Settings.Backends.Close())...)
	}
	return strict, lenient, done
}

// SessionArgs are the session rules of package sessionarg for what c
// knows.
func (c *Config) SessionArgs() sessionarg.Args {
	return sessionarg.Args{Session: c.Session, Source: c.SessionSource, Resolved: c.Identity, Context: c.Context}
}

// HookRequest is the request of the hook of agent for event, with the
// harness's payload: the hook resolves its session itself (package
// identity) from the payload and the workspace of the payload's cwd,
// unless a session was named explicitly (--session, AGENTLOCK_SESSION);
// the session of another harness's variable is its fallback.
func (c *Config) HookRequest(agent integrations.Agent, event string, payload io.Reader) hooks.Request {
	req := hooks.Request{Agent: agent, Event: event, Payload: payload, Settings: c.Settings,
		HarnessSession: c.Harness[agent.Name()], Problems: c.Problems}
	req.Fallback, _ = c.Agents.SessionFromHarness(c.Harness)
	if c.SessionSource == identity.SourceFlag || c.SessionSource == identity.SourceEnv {
		req.Session = c.Session
	}
	return req
}
