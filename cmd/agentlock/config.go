package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"github.com/spf13/viper"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/integrations/all"
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
	Session  string // resolved session id (may be empty); see resolveSession
	// SessionSource names where Session came from: "--session",
	// "AGENTLOCK_SESSION" or a harness variable such as
	// "CLAUDE_CODE_SESSION_ID".
	SessionSource string
	// Harness holds, per agent name, the session id its harness exported
	// (raw, without the agent prefix).
	Harness map[string]string
	JSON    bool // --json
}

// envBindings maps configuration keys to their environment variables.
var envBindings = [][2]string{
	{"lock_dir", "AGENT_REGISTRY_LOCK_DIR"},
	{"registry_path", "AGENT_REGISTRY_PATH"},
	{"home", "AGENT_REGISTRY_HOME"},
	{"session", "AGENTLOCK_SESSION"},
	{"timeout", "AGENTLOCK_TIMEOUT"},
	{"lock_wait", "AGENTLOCK_LOCK_WAIT"},
}

// lazyConfig returns the Factory's Config function: the configuration is
// resolved from flags (parsed by then) on the first call, and kept for the
// rest of this process.
func lazyConfig(flags *pflag.FlagSet, now func() time.Time) func() (*config, error) {
	var c *config
	var err error
	return func() (*config, error) {
		if c == nil && err == nil {
			c, err = loadConfig(flags, now)
		}
		return c, err
	}
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
		},
		JSON: v.GetBool("json"),
	}
	c.Harness = all.HarnessSessions(func(name string) string {
		key := "harness_" + strings.ToLower(name)
		if err := v.BindEnv(key, name); err != nil {
			return ""
		}
		return v.GetString(key)
	})
	c.Session, c.SessionSource = resolveSession(flags.Changed("session"), v.GetString("session"), c.Harness)
	timeout, err := parseTimeout(v.GetString("timeout"))
	if err != nil {
		return nil, err
	}
	c.Settings.Timeout = timeout
	if c.Settings.LockWait, err = parseLockWait(v.GetString("lock_wait")); err != nil {
		return nil, err
	}
	if home, err := os.UserHomeDir(); err == nil {
		c.Settings.UserHome = home
	}
	return c, nil
}

// resolveSession applies the one resolution order of the session id that
// every command uses: --session, AGENTLOCK_SESSION, then the session id
// that an agent harness exported (CLAUDE_CODE_SESSION_ID, CODEX_THREAD_ID,
// GEMINI_SESSION_ID, in that order) mapped to "<agent>-<id>". explicit is
// the flag-or-AGENTLOCK_SESSION value viper resolved.
func resolveSession(flagGiven bool, explicit string, harness map[string]string) (string, string) {
	switch {
	case explicit != "" && flagGiven:
		return explicit, "--session"
	case explicit != "":
		return explicit, "AGENTLOCK_SESSION"
	}
	return all.SessionFromHarness(harness)
}

// parseTimeout accepts seconds ("120", "0.5") or a Go duration ("2m").
func parseTimeout(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return core.DefaultTimeout, nil
	}
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		if secs <= 0 {
			return 0, usagef("timeout %q: must be positive", s)
		}
		return time.Duration(secs * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 {
		return 0, usagef("timeout %q: want seconds (120) or a positive duration (2m)", s)
	}
	return d, nil
}

// maxLockWait bounds AGENTLOCK_LOCK_WAIT: a longer wait for a critical
// section of microseconds is a hang by another name.
const maxLockWait = time.Hour

// parseLockWait reads AGENTLOCK_LOCK_WAIT, how long to wait at most for
// another process's flock: seconds ("5", "0.5") or a Go duration ("2s").
// Empty means the store's default (zero).
func parseLockWait(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(s)
	if secs, ferr := strconv.ParseFloat(s, 64); ferr == nil {
		// Compared before converting: NaN, infinities and huge values
		// have no Duration.
		if !(secs > 0 && secs <= maxLockWait.Seconds()) {
			return 0, usagef("AGENTLOCK_LOCK_WAIT %q: want seconds between 0 and %d", s, int(maxLockWait.Seconds()))
		}
		d, err = time.Duration(secs*float64(time.Second)), nil
	}
	if err != nil || d <= 0 || d > maxLockWait {
		return 0, usagef("AGENTLOCK_LOCK_WAIT %q: want seconds (5) or a positive duration (5s) of at most %s", s, maxLockWait)
	}
	return d, nil
}

// workspaceOf returns the workspace of a real path.
func (c *config) workspaceOf(realPath string) (*workspace.Workspace, error) {
	return workspace.Open(realPath, c.Settings)
}

// workWorkspace returns the workspace of the working directory, for the
// commands that take no path.
func (c *config) workWorkspace() (*workspace.Workspace, error) {
	wd, err := workspace.WorkDir()
	if err != nil {
		return nil, err
	}
	return c.workspaceOf(wd)
}

// workConfig resolves the configuration and the workspace of the working
// directory, for the commands that need nothing else first.
func workConfig(get func() (*config, error)) (*config, *workspace.Workspace, error) {
	c, err := get()
	if err != nil {
		return nil, nil, err
	}
	ws, err := c.workWorkspace()
	return c, ws, err
}
