package cliconfig

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/session"
)

// flags returns the root's persistent flags, parsed from args.
func flags(t *testing.T, args ...string) *pflag.FlagSet {
	t.Helper()
	fs := pflag.NewFlagSet("agentlock", pflag.ContinueOnError)
	fs.Bool("json", false, "")
	fs.String("session", "", "")
	fs.String("timeout", "", "")
	require.NoError(t, fs.Parse(args))
	return fs
}

// clean runs the test in an empty folder, with none of the variables
// Load reads set.
func clean(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Chdir(dir)
	for _, b := range EnvBindings {
		t.Setenv(b[1], "")
	}
	for _, name := range []string{"CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID", "GEMINI_SESSION_ID", "COPILOT_AGENT_SESSION_ID",
		"KIMI_CODE_HOME", "KIMI_SHARE_DIR", "PI_CODING_AGENT_DIR", "OPENCODE_PURE", "XDG_CONFIG_HOME"} {
		t.Setenv(name, "")
	}
	t.Setenv("HOME", filepath.Join(dir, "home"))
	return dir
}

// who is the session c's service resolves.
func who(t *testing.T, c *Config) session.Identity { return c.Service().Identity(t.Context()) }

func TestLoadFlagsOverTheEnvironment(t *testing.T) {
	clean(t)
	t.Setenv("AGENTLOCK_SESSION", "env-1")
	t.Setenv("AGENTLOCK_TIMEOUT", "30")
	c, err := Load(flags(t, "--session", "flag-1", "--json"), time.Now)
	require.NoError(t, err)
	assert.Equal(t, "flag-1", who(t, c).ID)
	assert.Equal(t, session.SourceFlag, who(t, c).Source)
	assert.True(t, c.JSON)
	assert.Equal(t, 30*time.Second, c.Settings.Timeout)
	assert.Empty(t, c.Problems)

	c, err = Load(flags(t), time.Now)
	require.NoError(t, err)
	assert.Equal(t, "env-1", who(t, c).ID)
	assert.Equal(t, session.SourceEnv, who(t, c).Source)
}

func TestLoadKeepsInvalidSettingsAsProblems(t *testing.T) {
	clean(t)
	t.Setenv("AGENTLOCK_TIMEOUT", "-5")
	t.Setenv("AGENTLOCK_LOCK_WAIT", "soon")
	c, err := Load(flags(t), time.Now)
	require.NoError(t, err, "a bad value is a problem of the configuration, not a failure")
	require.Len(t, c.Problems, 2)
	assert.Contains(t, c.Problems[0].Error(), `AGENTLOCK_TIMEOUT="-5"`)
	assert.Contains(t, c.Problems[1].Error(), `AGENTLOCK_LOCK_WAIT="soon"`)
	assert.Equal(t, core.DefaultTimeout, c.Settings.Timeout, "the default stands in")

	c, err = Load(flags(t, "--timeout", "nope"), time.Now)
	require.NoError(t, err)
	require.NotEmpty(t, c.Problems)
	assert.Contains(t, c.Problems[0].Error(), `--timeout="nope"`, "the flag is named, not the variable")
}

func TestLoadHarnessSessionAndContext(t *testing.T) {
	clean(t)
	t.Setenv("CLAUDE_CODE_SESSION_ID", "abc")
	c, err := Load(flags(t), time.Now)
	require.NoError(t, err)
	assert.Equal(t, "claude-abc", who(t, c).ID)
	assert.Equal(t, "CLAUDE_CODE_SESSION_ID", who(t, c).Source)
	assert.False(t, c.Service().Context(t.Context()).Known())

	// --session another id: the context still names the harness's.
	c, err = Load(flags(t, "--session", "other"), time.Now)
	require.NoError(t, err)
	assert.Equal(t, "other", who(t, c).ID)
	assert.Equal(t, "claude-abc", c.Service().Context(t.Context()).ID)
}

