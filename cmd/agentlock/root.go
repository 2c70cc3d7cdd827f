package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentlock/agentlock/report"
)

// newRootCmd builds the command tree for one process, and sets f.Config to
// resolve the configuration from the tree's flags.
func newRootCmd(f *Factory) *cobra.Command {
	root := &cobra.Command{
		Use:   "agentlock",
		Short: "Advisory path locks and a shared registry for AI coding agents",
		Long: `agentlock lets several AI coding agents work in one repository without
overwriting each other. A lock names the session that owns a path; it lives in
a lock file, so it outlives the one-shot command that took it, and expires
when its owner stops renewing it.

Locks are advisory: they protect agents that consult agentlock, not writes of
programs that ignore it.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// A bare "agentlock" or an unknown command is a usage error.
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return unknownCommand(cmd, args[0])
			}
			return usagef("a command is required")
		},
		RunE: func(cmd *cobra.Command, args []string) error { return nil },
	}
	root.Version = moduleVersion()
	root.SetVersionTemplate("agentlock {{.Version}}\n")
	root.SuggestionsMinimumDistance = 2
	root.SetOut(f.IO.Out)
	root.SetErr(f.IO.ErrOut)
	root.SetIn(f.IO.In)
	flags := root.PersistentFlags()
	flags.Bool("json", false, "print one JSON object per line for machines")
	flags.String("session", "", "session id (default $AGENTLOCK_SESSION, then the agent's own id; see agentlock whoami)")
	flags.String("timeout", "", "staleness timeout, in seconds or as a duration like 2m (default $AGENTLOCK_TIMEOUT or 120)")
	// The Python scripts spelled the flag --session-id.
	root.SetGlobalNormalizationFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "session-id" {
			name = "session"
		}
		return pflag.NormalizedName(name)
	})
	root.SetFlagErrorFunc(flagError)
	f.Config = lazyConfig(flags, f.Now)

	root.AddCommand(
		newCmdAcquire(f, nil),
		newCmdRelease(f, nil),
		newCmdCheck(f, nil),
		newCmdHeartbeat(f, nil),
		newCmdHeartbeatLoop(f, nil),
		newCmdStatus(f, nil),
		newCmdRegister(f, nil),
		newCmdUpdate(f, nil),
		newCmdFinish(f, nil),
		newCmdHandoff(f, nil),
		newCmdShow(f, nil),
		newCmdInit(f, nil),
		newCmdUninit(f, nil),
		newCmdDoctor(f, nil),
		newCmdHook(f, nil),
		newCmdGuard(f, nil),
		newCmdWhoami(f, nil),
		newCmdEnv(f, nil),
		newCmdVersion(f, nil),
		newCmdDocs(f),
	)
	completionUsage(root)
	usageArgs(root)
	return root
}

// usageArgs makes every argument-count error of the tree a usage error.
func usageArgs(cmd *cobra.Command) {
	if check := cmd.Args; check != nil {
		cmd.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				var usage *usageError
				if errors.As(err, &usage) {
					return err
				}
				return &usageError{err: err}
			}
			return nil
		}
	}
	for _, sub := range cmd.Commands() {
		usageArgs(sub)
	}
}

// execute runs the command line args and returns the exit code. Errors are
// printed as one line on stderr; a usage error is followed by where its usage is.
func execute(f *Factory, args []string) int {
	root := newRootCmd(f)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	code := exitCode(err)
	switch {
	case err == nil, printed(err):
	case code == exitUsage && errors.As(err, new(*lineUsageError)):
		// A refusal that names the command to run instead is the whole
		// message: one line.
		fmt.Fprintf(f.IO.ErrOut, "agentlock: %s\n", report.Escape(err.Error()))
	case code == exitUsage:
		fmt.Fprintf(f.IO.ErrOut, "agentlock: %s\n%s\n", report.Escape(err.Error()), helpHint(cmd))
	default:
		fmt.Fprintf(f.IO.ErrOut, "agentlock: %s\n", report.EscapeLines(explain(err)))
	}
	// An agent reading --json output gets the error on stdout too.
	if asJSON, _ := cmd.Flags().GetBool("json"); (asJSON || askedJSON(args)) && err != nil && !printed(err) {
		writeJSON(f.IO.Out, report.Error{Error: explain(err), ExitCode: code})
	}
	return code
}

// askedJSON reports whether the command line asks for --json, for a line
// whose flags could not be parsed (a misspelled flag, a bad value): its
// error is still a JSON record.
func askedJSON(args []string) bool {
	for _, a := range args {
		switch a {
		case "--":
			return false
		case "--json", "--json=true", "--json=1":
			return true
		}
	}
	return false
}
