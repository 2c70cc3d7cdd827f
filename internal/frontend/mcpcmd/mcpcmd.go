// Package mcpcmd is the agentlock mcp command, which two programs parse:
// agentlock, whose mcp hands its command line over to agentlock-mcp
// (workspace.MCPProgram), and agentlock-mcp, which serves it (package
// mcpprogram). It links no MCP code: agentlock, which every lock call and
// hook starts, does not pay for the MCP Go SDK's package initialisation
// (docs/speed.md).
package mcpcmd

import (
	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/workspace"
)

// RegistryURI is the URI of the registry resource the server offers.
const RegistryURI = "agentlock://registry"

// New returns the mcp command of a root with cmdutil.GlobalFlags, which
// runs run.
func New(run func(cmd *cobra.Command) error) *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve the lock and registry commands as MCP tools over stdio",
		Long: `Run a Model Context Protocol server on stdin and stdout, for an agent CLI
that starts it from its project MCP file (agentlock init writes the entry).
Its tools are acquire, release, release_all, check, status, heartbeat,
whoami, register, update, handoff and finish; the registry is the resource
` + RegistryURI + `.

Each tool call runs the command of the same name with --json in this
process, as one transaction on the store: the same policy, the same JSON
records, the same session — the agent's own, resolved as for every command
(harness variables, the recorded agent process among this server's
ancestors, AGENTLOCK_SESSION; --session given here applies to every call).
The server keeps no lock in memory and renews nothing: when the agent exits
and closes stdin, the server exits, and the session's locks expire unless
the session's end hook finishes it. The server is the program
` + workspace.MCPProgram + `, installed with agentlock (beside it, else on PATH),
which agentlock mcp runs in its place. See docs/mcp.md.`,
		Example: `  agentlock mcp
  agentlock mcp --session claude-1   # a fixed session, for a CLI that gives none`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return run(cmd) },
	}
}
