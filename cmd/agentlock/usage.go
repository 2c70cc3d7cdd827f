package main

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// seconds is a duration flag that also accepts plain seconds ("90", "1.5")
// besides Go durations ("90s", "2m"): agents type both.
type seconds struct{ d *time.Duration }

// String is "" for no duration, so that help shows no default.
func (s seconds) String() string {
	if s.d == nil || *s.d == 0 {
		return ""
	}
	return s.d.String()
}
func (s seconds) Type() string { return "duration" }

// Set parses plain seconds or a Go duration, zero or more. NaN, an
// infinity, or more seconds than a duration holds are refused: converted,
// they would become a negative duration, refused with a message about a
// value nobody typed.
func (s seconds) Set(v string) error {
	if secs, err := strconv.ParseFloat(v, 64); err == nil || errors.Is(err, strconv.ErrRange) {
		switch {
		case math.IsNaN(secs) || math.IsInf(secs, 0) || secs > float64(math.MaxInt64)/float64(time.Second):
			return fmt.Errorf("%q is no number of seconds a wait can have (at most %.0f)", v, float64(math.MaxInt64)/float64(time.Second))
		case secs < 0:
			return fmt.Errorf("%q: must not be negative", v)
		}
		*s.d = time.Duration(secs * float64(time.Second))
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("%q is neither seconds (90) nor a duration (90s, 2m)", v)
	}
	if d < 0 {
		return fmt.Errorf("%q: must not be negative", v)
	}
	*s.d = d
	return nil
}

// secondsVar defines a duration flag that accepts plain seconds too.
func secondsVar(fs *pflag.FlagSet, d *time.Duration, name, usage string) {
	fs.Var(seconds{d: d}, name, usage)
}

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
	msg := err.Error()
	const prefix = "unknown flag: --"
	if name, ok := strings.CutPrefix(msg, prefix); ok {
		if best := closestFlag(cmd, name); best != "" {
			return usagef("%s; did you mean --%s?", msg, best)
		}
	}
	return &usageError{err: err}
}

// closestFlag is the name of cmd's flag nearest to name, within the
// suggestion distance cobra uses for commands; "" when none is.
func closestFlag(cmd *cobra.Command, name string) string {
	best, bestDist := "", cmd.Root().SuggestionsMinimumDistance+1
	visit := func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		if d := editDistance(name, f.Name); d < bestDist {
			best, bestDist = f.Name, d
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	return best
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}

// helpHint is what follows a usage error: the command's usage line, and
// where its full help is.
func helpHint(cmd *cobra.Command) string {
	if cmd.HasParent() && cmd.Runnable() {
		return fmt.Sprintf("usage: %s\nsee '%s --help'", cmd.UseLine(), cmd.CommandPath())
	}
	return fmt.Sprintf("see '%s --help'", cmd.CommandPath())
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
