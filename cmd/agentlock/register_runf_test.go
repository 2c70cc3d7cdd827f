package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/report"
)

func TestRunFRegister(t *testing.T) {
	requireCommon(t, "register", newCmdRegister, func(o *RegisterOptions) func() (*config, error) { return o.Config }, false)

	r := runfRun(t, "register", newCmdRegister)
	require.NoError(t, r.Err)
	got := *r.Opts
	require.NotNil(t, got.Config)
	require.Same(t, r.Out, got.IO.Out.(*bytes.Buffer), "the Factory's streams")
	got.IO, got.Config = nil, nil
	require.Equal(t, RegisterOptions{Command: "agentlock register"}, got, "nothing set by default")

	// The six positional fields of agent-registry 0.2, in order.
	r = runfRun(t, "register", newCmdRegister, "claude-1", "anthropic", "claude-opus-4", "refactor auth", "src/auth,tests/auth", "split login()")
	require.NoError(t, r.Err)
	o := r.Opts
	require.Equal(t, []string{"claude-1", "anthropic", "claude-opus-4", "refactor auth", "src/auth,tests/auth", "split login()"},
		[]string{o.Session, o.Provider, o.AIVersion, o.WorkingOn, o.Space, o.TodoPresent})
	require.False(t, o.Claim)

	// The same fields as flags.
	r = runfRun(t, "register", newCmdRegister, "codex-2", "--provider", "openai", "--ai-version", "gpt-5-codex", "--working-on", "fix CI",
		"--space", "ci/", "--todo-present", "a,b", "--claim", "--agent-pid", "4242")
	require.NoError(t, r.Err)
	o = r.Opts
	require.Equal(t, []string{"codex-2", "openai", "gpt-5-codex", "fix CI", "ci/", "a,b"},
		[]string{o.Session, o.Provider, o.AIVersion, o.WorkingOn, o.Space, o.TodoPresent})
	require.True(t, o.Claim)
	require.Equal(t, 4242, o.AgentPID)

	// A field given both ways is refused, as update refuses working_on
	// twice, rather than one of the two silently dropped.
	requireUsage(t, runfRun(t, "register", newCmdRegister, "s-1", "anthropic", "--provider", "openai"), "provider given twice (argument and --provider)")
	requireUsage(t, runfRun(t, "register", newCmdRegister, "s-1", "p", "v", "task", "--working-on", "other"), "working_on given twice (argument and --working-on)")
	requireUsage(t, runfRun(t, "register", newCmdRegister, "s-1", "p", "v", "task", "src/", "--space", "lib/"), "space given twice (argument and --space)")
	requireUsage(t, runfRun(t, "register", newCmdRegister, "s-1", "p", "v", "task", "src/", "x", "--todo-present", "y"), "todo_present given twice")
	requireUsage(t, runfRun(t, "register", newCmdRegister, "s-1", "p", "v", "--ai-version", "w"), "ai_version given twice")

	requireUsage(t, runfRun(t, "register", newCmdRegister, "1", "2", "3", "4", "5", "6", "7"), "accepts at most 6 arg(s), received 7")
	requireUsage(t, runfRun(t, "register", newCmdRegister, "--agent-pid", "me"), `invalid argument "me" for "--agent-pid" flag`)
	requireUsage(t, runfRun(t, "register", newCmdRegister, "--claim=perhaps"), `invalid argument "perhaps" for "--claim" flag`)
}

// The checks that register's run makes before it opens anything.
func TestRunFRegisterRunRefusesBadLines(t *testing.T) {
	for _, tc := range []struct {
		opts RegisterOptions
		cfg  config
		want string
	}{
		{RegisterOptions{WorkingOn: "x"}, *fakeConfig("", ""), "no session id known here"},
		{RegisterOptions{Session: "s-1"}, *fakeConfig("", ""), "register needs what the session works on (--working-on)"},
		{RegisterOptions{Session: "bad|id", WorkingOn: "x"}, *fakeConfig("", ""), "session"},
		{RegisterOptions{Session: "s-2", WorkingOn: "x"}, *fakeConfig("s-1", "--session"), "two session ids: s-2 and --session s-1"},
	} {
		opts, cfg := tc.opts, tc.cfg
		opts.IO, opts.Command = testFactory(t).IO, "agentlock register"
		opts.Config = func() (*config, error) { return &cfg, nil }
		err := registerRun(t.Context(), &opts)
		require.Error(t, err, tc.want)
		require.Equal(t, report.ExitUsage, report.ExitCode(err), "%v", err)
		require.Contains(t, err.Error(), tc.want)
	}
}
