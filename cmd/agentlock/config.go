package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/viper"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/all"
)

// config is the configuration of one invocation, resolved fresh from flags
// and environment every time a command runs (never cached in a package
// variable), so that tests and agents isolate by environment alone.
type config struct {
	LockDir  string // AGENT_REGISTRY_LOCK_DIR: explicit lock directory
	Registry string // AGENT_REGISTRY_PATH: explicit registry file
	Home     string // AGENT_REGISTRY_HOME: folder holding both
	Session  string // resolved session id (may be empty); see resolveSession
	// SessionSource names where Session came from: "--session",
	// "AGENTLOCK_SESSION" or a harness variable such as
	// "CLAUDE_CODE_SESSION_ID".
	SessionSource string
	// Harness holds, per agent name, the session id its harness exported
	// (raw, without the agent prefix).
	Harness  map[string]string
	Timeout  time.Duration // --timeout or AGENTLOCK_TIMEOUT
	UserHome string        // the user's home folder, for the default home
	JSON     bool          // --json
}

// envBindings maps configuration keys to their environment variables.
var envBindings = [][2]string{
	{"lock_dir", "AGENT_REGISTRY_LOCK_DIR"},
	{"registry_path", "AGENT_REGISTRY_PATH"},
	{"home", "AGENT_REGISTRY_HOME"},
	{"session", "AGENTLOCK_SESSION"},
	{"timeout", "AGENTLOCK_TIMEOUT"},
}

// loadConfig resolves the configuration for cmd with a new viper instance:
// flag > environment > default.
func loadConfig(cmd *cobra.Command) (config, error) {
	v := viper.New()
	for _, b := range envBindings {
		if err := v.BindEnv(b[0], b[1]); err != nil {
			return config{}, fmt.Errorf("configuration: %w", err)
		}
	}
	for _, name := range []string{"session", "timeout", "json"} {
		if fl := cmd.Flags().Lookup(name); fl != nil {
			if err := v.BindPFlag(name, fl); err != nil {
				return config{}, fmt.Errorf("configuration: %w", err)
			}
		}
	}
	c := config{
		LockDir:  v.GetString("lock_dir"),
		Registry: v.GetString("registry_path"),
		Home:     v.GetString("home"),
		JSON:     v.GetBool("json"),
		Harness:  map[string]string{},
	}
	for _, a := range all.Agents() {
		name := a.SessionEnvVar()
		if name == "" {
			continue
		}
		key := "harness_" + a.Name()
		if err := v.BindEnv(key, name); err != nil {
			return config{}, fmt.Errorf("configuration: %w", err)
		}
		if id := v.GetString(key); id != "" {
			c.Harness[a.Name()] = id
		}
	}
	c.Session, c.SessionSource = resolveSession(cmd, v.GetString("session"), c.Harness)
	timeout, err := parseTimeout(v.GetString("timeout"))
	if err != nil {
		return config{}, err
	}
	c.Timeout = timeout
	if home, err := os.UserHomeDir(); err == nil {
		c.UserHome = home
	}
	return c, nil
}

// resolveSession applies the one resolution order of the session id that
// every command uses: --session, AGENTLOCK_SESSION, then the session id
// that an agent harness exported (CLAUDE_CODE_SESSION_ID, CODEX_THREAD_ID,
// GEMINI_SESSION_ID, in that order) mapped to "<agent>-<id>". explicit is
// the flag-or-AGENTLOCK_SESSION value viper resolved.
func resolveSession(cmd *cobra.Command, explicit string, harness map[string]string) (string, string) {
	if explicit != "" {
		if fl := cmd.Flags().Lookup("session"); fl != nil && fl.Changed {
			return explicit, "--session"
		}
		return explicit, "AGENTLOCK_SESSION"
	}
	for _, a := range all.Agents() {
		if id := harness[a.Name()]; id != "" {
			return integrations.SessionID(a, id), a.SessionEnvVar()
		}
	}
	return "", ""
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

// homeFor returns the agentlock home for a real path: AGENT_REGISTRY_HOME,
// else the project's .agent-registry folder, else ~/.agent-registry.
func (c config) homeFor(realPath string) (string, error) {
	if c.Home != "" {
		return filepath.Abs(c.Home)
	}
	if project := core.FindProject(realPath); project != "" {
		return filepath.Join(project, core.HomeDirName), nil
	}
	if c.UserHome == "" {
		return "", fmt.Errorf("no project found above %s and no home folder: set AGENT_REGISTRY_HOME", realPath)
	}
	return filepath.Join(c.UserHome, core.HomeDirName), nil
}

// lockDirFor returns the lock directory for a real path.
func (c config) lockDirFor(realPath string) (string, error) {
	if c.LockDir != "" {
		return filepath.Abs(c.LockDir)
	}
	home, err := c.homeFor(realPath)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, "locks"), nil
}

// workDir is the real working directory, the start of the project search for
// commands that take no path.
func workDir() (string, error) {
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("working directory: %w", err)
	}
	return core.RealPath(wd, "")
}

// workLockDir is lockDirFor the working directory.
func (c config) workLockDir() (string, error) {
	wd, err := workDir()
	if err != nil {
		return "", err
	}
	return c.lockDirFor(wd)
}

// lockName names a lock for people: its real path, or its lock file when
// the record does not say (the 0.1.0 format).
func lockName(s core.State) string {
	if s.Path == "" {
		return s.File
	}
	return s.Path
}

// locker returns the lock manager configured by c.
func (c config) locker() *core.Locker {
	return &core.Locker{LockDir: c.lockDirFor, Timeout: c.Timeout}
}
