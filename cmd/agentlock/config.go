package main

import (
	"context"
	"os"

	"github.com/agentlock/agentlock/internal/frontend/cliconfig"
	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/workspace"
)

// config is the configuration of one invocation (package cliconfig).
type config = cliconfig.Config

// selfProgram is the program that hooks should find on PATH
// (workspace.SelfProgram).
func selfProgram() (string, error) { return workspace.SelfProgram(os.Environ(), os.Executable) }

// workIn is the glue of the commands that work in the workspace of the
// working directory: that workspace, opened once by the invocation's
// session service, and the printer of the invocation.
func workIn(ctx context.Context, io *IOStreams, c *config) (*workspace.Workspace, report.Printer, error) {
	ws, err := c.Service().Workspace(ctx)
	return ws, newPrinter(io, c), err
}

// workConfig resolves the configuration, then what workIn gives, for the
// commands that need nothing else first.
func workConfig(ctx context.Context, io *IOStreams, get func() (*config, error)) (*config, *workspace.Workspace, report.Printer, error) {
	c, err := get()
	if err != nil {
		return nil, nil, report.Printer{}, err
	}
	ws, out, err := workIn(ctx, io, c)
	return c, ws, out, err
}

// configDir resolves the configuration and the real working directory, for
// the commands that open the project themselves (init, uninit, doctor).
func configDir(get func() (*config, error)) (*config, string, error) {
	c, err := get()
	if err != nil {
		return nil, "", err
	}
	wd, err := workspace.WorkDir()
	return c, wd, err
}
