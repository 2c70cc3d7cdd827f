package main

import (
	"errors"
	"fmt"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/report"
)

// Exit codes: the contract agents script against (package report
// classifies every front end's errors; see README.md).
const (
	exitOK       = report.ExitOK
	exitRefused  = report.ExitRefused
	exitUsage    = report.ExitUsage
	exitEnvError = report.ExitEnv
	// exitDeny is the hook's refusal of an edit: the code every harness
	// reads as "block this tool call".
	exitDeny = 2
	// exitHookLine is a malformed hook command line: an error every
	// harness reports without blocking the tool call (never exitDeny).
	exitHookLine = 1
)

// usageError is a mistake in the command line; the usage is printed with it.
type usageError struct{ err error }

func (e *usageError) Error() string        { return e.err.Error() }
func (e *usageError) Unwrap() error        { return e.err }
func (e *usageError) Is(target error) bool { return target == report.ErrUsage }

// usagef returns a usage error.
func usagef(format string, args ...any) error {
	return &usageError{err: fmt.Errorf(format, args...)}
}

// lineUsageError is a usage error (exit 2) said in one line, without the
// usage, because the line already names the command to run instead: a
// session id typed that is not the session known here, a renewal loop
// with nothing to watch.
type lineUsageError struct{ msg string }

func (e *lineUsageError) Error() string        { return e.msg }
func (e *lineUsageError) Is(target error) bool { return target == report.ErrUsage }

// errSilentRefusal is returned by a command that has already reported a
// refusal on its output and only needs the exit code.
var errSilentRefusal = fmt.Errorf("%w (reported)", report.ErrRefused)

// errHookDenied: the pre-edit hook refused the edit and said why on stderr.
var errHookDenied = errors.New("edit denied")

// exitCode decides the process exit code for the error a command returned:
// report.ExitCode's class, but for the hook's denial of an edit.
func exitCode(err error) int {
	if errors.Is(err, errHookDenied) {
		return exitDeny
	}
	return report.ExitCode(err)
}

// printed reports whether a command has already told its user about err.
func printed(err error) bool {
	return errors.Is(err, errSilentRefusal) || errors.Is(err, errHookDenied)
}

// explain adds to an error what a person can do about it.
func explain(err error) string {
	msg := err.Error()
	if errors.Is(err, core.ErrCorrupt) {
		msg += "; inspect it, then empty it with 'agentlock release --force'"
	}
	return msg
}
