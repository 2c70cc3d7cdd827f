package main

import (
	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/internal/frontend/mcpcmd"
)

// MCPOptions are what agentlock mcp runs with.
type MCPOptions struct {
	IO *IOStreams
	// Args is the command line, handed over as it is to the program that
	// serves it (workspace.MCPProgram).
	Args []string
}

// newCmdMCP builds agentlock mcp, which hands its command line over to
// agentlock-mcp (workspace.MCPProgramFor): this program links no MCP
// code (package mcpprogram says why). runF, when not nil, runs instead of
// the hand-over (tests).
func newCmdMCP(f *Factory, runF func(*MCPOptions) error) *cobra.Command {
	opts := &MCPOptions{IO: f.IO}
	return mcpcmd.New(func(cmd *cobra.Command) error {
		opts.Args = f.Args
		if runF != nil {
			return runF(opts)
		}
		return mcpRun(opts)
	})
}

// mcpRun runs agentlock-mcp in place of this process with the command
// line; it returns only the error of a hand-over that could not happen.
func mcpRun(opts *MCPOptions) error { return serverRun("agentlock mcp", opts.Args) }
