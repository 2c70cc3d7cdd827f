package main

// In-process tests of the commands' flags through gh's seam: each
// newCmdX(f, runF) is built with a runF that captures the options it
// would run with, so that flag parsing is tested without a process.

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/report"
)

// testFactory is a Factory on buffers, whose Config must not be needed.
func testFactory(t *testing.T) *Factory {
	return &Factory{
		IO:  &IOStreams{In: bytes.NewReader(nil), Out: io.Discard, ErrOut: io.Discard},
		Now: time.Now,
		Config: func() (*config, error) {
			t.Fatal("flag parsing needed the configuration")
			return nil, nil
		},
	}
}

func TestReleaseFlags(t *testing.T) {
	for _, tc := range []struct {
		args       []string
		all, force bool
		paths      []string
	}{
		{args: []string{"a.go", "b.go"}, paths: []string{"a.go", "b.go"}},
		{args: []string{"--all"}, all: true},
		{args: []string{"--force", "a.go"}, force: true, paths: []string{"a.go"}},
		{args: []string{"--all", "--force", "x"}, all: true, force: true, paths: []string{"x"}},
	} {
		var got *ReleaseOptions
		cmd := newCmdRelease(testFactory(t), func(o *ReleaseOptions) error { got = o; return nil })
		cmd.SetArgs(tc.args)
		require.NoError(t, cmd.Execute(), "%v", tc.args)
		require.Equal(t, tc.all, got.All, "%v", tc.args)
		require.Equal(t, tc.force, got.Force, "%v", tc.args)
		if len(tc.paths) == 0 {
			require.Empty(t, got.Args, "%v", tc.args)
		} else {
			require.Equal(t, tc.paths, got.Args, "%v", tc.args)
		}
	}
}

// release --all --force x is refused as a usage error before anything is
// released (it used to force-release x: the refusal was a dead branch).
func TestReleaseAllForceIsRefusedBeforeAnything(t *testing.T) {
	opts := &ReleaseOptions{IO: testFactory(t).IO, All: true, Force: true, Args: []string{"x"}, Command: "agentlock release",
		Config: func() (*config, error) { return &config{}, nil }}
	err := releaseRun(t.Context(), opts)
	require.Error(t, err)
	require.Equal(t, report.ExitUsage, report.ExitCode(err), "%v", err)
	require.Contains(t, err.Error(), "--all and --force")
}

func TestAcquireAndHeartbeatFlags(t *testing.T) {
	var acq *AcquireOptions
	cmd := newCmdAcquire(testFactory(t), func(o *AcquireOptions) error { acq = o; return nil })
	cmd.SetArgs([]string{"--wait", "90", "src/a.go", "s1"})
	require.NoError(t, cmd.Execute())
	require.Equal(t, 90*time.Second, acq.Wait)
	require.Equal(t, []string{"src/a.go", "s1"}, acq.Args)

	var hb *HeartbeatOptions
	cmd = newCmdHeartbeat(testFactory(t), func(o *HeartbeatOptions) error { hb = o; return nil })
	cmd.SetArgs([]string{"--all"})
	require.NoError(t, cmd.Execute())
	require.True(t, hb.All)

	var hk *HookOptions
	cmd = newCmdHook(testFactory(t), func(o *HookOptions) error { hk = o; return nil })
	cmd.SetArgs([]string{"claude", "pre-edit"})
	require.NoError(t, cmd.Execute())
	require.Equal(t, "claude", hk.Agent)
	require.Equal(t, "pre-edit", hk.Event)
	cmd = newCmdHook(testFactory(t), func(*HookOptions) error { return nil })
	cmd.SetArgs([]string{"claude"})
	cmd.SetOut(io.Discard)
	cmd.SetErr(io.Discard)
	require.Error(t, cmd.Execute(), "hook needs an agent and an event")
}
