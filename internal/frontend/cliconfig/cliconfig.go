// Package cliconfig resolves the configuration of one invocation of the
// command line: from its flags and the environment (flag > environment >
// default, see sources), fresh for every process and never cached in a
// package variable, so that tests and agents isolate by environment alone.
// It also opens the workspaces the commands work in.
package cliconfig

import (
	"context"
	"errors"
	"io"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/all"
	"github.com/agentlock/agentlock/internal/frontend/hooks"
	"github.com/agentlock/agentlock/internal/frontend/sessionarg"
	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/session"
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
	// Identity is what the session is resolved from (--session,
	// AGENTLOCK_SESSION, the first agent's harness variable): the session
	// service resolves it once, when a command asks (Service).
	Identity session.Inputs
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
	// WorkDir is the real path of the working directory, resolved once
	// for the command (the project's agent manifests, the session
	// service's working folder); "" when it cannot be, which the session
	// service then reports.
	WorkDir string

	// service is the session service of this invocation (Service).
	service *session.Service
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
	{"stale_writes", "AGENTLOCK_STALE_WRITES"},
	{"settle_window", "AGENTLOCK_SETTLE_WINDOW"},
	{"hook_locks", workspace.HookLocksVar},
	{"hook_idle", workspace.HookIdleVar},
	{"hook_wait", workspace.HookWaitVar},
	{"search_path", "PATH"},
	{"store", workspace.StoreVar},
}

// Load resolves the configuration of an invocation from its flags (the
// root's persistent --session, --timeout and --json, parsed by then) and
// the environment: flag > environment > default.
func Load(flags *pflag.FlagSet, now func() time.Time) (*Config, error) {
	c, err := LoadSettings(flags, now)
	if err != nil {
		return nil, err
	}
	if err := c.loadAgents(); err != nil {
		return nil, err
	}
	return c, nil
}

// LoadSettings is Load without the agents: the settings, --json, the
// session given by --session or AGENTLOCK_SESSION, and the problems of
// their values, for a command that reads nothing else (version). Its
// Agents, AgentErrors, Harness, AgentVars and AgentDirs are empty, its
// WorkDir is "" and its Identity has no harness session: building the
// agent list and reading the folders of agent manifests cost every start
// of agentlock version more than the rest of its configuration
// (docs/speed.md). It opens nothing.
func LoadSettings(flags *pflag.FlagSet, now func() time.Time) (*Config, error) {
	v, err := newSources(flags, os.Getenv)
	if err != nil {
		return nil, err
	}
	c := &Config{
		Settings: workspace.Settings{
			LockDir:      v.get("lock_dir"),
			RegistryPath: v.get("registry_path"),
			Home:         v.get("home"),
			Now:          now,
			Store:        workspace.StoreSpec{URL: v.get("store")},
			Backends:     workspace.NewBackends(),
		},
		JSON:       v.getBool("json"),
		SearchPath: v.get("search_path"),
	}
	if home, err := os.UserHomeDir(); err == nil {
		c.Settings.UserHome = home
	}
	// A bad value is a problem of the configuration, not a crash: the
	// default stands in, and each command decides (see Lazy).
	timeoutVar := "AGENTLOCK_TIMEOUT"
	if flags.Changed("timeout") {
		timeoutVar = "--timeout"
	}
	for _, s := range []struct {
		dst   *time.Duration
		parse func(string) (time.Duration, error)
		key   string
	}{
		{&c.Settings.Timeout, func(s string) (time.Duration, error) { return workspace.ParseTimeout(timeoutVar, s) }, "timeout"},
		{&c.Settings.LockWait, workspace.ParseLockWait, "lock_wait"},
		{&c.Settings.ConflictCache, workspace.ParseConflictCache, "conflict_cache"},
		{&c.Settings.SettleWindow, workspace.ParseSettleWindow, "settle_window"},
	} {
		if *s.dst, err = s.parse(v.get(s.key)); err != nil {
			c.Problems = append(c.Problems, err)
		}
	}
	if c.Settings.StaleWrites, err = workspace.ParseStaleMode("AGENTLOCK_STALE_WRITES", v.get("stale_writes")); err != nil {
		c.Problems = append(c.Problems, err)
	}
	if c.Settings.HookLocks, err = hookLockSettings(v); err != nil {
		c.Problems = append(c.Problems, err)
	}
	if err := c.Settings.Absolute(); err != nil {
		return nil, err
	}
	c.Identity = identityInputs(flags.Changed("session"), v.get("session"), v.get("session_env"))
	return c, nil
}

