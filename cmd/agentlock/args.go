package main

import (
	"errors"

	"github.com/agentlock/agentlock/internal/sessionarg"
)

// sessionArgs are the session rules of package sessionarg for what c
// knows.
func sessionArgs(c *config) sessionarg.Args {
	return sessionarg.Args{Session: c.Session, Source: c.SessionSource, Resolved: c.Identity, Context: c.Context}
}

// argErr gives package sessionarg's refusals their kind of usage error.
func argErr(err error) error {
	var ae *sessionarg.ArgError
	switch {
	case !errors.As(err, &ae):
		return err
	case ae.Line:
		return &lineUsageError{msg: ae.Msg}
	}
	return usagef("%s", ae.Msg)
}

// sessionRule is how pathsAndSession takes a lock command's session
// (sessionarg.Rule).
type sessionRule = sessionarg.Rule

const (
	newLock      = sessionarg.NewLock      // acquire: required, a valid new id
	existingLock = sessionarg.ExistingLock // release, heartbeat: required, any id a record can hold
	anySession   = sessionarg.AnySession   // check: optional, any id a record can hold
)

// pathsAndSession splits the positional arguments of a lock command into
// paths and the session id (sessionarg.Args.PathsAndSession).
func pathsAndSession(command string, args []string, c *config, rule sessionRule) ([]string, string, error) {
	paths, session, err := sessionArgs(c).PathsAndSession(command, args, rule)
	return paths, session, argErr(err)
}

// commandSession is the session a registry command acts for
// (sessionarg.Args.CommandSession).
func commandSession(run string, c *config, typed string) (string, error) {
	session, err := sessionArgs(c).CommandSession(run, typed)
	return session, argErr(err)
}

// errNoSession is the usage error of a command that needs a session when
// none is known.
func errNoSession() error { return argErr(sessionarg.ErrNoSession()) }
