// Package servecmd is agentlock serve's command line: its help, flags and
// arguments, and the check of its address. agentlock builds it and hands
// the command line over to workspace.MCPProgram, which builds it too and
// serves the dashboard (package dashboard), so that the two parse the
// same command line and agentlock links no HTTP server: every lock call
// and hook starts agentlock, and pays the initialisation of every package
// it links (docs/speed.md).
package servecmd

import (
	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/internal/frontend/dashboard/listenaddr"
	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/workspace"
)

// Options are agentlock serve's flags.
type Options struct {
	Addr     string // --addr, host:port
	Open     bool   // --open: open the page in the default browser
	Token    string // --token, required off loopback
	ReadOnly bool   // --read-only: no release from the page
}

// Check refuses an address the dashboard must not listen on, or cannot
// (listenaddr.Check), as a usage error: before anything is opened or
// handed over.
func (o Options) Check() error {
	if err := listenaddr.Check(o.Addr, o.Token); err != nil {
		return &report.UsageError{Err: err}
	}
	return nil
}

// New builds agentlock serve, its flags parsed into opts; run runs it.
func New(opts *Options, run func(cmd *cobra.Command) error) *cobra.Command {
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
cookie). See docs/dashboard.md. Stop it with Ctrl-C (SIGINT) or SIGTERM.
The server is the program ` + workspace.MCPProgram + `, installed with agentlock
(beside it, else on PATH), which agentlock serve runs in its place.`,
		Example: `  agentlock serve
  agentlock serve --open --read-only
  agentlock serve --addr 0.0.0.0:7420 --token "$(openssl rand -hex 16)"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return run(cmd) },
	}
	cmd.Flags().StringVar(&opts.Addr, "addr", "127.0.0.1:7420", "address to listen on, host:port (one that is not loopback needs --token)")
	cmd.Flags().BoolVar(&opts.Open, "open", false, "open the page in the default browser")
	cmd.Flags().StringVar(&opts.Token, "token", "", "secret every request must carry (required off loopback)")
	cmd.Flags().BoolVar(&opts.ReadOnly, "read-only", false, "show only: no release from the page")
	return cmd
}
