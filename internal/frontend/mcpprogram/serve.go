package mcpprogram

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/internal/frontend/cliconfig"
	"github.com/agentlock/agentlock/internal/frontend/cmdutil"
	"github.com/agentlock/agentlock/internal/frontend/dashboard"
	"github.com/agentlock/agentlock/internal/frontend/servecmd"
	"github.com/agentlock/agentlock/workspace"
)

// newCmdServe is agentlock serve, which agentlock hands over to this
// program: the dashboard of the working directory's project, until
// SIGINT or SIGTERM. config is the invocation's strict configuration (an
// invalid setting is a usage error, as in agentlock); serve, when not
// nil, runs instead of the server with the configuration it would serve
// (tests).
func newCmdServe(opts Options, config func() (*cliconfig.Config, error), serve func(*cliconfig.Config) error) *cobra.Command {
	flags := &servecmd.Options{}
	return servecmd.New(flags, func(cmd *cobra.Command) error {
		// The address first: nothing is opened for one that is refused.
		if err := flags.Check(); err != nil {
			return err
		}
		c, err := config()
		if err != nil {
			return err
		}
		if serve != nil {
			return serve(c)
		}
		return serveDashboard(cmd.Context(), opts, *flags, c)
	})
}

// serveDashboard serves the dashboard of c's workspace on flags' address
// until ctx ends or the process is interrupted.
func serveDashboard(ctx context.Context, opts Options, flags servecmd.Options, c *cliconfig.Config) error {
	ws, err := c.Service().Workspace(ctx)
	if errors.Is(err, workspace.ErrNoRemote) {
		return etcdBuildNeeded()
	}
	if err != nil {
		return err
	}
	// A server stays up: collect garbage, with a modest target.
	cmdutil.ServeMemory()
	srv, err := dashboard.New(dashboard.Options{Workspace: ws, ReadOnly: flags.ReadOnly, Token: flags.Token, Audit: opts.Out,
		// Between changes the server waits, maybe for hours: the memory of
		// its last reading of the lock folder goes back to the system.
		Idle: debug.FreeOSMemory})
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	return srv.ListenAndServe(ctx, flags.Addr, flags.Token, flags.Open, opts.ErrOut)
}

// etcdBuildNeeded is the error of a project on etcd met by a build of this
// program without the store: the commands would fail opening it, naming
// agentlock-etcd, which serves neither MCP nor the dashboard. It says once
// which build can.
func etcdBuildNeeded() error {
	return fmt.Errorf("the project keeps its locks in an etcd store, and this %s was built without it (go install builds it so): "+
		"build it with the store, CGO_ENABLED=0 go build -tags etcd -o %s ./cmd/%s in agentlock's source tree, as the release archives, npm and Homebrew ship it (docs/teams.md)",
		workspace.MCPProgram, selfOr(workspace.MCPProgram), workspace.MCPProgram)
}
