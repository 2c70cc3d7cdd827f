package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRunFMCP(t *testing.T) {
	requireCommon[MCPOptions](t, "mcp", newCmdMCP, nil, true)

	// agentlock mcp hands its command line over as it was given:
	// agentlock-mcp parses the flags, and serves with them (its tests, in
	// package mcpprogram, have what --session and --timeout do).
	r := runfRun(t, "mcp", newCmdMCP)
	require.NoError(t, r.Err)
	require.Equal(t, []string{"mcp"}, r.Opts.Args)
	r = runfRun(t, "mcp", newCmdMCP, "--session", "claude-1", "--timeout", "30", "--json")
	require.NoError(t, r.Err)
	require.Equal(t, []string{"mcp", "--session", "claude-1", "--timeout", "30", "--json"}, r.Opts.Args)
	r = runfRun(t, "mcp", newCmdMCP, "--session-id=claude 2")
	require.NoError(t, r.Err)
	require.Equal(t, []string{"mcp", "--session-id=claude 2"}, r.Opts.Args, "one argument, whatever it holds")

	requireUsage(t, runfRun(t, "mcp", newCmdMCP, "serve"), `unknown command "serve" for "agentlock mcp"`)
}
