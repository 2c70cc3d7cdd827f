// Command agentlock gives AI coding agents that share a repository advisory
// locks on paths that outlive the one-shot shell command that took them,
// and a registry of who works on what.
//
// See README.md for the workflow, exit codes and configuration.
package main

import (
	"os"
)

func main() {
	f := &factory{
		In:     os.Stdin,
		Out:    os.Stdout,
		ErrOut: os.Stderr,
	}
	os.Exit(execute(f, os.Args[1:]))
}
