package main

import (
	"errors"
	"fmt"

	"github.com/agentlock/agentlock/core"
)

// Exit codes: the contract agents script against (see README.md).
const (
	exitOK       = 0 // done
	exitRefused  = 1 // held by another session, not the owner, no such lock or session
	exitUsage    = 2 // missing or malformed arguments
	exitEnvError = 3 // I/O or permission error, corrupt file, unsupported file system, anything unforeseen
	// exitDeny is the hook's refusal of an edit: the code every harness
	// reads as "block this tool call".
	exitDeny = 2
	// exitHookLine is a malformed hook command line: an error every
	// harness reports without blocking the tool call (never exitDeny).
	exitHookLine = 1
)

// usageError is a mistake in the command line; the usage is printed with it.
type usageError struct{ err error }

func (e *usageError) Error() string { return e.err.Error() }
func (e *usageError) Unwrap() error { return e.err }

// usagef returns a usage error.
func usagef(format string, args ...any) error {
	return &usageError{err: fmt.Errorf(format, args...)}
}

// lineUsageError is a usage error (exit 2) said in one line, without the
// usage, because the line already names the command to run instead: a
// session id typed that is not the session known here, a renewal loop
// with nothing to watch.
type lineUsageError struct{ msg string }

func (e *lineUsageError) Error() string { return e.msg }

// errSilentRefusal is returned by a command that has already reported a
// refusal on its output and only needs the exit code.
var errSilentRefusal = errors.New("refused")

// errHookDenied: the pre-edit hook refused the edit and said why on stderr.
var errHookDenied = errors.New("edit denied")

// exitCode decides the process exit code for the error a command returned.
// It is the one place where errors become exit codes. A usage error must be
// one: an error nobody foresaw is an environment error, never a usage error,
// so that an agent is not told to fix a command line that was right.
func exitCode(err error) int {
	var usage *usageError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, errHookDenied):
		return exitDeny
	case errors.As(err, &usage), errors.As(err, new(*lineUsageError)), errors.Is(err, core.ErrInvalidSession), errors.Is(err, core.ErrInvalidPath):
		return exitUsage
	case errors.Is(err, errSilentRefusal),
		errors.Is(err, core.ErrLocked), errors.Is(err, core.ErrNotOwner), errors.Is(err, core.ErrNoLock),
		errors.Is(err, core.ErrNoSession):
		return exitRefused
	default:
		return exitEnvError
	}
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
