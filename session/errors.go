package session

import (
	"fmt"

	"github.com/agentlock/agentlock/workspace"
)

// The refusals of a gate (see Gate): a path agentlock coordinates that
// could not be checked. A front end words them for its user.
type (
	// UnresolvedError: the real path of a path of the edit could not be
	// resolved.
	UnresolvedError struct{ Err error }
	// ProblemError: a setting is invalid (the first of Gate.Problems).
	ProblemError struct{ Err error }
	// NoSessionError: no session is known to lock Path for.
	NoSessionError struct{ Path string }
	// ConflictError: Conflict's file is also changed in another worktree,
	// and its repository denies such edits. The locks were taken.
	ConflictError struct{ Conflict workspace.Conflict }
)

func (e *UnresolvedError) Error() string {
	return fmt.Sprintf("cannot resolve the path of this edit (%v)", e.Err)
}

// Unwrap returns why the path could not be resolved.
func (e *UnresolvedError) Unwrap() error { return e.Err }

func (e *ProblemError) Error() string { return e.Err.Error() }

// Unwrap returns the problem.
func (e *ProblemError) Unwrap() error { return e.Err }

func (e *NoSessionError) Error() string {
	return fmt.Sprintf("no session id to lock %s for", e.Path)
}

func (e *ConflictError) Error() string { return e.Conflict.Message() }
