package main

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/frontend/servecmd"
	"github.com/agentlock/agentlock/report"
)

func TestRunFServe(t *testing.T) {
	requireCommon[ServeOptions](t, "serve", newCmdServe, nil, true)

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
	// The command line is handed over as it was given: agentlock-mcp
	// parses the flags again and serves with them (its tests, in package
	// mcpprogram, have what the root's flags do).
	require.Equal(t, []string{"serve", "--addr", "0.0.0.0:8000", "--open", "--token", "t0k", "--read-only"}, r.Opts.Args)
	requireUsage(t, runfRun(t, "serve", newCmdServe, "8000"), `unknown command "8000" for "agentlock serve"`)

	// The address is checked before anything is opened or handed over:
	// off loopback only with a token.
	handOver := func(string, []string) error { t.Fatal("the address is checked first"); return nil }
	for _, tc := range []struct{ addr, token, want string }{
		{"0.0.0.0:7420", "", "not a loopback address"},
		{":7420", "", "not a loopback address"},
		{"[::]:7420", "", "not a loopback address"},
		{"192.168.1.2:7420", "", "give --token too"},
		{"localhost", "", "--addr localhost: "},
		{"127.0.0.1", "t", "missing port"},
	} {
		err := serveRun(&ServeOptions{IO: testFactory(t).IO, HandOver: handOver, Options: servecmd.Options{Addr: tc.addr, Token: tc.token}})
		require.Error(t, err, tc.addr)
		require.Equal(t, report.ExitUsage, report.ExitCode(err), "%s: %v", tc.addr, err)
		require.Contains(t, err.Error(), tc.want)
	}
}

// An address the dashboard may listen on is handed over with the command
// line, to agentlock-mcp, which serves it.
func TestServeHandsItsCommandLineOver(t *testing.T) {
	var command string
	var args []string
	handOver := func(c string, a []string) error { command, args = c, a; return nil }
	given := []string{"serve", "--addr", "127.0.0.1:0", "--read-only"}
	require.NoError(t, serveRun(&ServeOptions{IO: testFactory(t).IO, HandOver: handOver, Args: given,
		Options: servecmd.Options{Addr: "127.0.0.1:0", ReadOnly: true}}))
	require.Equal(t, "agentlock serve", command)
	require.Equal(t, given, args)
}
