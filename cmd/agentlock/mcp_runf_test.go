package main

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRunFMCP(t *testing.T) {
	requireCommon(t, "mcp", newCmdMCP, func(o *MCPOptions) func() (*config, error) { return o.Config }, true)

	r := runfRun(t, "mcp", newCmdMCP)
	require.NoError(t, r.Err)
	c := runfConfig(t, r.Opts.Config)
	require.Empty(t, c.Identity.Flag, "every call resolves its own session")
	require.Same(t, r.Out, r.Opts.IO.Out, "the protocol goes to the Factory's stdout")

	// --session and --timeout given to the server apply to every call:
	// they are the server's configuration, which every call's session
	// service starts from; --json does not need to (every tool call
	// prints the --json records).
	r = runfRun(t, "mcp", newCmdMCP, "--session", "claude-1", "--timeout", "30", "--json")
	require.NoError(t, r.Err)
	c = runfConfig(t, r.Opts.Config)
	require.Equal(t, "claude-1", c.Identity.Flag)
	require.Equal(t, 30*time.Second, c.Settings.Timeout)
	r = runfRun(t, "mcp", newCmdMCP, "--session-id=claude 2")
	require.NoError(t, r.Err)
	require.Equal(t, "claude 2", runfConfig(t, r.Opts.Config).Identity.Flag, "one argument, whatever it holds")

	requireUsage(t, runfRun(t, "mcp", newCmdMCP, "serve"), `unknown command "serve" for "agentlock mcp"`)
}
