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

// helpUsage makes "agentlock help <word>" for a word that names no command
// a usage error, as "agentlock <word>" is, instead of cobra's exit 0 with
// the root's page: an agent that typed "help aquire" is told so and
// offered "acquire".
func helpUsage(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	for _, c := range root.Commands() {
		if c.Name() != "help" || c.Run == nil {
			continue
		}
		show := c.Run
		c.Run = nil
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if target, rest, err := root.Find(args); err == nil && len(rest) > 0 {
				if target == root {
					return unknownCommand(root, rest[0])
				}
				return usagef("%q is no command of %s: see '%s --help'", rest[0], target.CommandPath(), target.CommandPath())
			}
			show(cmd, args)
			return nil
		}
	}
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
