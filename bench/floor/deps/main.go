// Command deps is a floor for bench/run.sh: a static Go process that links
// the command-line and configuration libraries of the design card (cobra,
// viper), uses neither, prints one line and exits. Every package linked
// into a binary runs its initialisation at every start, so no agentlock
// command can start faster than this.
package main

import (
	"os"

	_ "github.com/spf13/cobra"
	_ "github.com/spf13/viper"
)

func main() { os.Stdout.WriteString("hello\n") }
