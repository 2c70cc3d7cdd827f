package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRunFGuard(t *testing.T) {
	requireCommon(t, "guard", newCmdGuard, func(o *GuardOptions) func() (*config, error) { return o.Config }, false, "--staged")

	r := runfRun(t, "guard", newCmdGuard, "--staged")
	require.NoError(t, r.Err)
	require.True(t, r.Opts.Staged)
	// --staged is the only mode: without it nothing runs.
	requireUsage(t, runfRun(t, "guard", newCmdGuard), "guard needs --staged (the only mode)")
	requireUsage(t, runfRun(t, "guard", newCmdGuard, "--staged=false"), "guard needs --staged")
	requireUsage(t, runfRun(t, "guard", newCmdGuard, "--staged", "a.go"), `unknown command "a.go" for "agentlock guard"`)
}