// loadAgents completes LoadSettings' configuration: the working
// directory, the agents (built-in, and those of the manifests of the
// user's and the project's folders) and what they read from the
// environment, their harness's session among it.
func (c *Config) loadAgents() error {
	// The agents' variables (harness sessions, user folders, doctor's
	// variables: some forty names) have no flag and no default: they are
	// read with os.Getenv (an empty variable counts as unset), not as
	// keys of sources.
	getenv := os.Getenv
	c.WorkDir, _ = workspace.WorkDir()
	c.Agents, c.AgentErrors = all.Load(all.DefaultSources(getenv, c.Settings.UserHome, c.WorkDir))
	c.Harness = c.Agents.HarnessSessions(getenv)
	harnessSubs := c.Agents.HarnessSubAgents(getenv)
	c.AgentVars = c.Agents.EnvVars(getenv)
	var err error
	if c.AgentDirs, err = c.Agents.AgentDirs(getenv); err != nil {
		return err
	}
	c.Identity.Harness, c.Identity.HarnessVar = c.Agents.SessionFromHarness(c.Harness)
	// A sub-agent's shell, where its harness says so (Codex): the command
	// acts for the sub-agent's child session, as its hooks do.
	var rootVar string
	c.Identity.SubAgent, c.Identity.SubAgentSource, rootVar = c.Agents.SubAgentFromHarness(c.Harness, harnessSubs)
	if rootVar != "" {
		c.Identity.HarnessVar = rootVar // the session came from the root's variable
	}
	return nil
}

// hookLockSettings reads the process's own policy on the locks hooks take
// (AGENTLOCK_HOOK_LOCKS, AGENTLOCK_HOOK_IDLE, AGENTLOCK_HOOK_WAIT): a value
// that cannot be used is an error, and unset stands in for it (the
// project's, or the default).
func hookLockSettings(v sources) (workspace.HookLockSettings, error) {
	var h workspace.HookLockSettings
	var errs [3]error
	h.Lifetime, errs[0] = workspace.ParseLifetime(workspace.HookLocksVar, v.get("hook_locks"))
	h.Idle, h.IdleSet, errs[1] = workspace.ParseHookIdle(workspace.HookIdleVar, v.get("hook_idle"))
	h.Wait, h.WaitSet, errs[2] = workspace.ParseHookWait(workspace.HookWaitVar, v.get("hook_wait"))
	return h, errors.Join(errs[:]...)
}

// identityInputs are the inputs of --session (given or not, its value) and
// AGENTLOCK_SESSION. A --session equal to AGENTLOCK_SESSION (the
// wrapper's) is the agent's own, whatever else the context says (see
// session.Service.Context); an empty --session names none, AGENTLOCK_SESSION
// included.
func identityInputs(flagGiven bool, value, env string) session.Inputs {
	switch {
	case !flagGiven:
		return session.Inputs{Env: value}
	case value == "":
		return session.Inputs{}
	}
	return session.Inputs{Flag: value, Env: env}
}

// Service returns the session service of this invocation, made on the
// first call: one command opens each workspace once and resolves its
// session once.
func (c *Config) Service() *session.Service {
	if c.service == nil {
		c.service = c.NewService()
	}
	return c.service
}

// NewService returns a new session service on this configuration, for one
// command of a front end that runs many (an MCP server's tool call).
func (c *Config) NewService() *session.Service {
	settings := c.Settings
	if settings.Cache == nil {
		// The working directory found once: the real paths of the
		// command's relative paths start from it.
		settings.Cache = workspace.NewCacheIn(c.WorkDir)
	}
	return session.New(session.Config{Settings: settings, Identity: c.Identity, WorkDir: c.WorkDir})
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
		var warnings []error
		if c.service != nil {
			warnings = c.service.Problems()
		}
		return errors.Join(append(warnings, c.Settings.Backends.Close())...)
	}
	return strict, lenient, done
}

// SessionArgs are the session rules of package sessionarg for the session
// the invocation's service resolved.
func (c *Config) SessionArgs(ctx context.Context) sessionarg.Args {
	return sessionarg.Of(ctx, c.Service())
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
	// The explicit session (--session, AGENTLOCK_SESSION) wins, as it does
	// for every command.
	req.Session = c.Identity.Flag
	if req.Session == "" {
		req.Session = c.Identity.Env
	}
	return req
}
