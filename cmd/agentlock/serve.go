package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/internal/frontend/servecmd"
	"github.com/agentlock/agentlock/workspace"
)

// ServeOptions are what agentlock serve runs with: its flags, checked
// here, and the command line, handed over as it is to the program that
// serves the page (workspace.MCPProgram).
type ServeOptions struct {
	IO *IOStreams
	servecmd.Options
	Args []string
	// HandOver runs the program that serves the page in place of this
	// process (serverRun).
	HandOver func(command string, args []string) error
}

// newCmdServe builds agentlock serve, which checks its address and hands
// its command line over to agentlock-mcp (workspace.MCPProgramFor): this
// program links no HTTP server (package servecmd says why). runF, when not
// nil, runs instead of the check and the hand-over (tests).
func newCmdServe(f *Factory, runF func(*ServeOptions) error) *cobra.Command {
	opts := &ServeOptions{IO: f.IO, HandOver: serverRun}
	return servecmd.New(&opts.Options, func(cmd *cobra.Command) error {
		opts.Args = f.Args
		if runF != nil {
			return runF(opts)
		}
		return serveRun(opts)
	})
}

// serveRun refuses an address the dashboard must not listen on, before
// anything is opened, then runs agentlock-mcp in place of this process
// with the command line; it returns only the error of a hand-over that
// could not happen.
func serveRun(opts *ServeOptions) error {
	if err := opts.Check(); err != nil {
		return err
	}
	return opts.HandOver("agentlock serve", opts.Args)
}

// serverRun runs agentlock-mcp, which serves command (agentlock mcp,
// agentlock serve), in place of this process with the command line args.
func serverRun(command string, args []string) error {
	p := thisProcess(args)
	bin := workspace.MCPProgramFor(p)
	if bin == "" {
		return fmt.Errorf("%s is served by %s, which is neither beside this agentlock nor on PATH: %s",
			command, workspace.MCPProgram, workspace.MCPInstall(moduleVersion()))
	}
	return execIn(bin, p, nil)
}
