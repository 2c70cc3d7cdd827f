package main

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/agentlock/agentlock/core"
)

// factory carries what every command needs from the outside world, so that
// commands read no globals: the IO streams.
type factory struct {
	In     io.Reader
	Out    io.Writer
	ErrOut io.Writer
}

// Exit codes: the contract agents script against (see README.md).
const (
	exitOK       = 0 // done
	exitRefused  = 1 // held by another session, not the owner, no such lock or session
	exitUsage    = 2 // missing or malformed arguments
	exitEnvError = 3 // I/O or permission error, corrupt file, unsupported file system
	// exitDeny is the hook's refusal of an edit: the code every harness
	// reads as "block this tool call".
	exitDeny = 2
)

// usageError is a mistake in the command line; the usage is printed with it.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// runError marks an error returned while a command ran, as opposed to one
// cobra raised while parsing the command line (which is a usage error).
type runError struct{ err error }

func (e *runError) Error() string { return e.err.Error() }
func (e *runError) Unwrap() error { return e.err }

// runE adapts a command's run function so that its errors are told apart
// from cobra's parsing errors.
func runE(run func(cmd *cobra.Command, args []string) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := run(cmd, args); err != nil {
			return &runError{err: err}
		}
		return nil
	}
}

// exitCode decides the process exit code for the error a command returned.
// It is the one place where errors become exit codes.
func exitCode(err error) int {
	var usage *usageError
	var run *runError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errHookDenied):
		return exitDeny
	case errors.As(err, &usage), errors.Is(err, core.ErrInvalidSession), !errors.As(err, &run):
		return exitUsage
	case errors.Is(err, errSilentRefusal),
		errors.Is(err, core.ErrLocked), errors.Is(err, core.ErrNotOwner), errors.Is(err, core.ErrNoLock),
		errors.Is(err, core.ErrNoSession):
		return exitRefused
	default:
		return exitEnvError
	}
}

// errSilentRefusal is returned by a command that has already reported a
// refusal on its output and only needs the exit code.
var errSilentRefusal = errors.New("refused")

// newRootCmd builds the command tree. It is built anew for every process.
func newRootCmd(f *factory) *cobra.Command {
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
				return usagef("unknown command %q", args[0])
			}
			return usagef("a command is required")
		},
		RunE: func(cmd *cobra.Command, args []string) error { return nil },
	}
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetOut(f.Out)
	root.SetErr(f.ErrOut)
	root.SetIn(f.In)
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
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error {
		return &usageError{msg: err.Error()}
	})

	root.AddCommand(
		newAcquireCmd(f),
		newReleaseCmd(f),
		newCheckCmd(f),
		newHeartbeatCmd(f),
		newStatusCmd(f),
		newRegisterCmd(f),
		newUpdateCmd(f),
		newFinishCmd(f),
		newHandoffCmd(f),
		newShowCmd(f),
		newInitCmd(f),
		newUninitCmd(f),
		newHookCmd(f),
		newWhoamiCmd(f),
		newEnvCmd(f),
		newDocsCmd(f),
	)
	return root
}

// execute runs the command line args and returns the exit code. Errors are
// printed as one line on stderr, followed by the usage for usage errors.
func execute(f *factory, args []string) int {
	root := newRootCmd(f)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	code := exitCode(err)
	switch {
	case err == nil, errors.Is(err, errSilentRefusal), errors.Is(err, errHookDenied):
	case code == exitUsage:
		fmt.Fprintf(f.ErrOut, "agentlock: %s\n\n%s", err, strings.TrimLeft(cmd.UsageString(), "\n"))
	default:
		fmt.Fprintf(f.ErrOut, "agentlock: %s\n", err)
	}
	// An agent reading --json output gets the error on stdout too.
	if asJSON, _ := cmd.Flags().GetBool("json"); asJSON && err != nil && !errors.Is(err, errSilentRefusal) && !errors.Is(err, errHookDenied) {
		writeJSON(f.Out, errorRecord{Error: err.Error(), ExitCode: code})
	}
	return code
}
