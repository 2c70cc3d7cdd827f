package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/report"
)

func TestRunFFinish(t *testing.T) {
	requireCommon(t, "finish", newCmdFinish, func(o *FinishOptions) func() (*config, error) { return o.Config }, false)

	r := runfRun(t, "finish", newCmdFinish)
	require.NoError(t, r.Err)
	require.Equal(t, "agentlock finish", r.Opts.Command)
	require.Empty(t, r.Opts.Session, "the session known here")
	r = runfRun(t, "finish", newCmdFinish, "claude-1")
	require.NoError(t, r.Err)
	require.Equal(t, "claude-1", r.Opts.Session)
	requireUsage(t, runfRun(t, "finish", newCmdFinish, "a", "b"), "accepts at most 1 arg(s), received 2")
	requireUsage(t, runfRun(t, "finish", newCmdFinish, "--all"), "unknown flag: --all")

	// The run refuses a line naming no usable session before it opens
	// anything.
	for _, tc := range []struct {
		typed string
		cfg   config
		want  string
	}{
		{"", *fakeConfig("", ""), "no session id known here"},
		{"s-2", *fakeConfig("s-1", "--session"), "two session ids: s-2 and --session s-1"},
		{"has space|bar", *fakeConfig("", ""), "session"},
	} {
		cfg := tc.cfg
		err := finishRun(t.Context(), &FinishOptions{IO: testFactory(t).IO, Command: "agentlock finish", Session: tc.typed, Config: func() (*config, error) { return &cfg, nil }})
		require.Error(t, err, tc.want)
		require.Equal(t, report.ExitUsage, report.ExitCode(err), "%v", err)
		require.Contains(t, err.Error(), tc.want)
	}
}
