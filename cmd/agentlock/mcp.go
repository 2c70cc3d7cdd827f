package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/internal/frontend/cmdutil"
	"github.com/agentlock/agentlock/internal/frontend/mcpserver"
)

// MCPOptions are what agentlock mcp runs with.
type MCPOptions struct {
	IO *IOStreams
	// Now is the clock of the tool calls' commands.
	Now func() time.Time
	// Forward are the root flags given to mcp that every tool call gets
	// too (see forwardedFlags).
	Forward []string
}

// newCmdMCP builds agentlock mcp: the MCP front end on the same commands.
// runF, when not nil, runs instead of the server (tests).
func newCmdMCP(f *Factory, runF func(*MCPOptions) error) *cobra.Command {
	opts := &MCPOptions{IO: f.IO, Now: f.Now}
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
			opts.Forward = forwardedFlags(cmd)
			if runF != nil {
				return runF(opts)
			}
			return mcpRun(cmd.Context(), opts)
		},
	}
}

// mcpRun serves the MCP tools on opts.IO until the client closes stdin or
// the process is interrupted.
func mcpRun(ctx context.Context, opts *MCPOptions) error {
	cmdutil.KeepCollecting()
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg := mcpserver.Config{Version: moduleVersion(), Run: inProcess(&Factory{Now: opts.Now}, opts.Forward)}
	return mcpserver.Serve(ctx, cfg, io.NopCloser(opts.IO.In), nopWriteCloser{opts.IO.Out})
}

// forwardedFlags are the root flags given to agentlock mcp that every call
// gets too: --session and --timeout.
func forwardedFlags(cmd *cobra.Command) []string {
	var out []string
	for _, name := range []string{"session", "timeout"} {
		if fl := cmd.Flags().Lookup(name); fl != nil && fl.Changed {
			out = append(out, "--"+name+"="+fl.Value.String())
		}
	}
	return out
}

// inProcess runs one command line in this process, as the one-shot command
// would run it, with the streams captured: a fresh command tree, a fresh
// configuration read from the environment and the flags.
func inProcess(f *Factory, forward []string) mcpserver.Runner {
	return func(_ context.Context, args []string, live io.Writer) mcpserver.Output {
		var out, errOut bytes.Buffer
		var stderr io.Writer = &errOut
		if live != nil {
			stderr = io.MultiWriter(&errOut, live)
		}
		line := args
		if len(forward) > 0 {
			line = append(append([]string{args[0]}, forward...), args[1:]...)
		}
		code := execute(&Factory{IO: &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: stderr}, Now: f.Now}, line)
		return mcpserver.Output{Stdout: out.Bytes(), Stderr: errOut.Bytes(), Code: code}
	}
}

// nopWriteCloser is a writer whose Close does nothing: the server's stdout
// is the process's.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }
