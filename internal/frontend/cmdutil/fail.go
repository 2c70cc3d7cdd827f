package cmdutil

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/report"
)

// Fail tells the user of the command line args that its command cmd
// failed with err, and returns the process's exit code (report.ExitCode,
// the one classification).
// The error is one line on errOut; a usage error is followed by where its
// usage is, unless it is said in one line (report.UsageError.Line). With
// --json the error record goes to out too. An error already reported
// (report.Reported) only gives its code. nil is exit 0.
func Fail(out, errOut io.Writer, cmd *cobra.Command, args []string, err error) int {
	code := report.ExitCode(err)
	switch {
	case err == nil, report.Reported(err):
	case code == report.ExitUsage && oneLine(err):
		// A refusal that names the command to run instead is the whole
		// message: one line.
		fmt.Fprintf(errOut, "agentlock: %s\n", report.Escape(Unprefixed(err.Error())))
	case errors.As(err, new(*report.HookLineError)):
		// A malformed hook line: agentlock's own problem, said as such
		// (report.HookLineError, which never exits as a denial).
		fmt.Fprintf(errOut, "agentlock: malformed hook command (%s): nothing is checked until it is fixed; run 'agentlock init --check' to see the hooks agentlock writes\n%s\n",
			report.Escape(Unprefixed(err.Error())), HelpHint(cmd))
	case code == report.ExitUsage:
		fmt.Fprintf(errOut, "agentlock: %s\n%s\n", report.Escape(Unprefixed(err.Error())), HelpHint(cmd))
	default:
		fmt.Fprintf(errOut, "agentlock: %s\n", report.EscapeLines(Unprefixed(report.Explain(err))))
	}
	// An agent reading --json output gets the error on stdout too.
	if asJSON, _ := cmd.Flags().GetBool("json"); (asJSON || AskedBool(args, "json")) && err != nil && !report.Reported(err) {
		_ = report.WriteJSON(out, report.Error{Error: report.Explain(err), ExitCode: code})
	}
	return code
}

// oneLine reports whether err holds a usage error said in one line
// (report.UsageError.Line), however wrapped.
func oneLine(err error) bool {
	var usage *report.UsageError
	for errors.As(err, &usage) {
		if usage.Line {
			return true
		}
		err = usage.Err
	}
	return false
}

// Unprefixed is an error message without a leading "agentlock: ", which
// the line printing it already starts with.
func Unprefixed(msg string) string {
	if rest, ok := strings.CutPrefix(msg, "agentlock: "); ok {
		return rest
	}
	return msg
}

// UsageArgs makes every argument-count error of the tree below cmd a
// usage error (report.UsageError).
func UsageArgs(cmd *cobra.Command) {
	WrapArgs(cmd, func(err error) error {
		if errors.As(err, new(*report.UsageError)) {
			return err
		}
		return &report.UsageError{Err: err}
	})
}

// UnknownCommand is the usage error of a command line whose first word
// is no command of root, with cobra's suggestions.
func UnknownCommand(root *cobra.Command, name string) error {
	if s := root.SuggestionsFor(name); len(s) > 0 {
		return report.UsageErrorf("unknown command %q; did you mean %q?", name, s[0])
	}
	return report.UsageErrorf("unknown command %q", name)
}

// FlagError turns pflag's error into a usage error, adding the closest
// flag of cmd for a misspelled one (SuggestFlag); a cobra FlagErrorFunc.
func FlagError(cmd *cobra.Command, err error) error {
	return &report.UsageError{Err: SuggestFlag(cmd, err)}
}

// CompletionUsage adds cobra's completion command to root now, rather
// than when the tree runs, so that a shell it does not know is a usage
// error like any other instead of a help page, and so that its usage line
// names the shells.
func CompletionUsage(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() == "completion" {
			c.Use = "completion bash|zsh|fish|powershell"
			c.Args = cobra.ArbitraryArgs
			c.RunE = func(cmd *cobra.Command, args []string) error {
				if len(args) == 0 {
					return report.UsageErrorf("a shell is required: bash, zsh, fish or powershell")
				}
				return report.UsageErrorf("unknown shell %q: bash, zsh, fish or powershell", args[0])
			}
		}
	}
}

// HelpUsage makes "agentlock help <word>" for a word that names no command
// a usage error, as "agentlock <word>" is, instead of cobra's exit 0 with
// the root's page: an agent that typed "help aquire" is told so and
// offered "acquire".
func HelpUsage(root *cobra.Command) {
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
					return UnknownCommand(root, rest[0])
				}
				return report.UsageErrorf("%q is no command of %s: see '%s --help'", rest[0], target.CommandPath(), target.CommandPath())
			}
			show(cmd, args)
			return nil
		}
	}
}
