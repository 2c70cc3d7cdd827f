package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRunFStatus(t *testing.T) {
	requireCommon(t, "status", newCmdStatus, func(o *StatusOptions) func() (*config, error) { return o.Config }, false)

	r := runfRun(t, "status", newCmdStatus)
	require.NoError(t, r.Err)
	require.False(t, r.Opts.All)
	require.False(t, r.Opts.Watch)
	r = runfRun(t, "status", newCmdStatus, "--all", "--watch")
	require.NoError(t, r.Err)
	require.True(t, r.Opts.All)
	require.True(t, r.Opts.Watch)
	requireUsage(t, runfRun(t, "status", newCmdStatus, "src/"), `unknown command "src/" for "agentlock status"`)
	requireUsage(t, runfRun(t, "status", newCmdStatus, "--watch=often"), `invalid argument "often" for "--watch" flag`)
}