// The one order of the session id: --session, AGENTLOCK_SESSION, the
// harness's variable as <agent>-<id>; nothing known is no session.
func TestLoadResolvesTheSessionInOrder(t *testing.T) {
	clean(t)
	t.Setenv("CLAUDE_CODE_SESSION_ID", "abc")
	for _, tc := range []struct {
		args []string
		env  string
		want session.Identity
	}{
		{[]string{"--session", "x"}, "", session.Identity{ID: "x", Source: session.SourceFlag}},
		{nil, "x", session.Identity{ID: "x", Source: session.SourceEnv}},
		{nil, "", session.Identity{ID: "claude-abc", Source: "CLAUDE_CODE_SESSION_ID"}},
	} {
		t.Setenv("AGENTLOCK_SESSION", tc.env)
		c, err := Load(flags(t, tc.args...), time.Now)
		require.NoError(t, err)
		assert.Equal(t, tc.want, who(t, c))
	}
	t.Setenv("CLAUDE_CODE_SESSION_ID", "")
	c, err := Load(flags(t), time.Now)
	require.NoError(t, err)
	assert.Empty(t, who(t, c).ID)
}

func TestLoadMakesLocationsAndAgentDirsAbsolute(t *testing.T) {
	dir := clean(t)
	real, err := filepath.EvalSymlinks(dir)
	require.NoError(t, err)
	t.Setenv("AGENT_REGISTRY_LOCK_DIR", "state/locks")
	t.Setenv("KIMI_CODE_HOME", "kimi")
	t.Setenv("OPENCODE_PURE", "1")
	c, err := Load(flags(t), time.Now)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(real, "state", "locks"), c.Settings.LockDir)
	assert.Equal(t, filepath.Join(dir, "kimi"), c.AgentDirs["KIMI_CODE_HOME"])
	assert.Equal(t, "1", c.AgentVars["OPENCODE_PURE"], "the variables the agents read for doctor")
	assert.Equal(t, filepath.Join(dir, "home"), c.Settings.UserHome)
	assert.NotNil(t, c.Settings.Backends)
}

// Lazy loads once, on the first call of either function; strict refuses
// an invalid setting as a usage error, lenient keeps it as a problem.
func TestLazyLoadsOnceAndStrictRefusesProblems(t *testing.T) {
	clean(t)
	t.Setenv("AGENTLOCK_TIMEOUT", "-5")
	fs := flags(t, "--session", "s-1")
	strict, lenient, done := Lazy(fs, time.Now)
	require.NoError(t, done(), "nothing opened yet")
	c, err := lenient()
	require.NoError(t, err)
	require.Len(t, c.Problems, 1)
	again, err := lenient()
	require.NoError(t, err)
	assert.Same(t, c, again, "resolved once per process")
	_, err = strict()
	var usage *report.UsageError
	require.ErrorAs(t, err, &usage)
	assert.ErrorIs(t, err, c.Problems[0])
	assert.Equal(t, report.ExitUsage, report.ExitCode(err))
	require.NoError(t, done())

	t.Setenv("AGENTLOCK_TIMEOUT", "")
	strict, _, _ = Lazy(flags(t, "--session", "s-1"), time.Now)
	c, err = strict()
	require.NoError(t, err)
	assert.Equal(t, "s-1", who(t, c).ID)
	args := c.SessionArgs(t.Context())
	assert.Equal(t, "s-1", args.Session)
	assert.Equal(t, session.SourceFlag, args.Source)
	assert.Equal(t, who(t, c), args.Resolved)
}

