package main

import (
	"io"
	"time"
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
	// closeConfig closes what Config opened; set with Config.
	closeConfig func() error
}
