package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/internal/frontend/cmdutil"
	"github.com/agentlock/agentlock/internal/frontend/mcpserver"
	"github.com/agentlock/agentlock/session"
)

// MCPOptions are what agentlock mcp runs with.
type MCPOptions struct {
	IO *IOStreams
	// Config is the server's configuration, read once (flags given to mcp,
	// --session and --timeout, apply to every call), lenient: whoami runs
	// whatever it holds, the other tools refuse an invalid setting.
	Config func() (*config, error)
}

// newCmdMCP builds agentlock mcp: the MCP front end on the session
// service. runF, when not nil, runs instead of the server (tests).
func newCmdMCP(f *Factory, runF func(*MCPOptions) error) *cobra.Command {
	opts := &MCPOptions{IO: f.IO, Config: f.Lenient}
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve the lock and registry commands as MCP tools over stdio",
		Long: `Run a Model Context Protocol server on stdin and stdout, for an agent CLI
that starts it from its project MCP file (agentlock init writes the entry).
Its tools are acquire, release, release_all, check, status, heartbeat,
whoami, register, update, handoff and finish; the registry is the resource
` + mcpserver.RegistryURI + `.

Each tool call runs the command of the same name with --json in this
process, as one transaction on the store: the same policy, the same JSON
records, the same session — the agent's own, resolved as for every command
(harness variables, the recorded agent process among this server's
ancestors, AGENTLOCK_SESSION; --session given here applies to every call).
The server keeps no lock in memory and renews nothing: when the agent exits
and closes stdin, the server exits, and the session's locks expire unless
the session's end hook finishes it. See docs/mcp.md.`,
		Example: `  agentlock mcp
  agentlock mcp --session claude-1   # a fixed session, for a CLI that gives none`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return mcpRun(cmd.Context(), opts)
		},
	}
}

// mcpRun serves the MCP tools on opts.IO until the client closes stdin or
// the process is interrupted. Each tool call is one command of the
// session service, on a service of its own, with the call's context.
func mcpRun(ctx context.Context, opts *MCPOptions) error {
	c, err := opts.Config()
	if err != nil {
		return err
	}
	cmdutil.KeepCollecting()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg := mcpserver.Config{Version: moduleVersion(), Problems: c.Problems, Service: func(typed string) *session.Service {
		in := c.Identity
		if typed != "" {
			// The model's session, where the server knows none: as if
			// given with --session.
			in.Flag = typed
		}
		return session.New(session.Config{Settings: c.Settings, Identity: in})
	}}
	return mcpserver.Serve(ctx, cfg, io.NopCloser(opts.IO.In), nopWriteCloser{opts.IO.Out})
}

// nopWriteCloser is a writer whose Close does nothing: the server's stdout
// is the process's.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
