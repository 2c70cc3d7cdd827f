package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/spf13/pflag"

	"github.com/agentlock/agentlock/internal/cliconfig"
	"github.com/agentlock/agentlock/workspace"
)

// config is the configuration of one invocation (package cliconfig), with
// the command line's own methods.
type config cliconfig.Config

// frontVar tells the etcd build which program handed the command line over
// to it (see delegate), so that the checks of the agentlock on PATH compare
// that one, the program hooks run.
const frontVar = "AGENTLOCK_FRONT"

// selfProgram is the program that hooks should find on PATH: this one, or
// the one that handed over to it.
func selfProgram() (string, error) {
	if front := os.Getenv(frontVar); etcdBuild && front != "" {
		return front, nil
	}
	self, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("find this program's file: %w", err)
	}
	return self, nil
}

// lazyConfig returns the Factory's Config and Lenient functions: the
// configuration is resolved from flags (parsed by then) on the first call
// of either, and kept for the rest of this process. Config refuses a
// configuration with Problems (a usage error naming the first); Lenient
// returns it with the defaults in their place, for the commands that must
// run whatever the configuration (hooks, doctor, version, whoami, env).
// done closes what the configuration opened (the stores' connections)
// once the command is done.
func lazyConfig(flags *pflag.FlagSet, now func() time.Time) (strict, lenient func() (*config, error), done func() error) {
	var c *config
	var err error
	lenient = func() (*config, error) {
		if c == nil && err == nil {
			c, err = loadConfig(flags, now)
		}
		return c, err
	}
	strict = func() (*config, error) {
		c, err := lenient()
		if err == nil && len(c.Problems) > 0 {
			return nil, &usageError{err: c.Problems[0]}
		}
		return c, err
	}
	done = func() error {
		if c == nil {
			return nil
		}
		return c.Settings.Backends.Close()
	}
	return strict, lenient, done
}

// loadConfig resolves the configuration (cliconfig.Load).
func loadConfig(flags *pflag.FlagSet, now func() time.Time) (*config, error) {
	c, err := cliconfig.Load(flags, now)
	return (*config)(c), err
}

// flagConflict refuses, in one line, a --session that is not the session
// of the agent this runs for (sessionarg.Args.FlagConflict). run is the
// command to suggest instead, without --session.
func (c *config) flagConflict(run string) error { return argErr(sessionArgs(c).FlagConflict(run)) }

// boundedDuration reads a setting of bounded duration (see
// workspace.ParseDuration).
var boundedDuration = workspace.ParseDuration

// warnProblems prints a warning per invalid setting, for the commands that
// run anyway (with the default in its place).
func warnProblems(io *IOStreams, c *config) {
	for _, p := range c.Problems {
		warnf(io, "%v; using the default here, but other commands refuse to run until it is fixed", p)
	}
}

// workWorkspace returns the workspace of the working directory, for the
// commands that take no path.
func (c *config) workWorkspace(ctx context.Context) (*workspace.Workspace, error) {
	return (*cliconfig.Config)(c).WorkWorkspace(ctx)
}

// workConfig resolves the configuration and the workspace of the working
// directory, for the commands that need nothing else first.
func workConfig(ctx context.Context, get func() (*config, error)) (*config, *workspace.Workspace, error) {
	c, err := get()
	if err != nil {
		return nil, nil, err
	}
	ws, err := c.workWorkspace(ctx)
	return c, ws, err
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
