package main

import (
	"io"
	"time"

	"github.com/spf13/cobra"
)

// IOStreams are the standard streams a command reads and writes.
type IOStreams struct {
	In     io.Reader
	Out    io.Writer // data: results, JSON lines
	ErrOut io.Writer // diagnostics: refusals, warnings, errors
}

// Factory carries what every command needs from the outside world, so that
// commands read no globals: the IO streams, the clock, and the
// configuration of this invocation, resolved lazily — from the flags and
// the environment, fresh for every process — the first time a command asks.
type Factory struct {
	IO *IOStreams
	// Now is the clock of lock timestamps and registry times.
	Now func() time.Time
	// Config returns the invocation's configuration; set by newRootCmd,
	// whose flags it reads.
	Config func() (*config, error)
	// Lenient is Config for the commands that run whatever the
	// configuration: invalid settings are in config.Problems, their
	// defaults in place.
	Lenient func() (*config, error)
	// Args is the invocation's command line, without the program name:
	// what a command hands over to another build of agentlock (see
	// delegate); set by execute.
	Args []string
	// Settings is Lenient without the agents (cliconfig.LoadSettings),
	// for version, which reads nothing else; set with Config.
	Settings func() (*config, error)
	// closeConfig closes what Config opened; set with Config.
	closeConfig func() error
	// alone is set by newRootCmd when the tree is one command, the one the
	// command line runs (onlyCommand): only that command's own help can
	// show its long description then (describe).
	alone bool
}

// describe gives cmd the long description that long returns: at once when
// the tree is whole (help, the reference and completion read every
// command's), else only when cmd's own help shows it (agentlock hook
// --help), so that a process that runs the command does not build a text
// it never prints (the hook's names every agent and how each denies: a
// tenth of a millisecond of every pre-edit hook, docs/speed.md).
func (f *Factory) describe(cmd *cobra.Command, long func() string) {
	if !f.alone {
		cmd.Long = long()
		return
	}
	cmd.SetHelpFunc(func(c *cobra.Command, args []string) {
		c.Long = long()
		c.SetHelpFunc(nil) // the help the tree gives every other command
		c.HelpFunc()(c, args)
	})
}
