// The runtime's periodic GOMAXPROCS update (Go 1.25) starts a goroutine,
// and with it a thread, in every process: a one-shot lock call or hook
// lives a few milliseconds, long before any update could matter, and pays
// for that thread (issue 33, docs/speed.md). Off here; GOMAXPROCS is still
// set from the CPU limit at start.

//go:debug updatemaxprocs=0

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

	"github.com/agentlock/agentlock/internal/frontend/cmdutil"
	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/workspace"
)

func main() {
	delegate(os.Args[1:])
	cmdutil.OneShotMemory()
	if err := unsupported(); err != nil {
		fmt.Fprintln(os.Stderr, "agentlock:", err)
		os.Exit(report.ExitEnv)
	}
	f := &Factory{
		IO:  &IOStreams{In: os.Stdin, Out: os.Stdout, ErrOut: os.Stderr},
		Now: time.Now,
	}
	os.Exit(execute(f, os.Args[1:]))
}

// delegate hands the command line over to agentlock-etcd when a store is
// configured for it (workspace.NeedsEtcdBuild); it returns only when it
// did not.
func delegate(args []string) {
	if p := thisProcess(args); workspace.NeedsEtcdBuild(p) {
		handedOver(handOver(p, nil))
	}
}

// thisProcess is this process with the command line args, for a hand-over.
func thisProcess(args []string) workspace.Process {
	wd, _ := os.Getwd()
	return workspace.Process{Args: args, Env: os.Environ(), Dir: wd}
}

// handedOver ends the process when a hand-over to agentlock-etcd failed.
func handedOver(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "agentlock:", err)
		os.Exit(report.ExitEnv)
	}
}
