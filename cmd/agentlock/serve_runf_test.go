package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/report"
)

func TestRunFServe(t *testing.T) {
	requireCommon(t, "serve", newCmdServe, func(o *ServeOptions) func() (*config, error) { return o.Config }, false)

	r := runfRun(t, "serve", newCmdServe)
	require.NoError(t, r.Err)
	// Loopback, no browser, no token, releases allowed.
	require.Equal(t, "127.0.0.1:7420", r.Opts.Addr)
	require.False(t, r.Opts.Open)
	require.Empty(t, r.Opts.Token)
	require.False(t, r.Opts.ReadOnly)
	r = runfRun(t, "serve", newCmdServe, "--addr", "0.0.0.0:8000", "--open", "--token", "t0k", "--read-only")
	require.NoError(t, r.Err)
	require.Equal(t, "0.0.0.0:8000", r.Opts.Addr)
	require.True(t, r.Opts.Open)
	require.Equal(t, "t0k", r.Opts.Token)
	require.True(t, r.Opts.ReadOnly)
	requireUsage(t, runfRun(t, "serve", newCmdServe, "8000"), `unknown command "8000" for "agentlock serve"`)

	// The address is checked before anything is opened: off loopback
	// only with a token.
	cfg := func() (*config, error) { t.Fatal("the address is checked first"); return nil, nil }
	for _, tc := range []struct{ addr, token, want string }{
		{"0.0.0.0:7420", "", "not a loopback address"},
		{":7420", "", "not a loopback address"},
		{"[::]:7420", "", "not a loopback address"},
		{"192.168.1.2:7420", "", "give --token too"},
		{"localhost", "", "--addr localhost: "},
		{"127.0.0.1", "t", "missing port"},
	} {
		err := serveRun(t.Context(), &ServeOptions{IO: testFactory(t).IO, Config: cfg, Addr: tc.addr, Token: tc.token})
		require.Error(t, err, tc.addr)
		require.Equal(t, report.ExitUsage, report.ExitCode(err), "%s: %v", tc.addr, err)
		require.Contains(t, err.Error(), tc.want)
	}
}
