// Package cmdutil holds the command line's helpers that are about cobra
// and pflag rather than about agentlock, as gh's pkg/cmdutil does: a
// duration flag that takes plain seconds, suggestions for a mistyped
// flag, and the hint that follows a usage error.
package cmdutil

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/workspace"
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

// Type names the flag's kind in help.
func (s seconds) Type() string { return "duration" }

// Set parses plain seconds or a Go duration, zero or more. NaN, an
// infinity, or more seconds than a duration holds are refused: converted,
// they would become a negative duration, refused with a message about a
// value nobody typed.
func (s seconds) Set(v string) error {
	d, err := workspace.ParseSeconds(v, 0, math.MaxInt64)
	switch {
	case errors.Is(err, workspace.ErrNotDuration):
		return fmt.Errorf("%q is neither seconds (90) nor a duration (90s, 2m)", v)
	case errors.Is(err, workspace.ErrBelowMin):
		return fmt.Errorf("%q: must not be negative", v)
	case err != nil:
		return fmt.Errorf("%q is no number of seconds a duration can have (at most %.0f)", v, time.Duration(math.MaxInt64).Seconds())
	}
	*s.d = d
	return nil
}

// SecondsVar defines a duration flag that accepts plain seconds too.
func SecondsVar(fs *pflag.FlagSet, d *time.Duration, name, usage string) {
	fs.Var(seconds{d: d}, name, usage)
}

// SuggestFlag adds to pflag's error of a misspelled flag the closest flag
// of cmd ("unknown flag: --sesion; did you mean --session?"); other errors
// come back as they are.
func SuggestFlag(cmd *cobra.Command, err error) error {
	msg := err.Error()
	const prefix = "unknown flag: --"
	if name, ok := strings.CutPrefix(msg, prefix); ok {
		if best := ClosestFlag(cmd, name); best != "" {
			return fmt.Errorf("%s; did you mean --%s?", msg, best)
		}
	}
	return err
}

// ClosestFlag is the name of cmd's flag nearest to name (hidden flags
// aside), within the suggestion distance cobra uses for commands; "" when
// none is.
func ClosestFlag(cmd *cobra.Command, name string) string {
	best, bestDist := "", cmd.Root().SuggestionsMinimumDistance+1
	visit := func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		if d := EditDistance(name, f.Name); d < bestDist {
			best, bestDist = f.Name, d
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	return best
}

// EditDistance is the Levenshtein distance between a and b.
func EditDistance(a, b string) int {
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

// HelpHint is what follows a usage error: the command's usage line, and
// where its full help is.
func HelpHint(cmd *cobra.Command) string {
	if cmd.HasParent() && cmd.Runnable() {
		return fmt.Sprintf("usage: %s\nsee '%s --help'", cmd.UseLine(), cmd.CommandPath())
	}
	return fmt.Sprintf("see '%s --help'", cmd.CommandPath())
}

// WrapArgs passes every error of the argument checks of cmd and of the
// commands below it through wrap (to make it a usage error, say).
func WrapArgs(cmd *cobra.Command, wrap func(error) error) {
	if check := cmd.Args; check != nil {
		cmd.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				return wrap(shortenArgs(err, args))
			}
			return nil
		}
	}
	for _, sub := range cmd.Commands() {
		WrapArgs(sub, wrap)
	}
}

// shortenArgs is err with every argument longer than core.MaxShownPath
// that its message echoes (cobra's "unknown command", say) shortened as
// core.ShortPath shortens a path: a 5 KB argument stays one short line.
func shortenArgs(err error, args []string) error {
	if errors.As(err, new(*report.UsageError)) {
		return err // agentlock's own, which shortens what it echoes
	}
	msg := err.Error()
	for _, a := range args {
		if len(a) > core.MaxShownPath && strings.Contains(msg, a) {
			msg = strings.ReplaceAll(msg, a, core.ShortPath(a))
		}
	}
	if msg == err.Error() {
		return err
	}
	return errors.New(msg)
}

// AskedBool reports whether the command line args sets the boolean flag
// name (--name, --name=true, --name=1) before any "--", for a line whose
// flags could not be parsed (a misspelled flag, a bad value).
func AskedBool(args []string, name string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--" + name, "--" + name + "=true", "--" + name + "=1":
			return true
		}
	}
	return false
}

// GlobalFlags gives root the flags of every agentlock command line
// (--json, --session, --timeout; --session-id, the Python scripts'
// spelling, is --session), silences cobra's own usage and error printing
// (Fail prints them), makes a flag error a usage error (FlagError), and
// returns the flags for the configuration to read (cliconfig.Lazy). Every
// program of agentlock builds its root with it, so that a command line
// handed over from one to another parses the same.
func GlobalFlags(root *cobra.Command) *pflag.FlagSet {
	root.SilenceUsage = true
	root.SilenceErrors = true
	flags := root.PersistentFlags()
	flags.Bool("json", false, "print one JSON object per line for machines")
	flags.String("session", "", "session id (default $AGENTLOCK_SESSION, then the agent's own id; see agentlock whoami)")
	flags.String("timeout", "", "staleness timeout, in seconds or as a duration like 2m (default $AGENTLOCK_TIMEOUT or 120); never shorter than the project's (.agent-registry/timeout)")
	root.SetGlobalNormalizationFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "session-id" {
			name = "session"
		}
		return pflag.NormalizedName(name)
	})
	root.SetFlagErrorFunc(FlagError)
	return flags
}
