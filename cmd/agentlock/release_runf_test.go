package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/report"
)

func TestRunFRelease(t *testing.T) {
	requireCommon(t, "release", newCmdRelease, func(o *ReleaseOptions) func() (*config, error) { return o.Config }, false, "a.go")

	r := runfRun(t, "release", newCmdRelease, "a.go")
	require.NoError(t, r.Err)
	require.Equal(t, "agentlock release", r.Opts.Command)
	require.Equal(t, []string{"a.go"}, r.Opts.Args)
	require.False(t, r.Opts.All)
	require.False(t, r.Opts.Force)

	r = runfRun(t, "release", newCmdRelease, "--all")
	require.NoError(t, r.Err)
	require.True(t, r.Opts.All)
	require.Empty(t, r.Opts.Args)
	r = runfRun(t, "release", newCmdRelease, "--all", "s-1")
	require.NoError(t, r.Err)
	require.Equal(t, []string{"s-1"}, r.Opts.Args, "the original's release --all <session>")
	r = runfRun(t, "release", newCmdRelease, "--all", "--force", "x")
	require.NoError(t, r.Err, "refused by the run (TestRunFReleaseAllForceIsRefusedBeforeAnything)")
	require.True(t, r.Opts.All)
	require.True(t, r.Opts.Force)
	require.Equal(t, []string{"x"}, r.Opts.Args)
	r = runfRun(t, "release", newCmdRelease, "--force", "a.go", "b.go")
	require.NoError(t, r.Err)
	require.True(t, r.Opts.Force)
	require.Equal(t, []string{"a.go", "b.go"}, r.Opts.Args)
	requireUsage(t, runfRun(t, "release", newCmdRelease, "--all=maybe"), `invalid argument "maybe" for "--all" flag`)
	requireUsage(t, runfRun(t, "release", newCmdRelease, "--force=2", "a.go"), `invalid argument "2" for "--force" flag`)
}

// The checks of release's flags that its run makes before it opens
// anything: the exclusive --all and --force, and --all's arguments.
func TestRunFReleaseRunRefusesBadLines(t *testing.T) {
	cfg := func() (*config, error) { return fakeConfig("s-1", "--session"), nil }
	for _, tc := range []struct {
		all, force bool
		args       []string
		want       string
	}{
		{all: true, force: true, want: "--all and --force do not go together"},
		{all: true, args: []string{"a.go", "b.go"}, want: "--all takes no paths"},
		{args: nil, want: "at least one path is required"},
		{args: []string{""}, want: "a path is empty"},
	} {
		opts := &ReleaseOptions{IO: testFactory(t).IO, Config: cfg, Command: "agentlock release", Args: tc.args, All: tc.all, Force: tc.force}
		err := releaseRun(t.Context(), opts)
		require.Error(t, err, "%+v", tc)
		require.Equal(t, report.ExitUsage, report.ExitCode(err), "%+v: %v", tc, err)
		require.Contains(t, err.Error(), tc.want)
	}
	// --all with no session known.
	opts := &ReleaseOptions{IO: testFactory(t).IO, Config: func() (*config, error) { return fakeConfig("", ""), nil }, Command: "agentlock release", All: true}
	err := releaseRun(t.Context(), opts)
	require.Equal(t, report.ExitUsage, report.ExitCode(err), "%v", err)
	require.Contains(t, err.Error(), "no session id known here")
}
