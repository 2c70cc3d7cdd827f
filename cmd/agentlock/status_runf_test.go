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
	// --watch draws a table: no JSON, refused before anything is opened.
	requireUsage(t, runfRun(t, "status", newCmdStatus, "--watch", "--json"), "--watch draws a table for people: it does not go with --json")
	requireUsage(t, runfRun(t, "status", newCmdStatus, "--json", "--all", "--watch=true"), "does not go with --json")
	r = runfRun(t, "status", newCmdStatus, "--watch", "--json=false")
	require.NoError(t, r.Err)
	require.True(t, r.Opts.Watch)
	requireUsage(t, runfRun(t, "status", newCmdStatus, "src/"), `unknown command "src/" for "agentlock status"`)
	requireUsage(t, runfRun(t, "status", newCmdStatus, "--watch=often"), `invalid argument "often" for "--watch" flag`)
}
