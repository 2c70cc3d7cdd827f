package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRunFConflicts(t *testing.T) {
	requireCommon(t, "conflicts", newCmdConflicts, func(o *ConflictsOptions) func() (*config, error) { return o.Config }, false)

	r := runfRun(t, "conflicts", newCmdConflicts)
	require.NoError(t, r.Err)
	require.False(t, r.Opts.Predict)
	r = runfRun(t, "conflicts", newCmdConflicts, "--predict", "--json")
	require.NoError(t, r.Err)
	require.True(t, r.Opts.Predict)
	requireUsage(t, runfRun(t, "conflicts", newCmdConflicts, "main"), `unknown command "main" for "agentlock conflicts"`)
}
