package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/report"
)

func TestRunFCheck(t *testing.T) {
	requireCommon(t, "check", newCmdCheck, func(o *CheckOptions) func() (*config, error) { return o.Config }, false, "a.go")

	r := runfRun(t, "check", newCmdCheck, "a.go", "b/")
	require.NoError(t, r.Err)
	require.Equal(t, "agentlock check", r.Opts.Command)
	require.Equal(t, []string{"a.go", "b/"}, r.Opts.Paths)
	r = runfRun(t, "check", newCmdCheck, "a.go", "s-1", "--json")
	require.NoError(t, r.Err)
	require.Equal(t, []string{"a.go", "s-1"}, r.Opts.Paths, "the original's check <path> <session>")
	requireUsage(t, runfRun(t, "check", newCmdCheck, "--wait", "5", "a.go"), "unknown flag: --wait")

	// With no path, the run refuses before it opens anything.
	err := checkRun(t.Context(), &CheckOptions{IO: testFactory(t).IO, Command: "agentlock check",
		Config: func() (*config, error) { return fakeConfig("s-1", ""), nil }})
	require.Equal(t, report.ExitUsage, report.ExitCode(err), "%v", err)
	require.Contains(t, err.Error(), "at least one path is required")
}
