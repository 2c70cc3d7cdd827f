// Package mcpprogram is agentlock-mcp (workspace.MCPProgram; its main is
// cmd/agentlock-mcp), the program that serves agentlock mcp and agentlock
// serve: agentlock's mcp and serve commands hand their command line over
// to it, so that the MCP Go SDK, whose package initialisation costs every
// process that links it about a millisecond of processor time, and the
// dashboard's HTTP server (net/http, crypto/tls, html/template: 0.3x
// flock(1) a process) are linked into no program that a lock call or a
// hook starts (docs/speed.md). It parses the command lines agentlock does
// (cmdutil.GlobalFlags, mcpcmd, servecmd), serves MCP with package
// mcpserver and the page with package dashboard, prints its version as
// agentlock does, and lists the tools of a server for agentlock doctor
// (list-tools), whose check must not link the SDK either.
package mcpprogram

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/internal/frontend/cliconfig"
	"github.com/agentlock/agentlock/internal/frontend/cmdutil"
	"github.com/agentlock/agentlock/internal/frontend/mcpcmd"
	"github.com/agentlock/agentlock/internal/frontend/mcpserver"
	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/session"
	"github.com/agentlock/agentlock/workspace"
)

// Options are what the program runs with, all explicit.
type Options struct {
	// Args is the command line without the program name: the one
	// agentlock was given (agentlock mcp hands it over as it is).
	Args []string
	// In, Out and ErrOut are the standard streams; the protocol runs on
	// In and Out.
	In          io.Reader
	Out, ErrOut io.Writer
	// Env is the process's environment (os.Environ) and Dir its working
	// directory, those of the servers list-tools starts.
	Env []string
	Dir string
	// Now is the clock of lock timestamps and registry times.
	Now func() time.Time
	// Build is what version reports (report.Built of the linker's stamp).
	Build report.Version
}

// FromOS returns the Options of this process, built as build says.
func FromOS(build report.Version) Options {
	wd, _ := os.Getwd()
	return Options{Args: os.Args[1:], In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr, Env: os.Environ(), Dir: wd,
		Now: time.Now, Build: build}
}

// ListTimeout bounds list-tools: the server's start, initialize and
// tools/list.
const ListTimeout = 10 * time.Second

// Main runs the command line of opts and returns the exit code (the
// classification of report.ExitCode, as agentlock's).
func Main(opts Options) int {
	root, done := newRoot(opts, nil)
	root.SetArgs(opts.Args)
	cmd, err := root.ExecuteC()
	for _, w := range core.Unjoin(done()) {
		fmt.Fprintf(opts.ErrOut, "agentlock: warning: %s\n", report.Escape(w.Error()))
	}
	return cmdutil.Fail(opts.Out, opts.ErrOut, cmd, opts.Args, err)
}

// newRoot builds the program's command tree, and returns with it what
// closes the configuration's stores once it ran. serve, when not nil,
// runs instead of the server with the configuration it would serve
// (tests).
func newRoot(opts Options, serve func(*cliconfig.Config) error) (*cobra.Command, func() error) {
	root := &cobra.Command{
		Use:   workspace.MCPProgram,
		Short: "agentlock's MCP server and dashboard: agentlock mcp and agentlock serve run it",
		Long: `agentlock-mcp serves agentlock's tools to agent CLIs over the Model Context
Protocol, and the dashboard. agentlock mcp and agentlock serve run it in
their place with the same command line, so that no other program of
agentlock links the MCP Go SDK or an HTTP server (docs/mcp.md,
docs/dashboard.md).`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return cmdutil.UnknownCommand(cmd, args[0])
			}
			return report.UsageErrorf("a command is required")
		},
		RunE: func(cmd *cobra.Command, args []string) error { return nil },
	}
	root.Version = opts.Build.Version
	root.SetVersionTemplate(workspace.MCPProgram + " {{.Version}}\n")
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetOut(opts.Out)
	root.SetErr(opts.ErrOut)
	root.SetIn(opts.In)
	strict, lenient, done := cliconfig.Lazy(cmdutil.GlobalFlags(root), opts.Now)
	root.AddCommand(mcpcmd.New(func(cmd *cobra.Command) error {
		c, err := lenient()
		if err != nil {
			return err
		}
		if serve != nil {
			return serve(c)
		}
		return run(cmd.Context(), opts, c)
	}), newCmdServe(opts, strict, serve), newCmdVersion(opts, lenient), newCmdListTools(opts))
	cmdutil.UsageArgs(root)
	return root, done
}

