package main

import (
	"errors"

	"github.com/agentlock/agentlock/internal/sessionarg"
	"github.com/agentlock/agentlock/report"
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

// pathsAndSession splits the positional arguments of a lock command into
// paths and the session id (sessionarg.Args.PathsAndSession).
func pathsAndSession(command string, args []string, c *config, existing bool) ([]string, string, error) {
	paths, session, err := sessionArgs(c).PathsAndSession(command, args, existing)
	return paths, session, argErr(err)
}

// sessionArg returns the session of a command that takes the session as its
// only positional argument (sessionarg.Args.SessionArg).
func sessionArg(command string, c *config, typed string) (string, error) {
	session, err := sessionArgs(c).SessionArg(command, typed)
	return session, argErr(err)
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

// shellWords quotes each word for a shell where needed, and joins them
// (report.ShellWords).
func shellWords(words []string) string { return report.ShellWords(words) }

// shellWord quotes s for a shell only when it needs it (report.ShellWord).
func shellWord(s string) string { return report.ShellWord(s) }
