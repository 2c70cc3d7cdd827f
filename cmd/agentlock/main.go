// Command agentlock gives AI coding agents that share a repository advisory
// locks on paths that outlive the one-shot shell command that took them,
// and a registry of who works on what.
//
// The command line is thin: each command parses its arguments, calls
// package workspace (the policy) or core (the engine), and prints. See
// README.md for the workflow, exit codes and configuration.
package main

import (
	"fmt"
	"os"
	"time"
)

func main() {
	if err := unsupported(); err != nil {
		fmt.Fprintln(os.Stderr, "agentlock:", err)
		os.Exit(exitEnvError)
	}
	f := &Factory{
		IO:  &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr},
		Now: time.Now,
	}
	os.Exit(execute(f, os.Args[1:]))
}
