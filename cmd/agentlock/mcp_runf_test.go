package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRunFMCP(t *testing.T) {
	requireCommon(t, "mcp", newCmdMCP, nil, false)

	r := runfRun(t, "mcp", newCmdMCP)
	require.NoError(t, r.Err)
	require.Empty(t, r.Opts.Forward, "every call resolves its own session")
	require.Same(t, r.Out, r.Opts.IO.Out, "the protocol goes to the Factory's stdout")
	require.NotNil(t, r.Opts.Now)

	// --session and --timeout given to the server apply to every call;
	// --json does not need to (every tool call is --json).
	r = runfRun(t, "mcp", newCmdMCP, "--session", "claude-1", "--timeout", "30", "--json")
	require.NoError(t, r.Err)
	require.Equal(t, []string{"--session=claude-1", "--timeout=30"}, r.Opts.Forward)
	r = runfRun(t, "mcp", newCmdMCP, "--session-id=claude 2")
	require.NoError(t, r.Err)
	require.Equal(t, []string{"--session=claude 2"}, r.Opts.Forward, "one argument, whatever it holds")

	requireUsage(t, runfRun(t, "mcp", newCmdMCP, "serve"), `unknown command "serve" for "agentlock mcp"`)
}
