package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/workspace"
)

func TestRunFInit(t *testing.T) {
	requireCommon(t, "init", newCmdInit, func(o *InitOptions) func() (*config, error) { return o.Config }, false)

	r := runfRun(t, "init", newCmdInit)
	require.NoError(t, r.Err)
	got := *r.Opts
	require.Equal(t, []string{"init"}, got.Args, "the whole command line, for the etcd build")
	got.IO, got.Config, got.Args = nil, nil, nil
	require.Equal(t, InitOptions{}, got, "nothing set by default: the project alone, no agent")

	// Each flag.
	r = runfRun(t, "init", newCmdInit, "--agent", "claude", "--agent", "codex,gemini", "--global", "--dry-run", "--home", "/tmp/h",
		"--scope", "repository", "--deny-conflicts", "--git-hook", "--no-mcp")
	require.NoError(t, r.Err)
	o := r.Opts
	require.Equal(t, []string{"claude", "codex", "gemini"}, o.Agents)
	require.True(t, o.Global)
	require.True(t, o.DryRun)
	require.False(t, o.Check)
	require.Equal(t, "/tmp/h", o.Home)
	require.Equal(t, workspace.ScopeRepository, o.Scope)
	require.True(t, o.DenyConflicts)
	require.True(t, o.DenyConflictsGiven)
	require.True(t, o.GitHook)
	require.True(t, o.NoMCP)
	require.False(t, o.StoreGiven)
	require.Equal(t, []string{"init", "--agent", "claude", "--agent", "codex,gemini", "--global", "--dry-run", "--home", "/tmp/h",
		"--scope", "repository", "--deny-conflicts", "--git-hook", "--no-mcp"}, o.Args)

	r = runfRun(t, "init", newCmdInit, "--stale-writes", "WARN")
	require.NoError(t, r.Err)
	require.Equal(t, "warn", r.Opts.StaleWrites)
	requireUsage(t, runfRun(t, "init", newCmdInit, "--stale-writes", "later"), `--stale-writes "later": want deny, warn or off`)

	r = runfRun(t, "init", newCmdInit, "--check", "--scope", "checkout", "--deny-conflicts=false", "--agent", "./tools/mycli.toml")
	require.NoError(t, r.Err)
	require.True(t, r.Opts.Check)
	require.Equal(t, workspace.ScopeCheckout, r.Opts.Scope)
	require.False(t, r.Opts.DenyConflicts)
	require.True(t, r.Opts.DenyConflictsGiven, "--deny-conflicts=false goes back to warnings")
	require.Equal(t, []string{"./tools/mycli.toml"}, r.Opts.Agents)

	requireUsage(t, runfRun(t, "init", newCmdInit, "--dry-run", "--check"), "--dry-run and --check cannot be used together")
	requireUsage(t, runfRun(t, "init", newCmdInit, "--scope", "worktree"), `--scope "worktree": want repository or checkout`)
	requireUsage(t, runfRun(t, "init", newCmdInit, "claude"), `unknown command "claude" for "agentlock init"`)
	requireUsage(t, runfRun(t, "init", newCmdInit, "--git-hook=yes"), `invalid argument "yes" for "--git-hook" flag`)
}

// init's --store and the options that go with it.
func TestRunFInitStore(t *testing.T) {
	runfEnv(t)
	r := runfRun(t, "init", newCmdInit, "--store", "etcd://h1:2379,h2:2379/team", "--cacert", "ca.pem", "--cert", "c.pem", "--key", "k.pem",
		"--user", "u", "--password", "p", "--repo-id", "github.com/acme/api", "--dial-timeout", "5s")
	require.NoError(t, r.Err)
	require.True(t, r.Opts.StoreGiven)
	require.Equal(t, workspace.StoreSpec{URL: "etcd://h1:2379,h2:2379/team", CACert: "ca.pem", Cert: "c.pem", Key: "k.pem",
		User: "u", Password: "p", RepoID: "github.com/acme/api", DialTimeout: 5 * time.Second}, r.Opts.Store)

	// "files" goes back to lock files: no store.
	r = runfRun(t, "init", newCmdInit, "--store", "files")
	require.NoError(t, r.Err)
	require.True(t, r.Opts.StoreGiven)
	require.Equal(t, workspace.StoreSpec{}, r.Opts.Store)

	for _, name := range []string{"cacert", "cert", "key", "user", "password", "repo-id"} {
		requireUsage(t, runfRun(t, "init", newCmdInit, "--"+name, "x"), "--"+name+" goes with --store")
		// Lock files take none of the etcd options: refused, not dropped.
		requireUsage(t, runfRun(t, "init", newCmdInit, "--store", "files", "--"+name, "x"), "--"+name+" goes with --store etcd://")
	}
	requireUsage(t, runfRun(t, "init", newCmdInit, "--dial-timeout", "3s"), "--dial-timeout goes with --store")
	for _, bad := range []string{"redis://h:6379", "etcd://", "h1:2379", ""} {
		requireUsage(t, runfRun(t, "init", newCmdInit, "--store", bad), `--store "`+bad+`": want etcd://host:2379[,host2:2379]/prefix, or files`)
	}
	requireUsage(t, runfRun(t, "init", newCmdInit, "--store", "etcd://h:2379/p", "--dial-timeout", "soon"), `invalid argument "soon" for "--dial-timeout" flag`)
	// A bound that is no bound is refused rather than silently replaced
	// by the default.
	for _, bad := range []string{"-5s", "0s"} {
		requireUsage(t, runfRun(t, "init", newCmdInit, "--store", "etcd://h:2379/p", "--dial-timeout", bad), "--dial-timeout "+bad+": must be more than 0")
	}
}

func TestRunFUninit(t *testing.T) {
	requireCommon(t, "uninit", newCmdUninit, func(o *InitOptions) func() (*config, error) { return o.Config }, false)

	r := runfRun(t, "uninit", newCmdUninit)
	require.NoError(t, r.Err)
	got := *r.Opts
	got.IO, got.Config, got.Args = nil, nil, nil
	require.Equal(t, InitOptions{}, got, "everything, the project set-up included")

	r = runfRun(t, "uninit", newCmdUninit, "--agent", "codex,kimi", "--global", "--dry-run", "--git-hook")
	require.NoError(t, r.Err)
	require.Equal(t, []string{"codex", "kimi"}, r.Opts.Agents)
	require.True(t, r.Opts.Global)
	require.True(t, r.Opts.DryRun)
	require.True(t, r.Opts.GitHook)
	// init's other flags are not uninit's.
	for _, flag := range []string{"--check", "--home=x", "--store=files", "--scope=checkout", "--no-mcp", "--deny-conflicts"} {
		requireUsage(t, runfRun(t, "uninit", newCmdUninit, flag), "unknown flag")
	}
	requireUsage(t, runfRun(t, "uninit", newCmdUninit, "codex"), `unknown command "codex" for "agentlock uninit"`)
}