// run serves the MCP tools on opts' streams until the client closes
// stdin or the process is interrupted. Each tool call is one command of
// the session service, on a service of its own, with the call's context.
// c is the server's configuration, read once (flags given to mcp,
// --session and --timeout, apply to every call), lenient: whoami runs
// whatever it holds, the other tools refuse an invalid setting.
func run(ctx context.Context, opts Options, c *cliconfig.Config) error {
	if _, err := c.Service().Workspace(ctx); errors.Is(err, workspace.ErrNoRemote) {
		// The project is on etcd, and this build lacks the store: every
		// tool call would fail opening it.
		return etcdBuildNeeded()
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	cfg := mcpserver.Config{Version: opts.Build.Version, Problems: c.Problems, Service: func(typed string) *session.Service {
		in := c.Identity
		if typed != "" {
			// The model's session, where the server knows none: as if
			// given with --session.
			in.Flag = typed
		}
		return session.New(session.Config{Settings: c.Settings, Identity: in, WorkDir: c.WorkDir})
	}}
	return mcpserver.Serve(ctx, cfg, io.NopCloser(opts.In), nopWriteCloser{opts.Out})
}

// selfOr is this program's file, or name when it cannot be told.
func selfOr(name string) string {
	if self, err := os.Executable(); err == nil {
		return self
	}
	return name
}

// nopWriteCloser is a writer whose Close does nothing: the server's stdout
// is the process's.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// newCmdVersion is agentlock version, for this program.
func newCmdVersion(opts Options, config func() (*cliconfig.Config, error)) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the version of " + workspace.MCPProgram + ", as agentlock version does",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := config()
			if err != nil {
				return err
			}
			return report.Printer{Out: opts.Out, ErrOut: opts.ErrOut, JSON: c.JSON}.Version(opts.Build, c.Problems)
		},
	}
}

// newCmdListTools is the check of agentlock doctor: it starts a command as
// an agent CLI starts an MCP server, over stdio, and prints the names of
// its tools, one a line. The server's standard error is this program's.
func newCmdListTools(opts Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:    "list-tools PROGRAM [ARG...]",
		Short:  "Start PROGRAM as an MCP server over stdio and print its tools, one a line (agentlock doctor's check)",
		Hidden: true,
		Args:   cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx, cancel := context.WithTimeout(cmd.Context(), ListTimeout)
			defer cancel()
			server := exec.CommandContext(ctx, args[0], args[1:]...)
			server.Dir, server.Env, server.Stderr = opts.Dir, opts.Env, opts.ErrOut
			tools, err := ListTools(ctx, server)
			if err != nil {
				return err
			}
			_, err = io.WriteString(opts.Out, strings.Join(append(tools, ""), "\n"))
			return err
		},
	}
	// Everything after PROGRAM is its own.
	cmd.Flags().SetInterspersed(false)
	return cmd
}

// ListTools connects to the MCP server cmd runs, as an agent CLI does,
// and returns its tools' names.
func ListTools(ctx context.Context, cmd *exec.Cmd) ([]string, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "agentlock-doctor", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}, nil)
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("tools/list: %w", err)
	}
	var names []string
	for _, t := range res.Tools {
		names = append(names, t.Name)
	}
	if len(names) == 0 {
		return nil, errors.New("tools/list: no tools")
	}
	return names, nil
}
