package main

import (
	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/internal/cmdutil"
)

// unknownCommand is the usage error of a command line whose first word
// is no command, with cobra's suggestions.
func unknownCommand(root *cobra.Command, name string) error {
	if s := root.SuggestionsFor(name); len(s) > 0 {
		return usagef("unknown command %q; did you mean %q?", name, s[0])
	}
	return usagef("unknown command %q", name)
}

// flagError turns pflag's error into a usage error, adding the closest
// flag of cmd for a misspelled one.
func flagError(cmd *cobra.Command, err error) error {
	return &usageError{err: cmdutil.SuggestFlag(cmd, err)}
}

// completionUsage adds cobra's completion command now, rather than when
// the tree runs, so that a shell it does not know is a usage error like
// any other instead of a help page.
func completionUsage(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Args = cobra.ArbitraryArgs
			c.RunE = func(cmd *cobra.Command, args []string) error {
				if len(args) == 0 {
					return usagef("a shell is required: bash, zsh, fish or powershell")
				}
				return usagef("unknown shell %q: bash, zsh, fish or powershell", args[0])
			}
		}
	}
}
