package main

import (
	"context"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/internal/frontend/cmdutil"
	"github.com/agentlock/agentlock/internal/frontend/dashboard"
	"github.com/agentlock/agentlock/report"
)

// ServeOptions are the inputs of agentlock serve.
type ServeOptions struct {
	IO     *IOStreams
	Config func() (*config, error)

	Addr     string
	Open     bool
	Token    string
	ReadOnly bool
}

func newCmdServe(f *Factory, runF func(*ServeOptions) error) *cobra.Command {
	opts := &ServeOptions{IO: f.IO, Config: f.Config}
	cmd := &cobra.Command{
		Use:   "serve [--addr 127.0.0.1:7420] [--open] [--read-only] [--token T]",
		Short: "Serve a live dashboard of this project's sessions and locks",
		Long: `Serve a web page for people that shows who works on what: the sessions of the
registry joined with the locks they hold, the lock folder's counts and the
events seen while serving, updated live (Server-Sent Events pushed when the
lock folder or the registry changes). /api/sessions and /api/locks serve the
JSON records of show --json and status --json; /api/events streams the events.

A person may release a stale or orphaned lock from the page (orphaned: its
owner is no working session of the registry), as release --force does and
with its line printed here, unless --read-only. The release happens only if
the lock is still the one the page showed.

The server listens on loopback only. Another address needs --token, which
every request must then carry (the printed URL carries it once, then a
cookie). See docs/dashboard.md. Stop it with Ctrl-C (SIGINT) or SIGTERM.`,
		Example: `  agentlock serve
  agentlock serve --open --read-only
  agentlock serve --addr 0.0.0.0:7420 --token "$(openssl rand -hex 16)"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return serveRun(cmd.Context(), opts)
		},
	}
	cmd.Flags().StringVar(&opts.Addr, "addr", "127.0.0.1:7420", "address to listen on, host:port (one that is not loopback needs --token)")
	cmd.Flags().BoolVar(&opts.Open, "open", false, "open the page in the default browser")
	cmd.Flags().StringVar(&opts.Token, "token", "", "secret every request must carry (required off loopback)")
	cmd.Flags().BoolVar(&opts.ReadOnly, "read-only", false, "show only: no release from the page")
	return cmd
}

func serveRun(ctx context.Context, opts *ServeOptions) error {
	if err := dashboard.CheckAddr(opts.Addr, opts.Token); err != nil {
		return &report.UsageError{Err: err}
	}
	_, ws, _, err := workConfig(ctx, opts.IO, opts.Config)
	if err != nil {
		return err
	}
	// A server stays up: collect garbage, with a modest target.
	cmdutil.ServeMemory()
	srv, err := dashboard.New(dashboard.Options{Workspace: ws, ReadOnly: opts.ReadOnly, Token: opts.Token, Audit: opts.IO.Out,
		// Between changes the server waits, maybe for hours: the memory of
		// its last reading of the lock folder goes back to the system.
		Idle: debug.FreeOSMemory})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return srv.ListenAndServe(ctx, opts.Addr, opts.Token, opts.Open, opts.IO.ErrOut)
}
