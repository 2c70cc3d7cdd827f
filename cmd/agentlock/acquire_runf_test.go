package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/report"
)

func TestRunFAcquire(t *testing.T) {
	requireCommon(t, "acquire", newCmdAcquire, func(o *AcquireOptions) func() (*config, error) { return o.Config }, false, "a.go")

	// Defaults: no wait; the paths, and a session, as typed.
	r := runfRun(t, "acquire", newCmdAcquire, "src/a.go")
	require.NoError(t, r.Err)
	require.Equal(t, "agentlock acquire", r.Opts.Command)
	require.Equal(t, []string{"src/a.go"}, r.Opts.Args)
	require.Zero(t, r.Opts.Wait)
	r = runfRun(t, "acquire", newCmdAcquire, "src/a.go", "s-1")
	require.NoError(t, r.Err)
	require.Equal(t, []string{"src/a.go", "s-1"}, r.Opts.Args, "the positional session is told apart at run time")
	r = runfRun(t, "acquire", newCmdAcquire, "a.go", "b.go", "c/", "--", "--not-a-flag")
	require.NoError(t, r.Err)
	require.Equal(t, []string{"a.go", "b.go", "c/", "--not-a-flag"}, r.Opts.Args, "-- ends the flags")

	// --wait: seconds or a duration.
	for arg, want := range map[string]time.Duration{
		"90": 90 * time.Second, "1.5": 1500 * time.Millisecond, "90s": 90 * time.Second, "2m": 2 * time.Minute, "0": 0,
	} {
		r := runfRun(t, "acquire", newCmdAcquire, "--wait", arg, "a.go")
		require.NoError(t, r.Err, arg)
		require.Equal(t, want, r.Opts.Wait, arg)
		r = runfRun(t, "acquire", newCmdAcquire, "a.go", "--wait="+arg)
		require.NoError(t, r.Err, arg)
		require.Equal(t, want, r.Opts.Wait, arg)
	}
	// Values no wait can have are refused by the parser, naming the
	// value, before anything runs.
	for _, bad := range []string{"soon", "", "90x"} {
		requireUsage(t, runfRun(t, "acquire", newCmdAcquire, "--wait", bad, "a.go"), `invalid argument "`+bad+`" for "--wait" flag`, "neither seconds (90) nor a duration")
	}
	for _, bad := range []string{"NaN", "inf", "-inf", "1e30", "-5", "-1s"} {
		requireUsage(t, runfRun(t, "acquire", newCmdAcquire, "--wait", bad, "a.go"), `invalid argument "`+bad+`" for "--wait" flag`)
	}
	requireUsage(t, runfRun(t, "acquire", newCmdAcquire, "a.go", "--wait"), "flag needs an argument: --wait")
}

// The checks of acquire's arguments that its run makes before it opens
// anything.
func TestRunFAcquireRunRefusesBadLines(t *testing.T) {
	cfg := func(session string) func() (*config, error) {
		return func() (*config, error) { return fakeConfig(session, "--session"), nil }
	}
	for _, tc := range []struct {
		args    []string
		session string
		wait    time.Duration
		want    string
	}{
		{args: nil, session: "s-1", want: "at least one path is required"},
		{args: []string{""}, session: "s-1", want: "a path is empty"},
		{args: []string{"a.go"}, session: "", want: "no session id"},
		{args: []string{"a.go"}, session: "bad|id", want: "session"},
		{args: []string{"a.go"}, session: "s-1", wait: -time.Second, want: "--wait -1s: must not be negative"},
	} {
		opts := &AcquireOptions{IO: testFactory(t).IO, Config: cfg(tc.session), Command: "agentlock acquire", Args: tc.args, Wait: tc.wait}
		err := acquireRun(t.Context(), opts)
		require.Error(t, err, "%v", tc.args)
		require.Equal(t, report.ExitUsage, report.ExitCode(err), "%v: %v", tc.args, err)
		require.Contains(t, err.Error(), tc.want)
	}
}
