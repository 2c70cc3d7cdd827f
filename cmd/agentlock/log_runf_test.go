package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRunFLog(t *testing.T) {
	requireCommon(t, "log", newCmdLog, func(o *LogOptions) func() (*config, error) { return o.Config }, false)

	r := runfRun(t, "log", newCmdLog)
	require.NoError(t, r.Err)
	require.Empty(t, r.Opts.Session)
	require.Zero(t, r.Opts.Limit, "all entries")
	r = runfRun(t, "log", newCmdLog, "--for", "claude-1", "--last", "20")
	require.NoError(t, r.Err)
	require.Equal(t, "claude-1", r.Opts.Session)
	require.Equal(t, 20, r.Opts.Limit)
	r = runfRun(t, "log", newCmdLog, "--last", "0")
	require.NoError(t, r.Err)
	require.Zero(t, r.Opts.Limit)
	requireUsage(t, runfRun(t, "log", newCmdLog, "--last", "-1"), "--last must be 0 (all) or more, not -1")
	requireUsage(t, runfRun(t, "log", newCmdLog, "--last", "many"), `invalid argument "many" for "--last" flag`)
	requireUsage(t, runfRun(t, "log", newCmdLog, "claude-1"), `unknown command "claude-1" for "agentlock log"`)
}
