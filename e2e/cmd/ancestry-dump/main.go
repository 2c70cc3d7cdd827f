//go:build linux

// Command ancestry-dump appends one JSON line describing its caller to a
// file: its chain of ancestor processes (from its parent up), the
// session-naming environment variables, and its stdin when -stdin is given
// (a hook's payload). Hooks and scripted shell commands run it to show
// which processes an agent CLI puts between itself and them.
//
//	ancestry-dump [-stdin] <file> <label>
package main

import (
	"fmt"
	"os"

	"github.com/agentlock/agentlock/e2e/ancestry"
)

func main() {
	if err := ancestry.Dump(os.Args[1:], os.Stdin, os.Environ()); err != nil {
		fmt.Fprintln(os.Stderr, "ancestry-dump:", err)
		os.Exit(1)
	}
}
