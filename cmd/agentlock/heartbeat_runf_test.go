package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/report"
)

func TestRunFHeartbeat(t *testing.T) {
	requireCommon(t, "heartbeat", newCmdHeartbeat, func(o *HeartbeatOptions) func() (*config, error) { return o.Config }, false, "a.go")

	r := runfRun(t, "heartbeat", newCmdHeartbeat, "a.go", "s-1")
	require.NoError(t, r.Err)
	require.Equal(t, "agentlock heartbeat", r.Opts.Command)
	require.Equal(t, []string{"a.go", "s-1"}, r.Opts.Args)
	require.Zero(t, r.Opts.Every)
	require.False(t, r.Opts.EveryGiven, "one renewal unless --every")
	require.Zero(t, r.Opts.PID)
	require.False(t, r.Opts.All)

	// --every takes a duration or, like --wait and heartbeat-loop's
	// interval, plain seconds.
	for arg, want := range map[string]time.Duration{"30s": 30 * time.Second, "30": 30 * time.Second, "1.5": 1500 * time.Millisecond, "2m": 2 * time.Minute, "0": 0} {
		r = runfRun(t, "heartbeat", newCmdHeartbeat, "--every", arg, "a.go")
		require.NoError(t, r.Err, arg)
		require.Equal(t, want, r.Opts.Every, arg)
		require.True(t, r.Opts.EveryGiven, "--every %s was given", arg)
	}
	for _, bad := range []string{"often", "-30s", "NaN"} {
		requireUsage(t, runfRun(t, "heartbeat", newCmdHeartbeat, "--every", bad, "a.go"), `invalid argument "`+bad+`" for "--every" flag`)
	}
	r = runfRun(t, "heartbeat", newCmdHeartbeat, "--all", "--every", "30s", "--pid", "4242")
	require.NoError(t, r.Err)
	require.True(t, r.Opts.All)
	require.Empty(t, r.Opts.Args)
	require.Equal(t, 4242, r.Opts.PID)
	requireUsage(t, runfRun(t, "heartbeat", newCmdHeartbeat, "--pid", "me", "--every", "1m", "a.go"), `invalid argument "me" for "--pid" flag`)
}

// The checks that heartbeat's run makes before it opens anything.
func TestRunFHeartbeatRunRefusesBadLines(t *testing.T) {
	cfg := func(session string) func() (*config, error) {
		return func() (*config, error) { return fakeConfig(session, "--session"), nil }
	}
	for _, tc := range []struct {
		opts HeartbeatOptions
		want string
	}{
		{HeartbeatOptions{All: true, Args: []string{"a.go"}}, "--all takes no paths"},
		{HeartbeatOptions{Args: []string{"a.go"}, Every: 50 * time.Millisecond, EveryGiven: true}, "--every 50ms: must be from 100ms to 24h0m0s"},
		{HeartbeatOptions{Args: []string{"a.go"}, Every: 0, EveryGiven: true}, "--every 0s: must be from"},
		{HeartbeatOptions{Args: []string{"a.go"}, Every: 25 * time.Hour, EveryGiven: true}, "--every 25h0m0s: must be from"},
		{HeartbeatOptions{Args: []string{"a.go"}, PID: 4242}, "--pid goes with --every"},
		{HeartbeatOptions{}, "at least one path is required"},
	} {
		opts := tc.opts
		opts.IO, opts.Config, opts.Command = testFactory(t).IO, cfg("s-1"), "agentlock heartbeat"
		err := heartbeatRun(t.Context(), &opts)
		require.Error(t, err, tc.want)
		require.Equal(t, report.ExitUsage, report.ExitCode(err), "%v", err)
		require.Contains(t, err.Error(), tc.want)
	}
	err := heartbeatRun(t.Context(), &HeartbeatOptions{IO: testFactory(t).IO, Config: cfg(""), Command: "agentlock heartbeat", All: true})
	require.Equal(t, report.ExitUsage, report.ExitCode(err), "%v", err)
	require.Contains(t, err.Error(), "no session id known here")
}

func TestRunFHeartbeatLoop(t *testing.T) {
	requireCommon(t, "heartbeat-loop", newCmdHeartbeatLoop, func(o *HeartbeatOptions) func() (*config, error) { return o.Config }, false, "a.go")

	for _, tc := range []struct {
		args  []string
		paths []string
		every time.Duration
	}{
		{[]string{"a.go"}, []string{"a.go"}, 30 * time.Second},
		{[]string{"a.go", "s-1"}, []string{"a.go", "s-1"}, 30 * time.Second},
		{[]string{"a.go", "45"}, []string{"a.go"}, 45 * time.Second},
		{[]string{"a.go", "2m"}, []string{"a.go"}, 2 * time.Minute},
		{[]string{"a.go", "s-1", "10"}, []string{"a.go", "s-1"}, 10 * time.Second},
		{[]string{"a.go", "s-1", "0.1"}, []string{"a.go", "s-1"}, 100 * time.Millisecond},
		{[]string{"a.go", "s-1", "24h"}, []string{"a.go", "s-1"}, 24 * time.Hour},
	} {
		r := runfRun(t, "heartbeat-loop", newCmdHeartbeatLoop, tc.args...)
		require.NoError(t, r.Err, "%v", tc.args)
		require.Equal(t, "agentlock heartbeat-loop", r.Opts.Command)
		require.Equal(t, tc.paths, r.Opts.Args, "%v", tc.args)
		require.Equal(t, tc.every, r.Opts.Every, "%v", tc.args)
		require.True(t, r.Opts.EveryGiven, "a loop always renews at an interval")
		require.Zero(t, r.Opts.PID)
		require.False(t, r.Opts.All)
	}
	r := runfRun(t, "heartbeat-loop", newCmdHeartbeatLoop, "--pid", "99", "a.go")
	require.NoError(t, r.Err)
	require.Equal(t, 99, r.Opts.PID)

	for _, bad := range []string{"0", "0.05", "25h", "NaN", "soon"} {
		requireUsage(t, runfRun(t, "heartbeat-loop", newCmdHeartbeatLoop, "a.go", "s-1", bad), `interval="`+bad+`" is invalid`)
	}
	// A negative interval reads as a flag: a usage error all the same.
	requireUsage(t, runfRun(t, "heartbeat-loop", newCmdHeartbeatLoop, "a.go", "s-1", "-1"), "unknown shorthand flag")
	requireUsage(t, runfRun(t, "heartbeat-loop", newCmdHeartbeatLoop, "a.go", "s-1", "--", "-1"), `interval="-1" is invalid`)
	requireUsage(t, runfRun(t, "heartbeat-loop", newCmdHeartbeatLoop), "accepts between 1 and 3 arg(s), received 0")
	requireUsage(t, runfRun(t, "heartbeat-loop", newCmdHeartbeatLoop, "a.go", "s-1", "10", "more"), "accepts between 1 and 3 arg(s), received 4")
	requireUsage(t, runfRun(t, "heartbeat-loop", newCmdHeartbeatLoop, "--every", "10s", "a.go"), "unknown flag: --every")
	requireUsage(t, runfRun(t, "heartbeat-loop", newCmdHeartbeatLoop, "--all"), "unknown flag: --all")
}