// A hook resolves its own session unless one is named explicitly; another
// harness's variable is its fallback.
func TestHookRequest(t *testing.T) {
	clean(t)
	t.Setenv("CLAUDE_CODE_SESSION_ID", "abc")
	c, err := Load(flags(t), time.Now)
	require.NoError(t, err)
	claude, ok := c.Agents.Lookup("claude")
	require.True(t, ok)
	codex, ok := c.Agents.Lookup("codex")
	require.True(t, ok)
	payload := strings.NewReader("{}")

	req := c.HookRequest(claude, "pre-edit", payload)
	assert.Equal(t, "claude", req.Agent.Name())
	assert.Equal(t, "pre-edit", req.Event)
	assert.Same(t, payload, req.Payload)
	assert.Equal(t, "abc", req.HarnessSession)
	assert.Empty(t, req.Session, "the harness's id is no explicit session: the hook resolves it")
	assert.Equal(t, "claude-abc", req.Fallback)
	assert.Empty(t, c.HookRequest(codex, "renew", nil).HarnessSession)

	c, err = Load(flags(t, "--session", "s-1"), time.Now)
	require.NoError(t, err)
	assert.Equal(t, "s-1", c.HookRequest(claude, "renew", nil).Session)
	t.Setenv("AGENTLOCK_SESSION", "s-2")
	c, err = Load(flags(t), time.Now)
	require.NoError(t, err)
	assert.Equal(t, "s-2", c.HookRequest(claude, "renew", nil).Session)
}

// LoadSettings is Load's configuration less the agents: the same
// settings, --json, session inputs and problems, and no agent, harness
// session or working directory.
func TestLoadSettingsIsLoadWithoutTheAgents(t *testing.T) {
	clean(t)
	t.Setenv("AGENTLOCK_SESSION", "env-1")
	t.Setenv("AGENTLOCK_LOCK_WAIT", "soon")
	t.Setenv("CLAUDE_CODE_SESSION_ID", "abc")
	fs := flags(t, "--timeout", "45", "--json")
	full, err := Load(fs, time.Now)
	require.NoError(t, err)
	settings, err := LoadSettings(fs, time.Now)
	require.NoError(t, err)

	assert.NotEmpty(t, full.Agents)
	assert.Equal(t, "claude-abc", full.Identity.Harness)
	assert.NotEmpty(t, full.WorkDir)
	assert.Empty(t, settings.Agents)
	assert.Empty(t, settings.Harness)
	assert.Empty(t, settings.Identity.Harness)
	assert.Empty(t, settings.WorkDir)

	assert.Equal(t, full.JSON, settings.JSON)
	assert.Equal(t, full.SearchPath, settings.SearchPath)
	assert.Equal(t, full.Problems, settings.Problems)
	assert.Equal(t, full.Identity.Env, settings.Identity.Env)
	assert.Equal(t, full.Identity.Flag, settings.Identity.Flag)
	full.Settings.Now, settings.Settings.Now = nil, nil
	full.Settings.Backends, settings.Settings.Backends = nil, nil
	assert.Equal(t, full.Settings, settings.Settings)
}

// A setting comes from its flag when the command line gives it (even
// empty), else from its variable when set and not empty, else from the
// flag's default; a key without a flag from its variable alone.
func TestSourcesFlagOverEnvironmentOverDefault(t *testing.T) {
	env := map[string]string{"AGENTLOCK_SESSION": "env-1", "AGENTLOCK_TIMEOUT": "", "AGENTLOCK_LOCK_WAIT": "2s"}
	getenv := func(name string) string { return env[name] }
	for _, tc := range []struct {
		args             []string
		session, timeout string
		json             bool
	}{
		{nil, "env-1", "", false},
		{[]string{"--session", "flag-1", "--json"}, "flag-1", "", true},
		{[]string{"--session", "", "--timeout", "30"}, "", "30", false},
		{[]string{"--json=false"}, "env-1", "", false},
	} {
		s, err := newSources(flags(t, tc.args...), getenv)
		require.NoError(t, err)
		assert.Equal(t, tc.session, s.get("session"), "%q", tc.args)
		assert.Equal(t, "env-1", s.get("session_env"), "%q: the variable alone", tc.args)
		assert.Equal(t, tc.timeout, s.get("timeout"), "%q: an empty variable is unset", tc.args)
		assert.Equal(t, tc.json, s.getBool("json"), "%q", tc.args)
		assert.Equal(t, "2s", s.get("lock_wait"), "%q", tc.args)
		assert.Empty(t, s.get("home"), "%q: unset, no default", tc.args)
	}

	fs := pflag.NewFlagSet("agentlock", pflag.ContinueOnError)
	fs.String("session", "", "")
	_, err := newSources(fs, getenv)
	require.ErrorContains(t, err, "no --timeout flag")
}
