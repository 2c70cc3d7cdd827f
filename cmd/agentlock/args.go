package main

import (
	"fmt"
	"os"
	"strings"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/internal/identity"
	"github.com/agentlock/agentlock/report"
)

// pathsAndSession splits the positional arguments of a lock command into
// paths and the session id. The original form "<cmd> <path> <session>" is
// kept: with exactly two arguments and no --session flag, the second is the
// session when no session is known here (see package identity). When one
// is known, a second argument equal to it is accepted as the session; one
// that names an existing file or folder, or holds a path separator, is a
// second path; anything else is a typed id that is not this session's, and
// is refused in one line (exit 2) that names both ids and the command to
// run instead — locking a path for another session than the one the
// agent's own hooks use would only get the agent's edits denied.
//
// How a lock command takes its session: rule says which ids it accepts
// and whether it needs one. Commands that create a lock check the id
// strictly (core.ValidateSession); the commands that act on a lock that
// exists accept every id a lock record can hold (core.ValidateExistingSession),
// such as the ids with spaces that agent-registry 0.2 accepted; check needs
// none (it then asks for nobody) and, with no session known, takes a second
// argument that looks like a path as a path.
//
// It is the one reading of a lock command's positional session (acquire,
// release, heartbeat, check).
func pathsAndSession(command string, args []string, c *config, rule sessionRule) ([]string, string, error) {
	if len(args) == 0 {
		return nil, "", usagef("at least one path is required")
	}
	for _, p := range args {
		if p == "" {
			return nil, "", usagef("a path is empty ('' on the command line): name a file or a folder")
		}
	}
	if err := c.flagConflict(command + " " + report.ShellWords(args)); err != nil {
		return nil, "", err
	}
	session := c.Session
	if len(args) == 2 && c.SessionSource != identity.SourceFlag {
		switch typed := args[1]; {
		case typed == session, session == "" && (rule != anySession || !looksLikePath(typed)):
			session, args = typed, args[:1]
		case session != "" && !looksLikePath(typed):
			return nil, "", typedMismatch(command, c, typed, args[:1])
		}
	}
	switch {
	case session == "" && rule == anySession:
		return args, "", nil
	case session == "":
		return nil, "", usagef("no session id: pass --session ID, set AGENTLOCK_SESSION, or use '%s <path> <session>' (agentlock whoami explains)", command)
	}
	validate := core.ValidateSession
	if rule != newLock {
		validate = core.ValidateExistingSession
	}
	if err := validate(session); err != nil {
		return nil, "", usagef("%v", err)
	}
	return args, session, nil
}

// sessionRule is how pathsAndSession takes a lock command's session.
type sessionRule int

const (
	newLock      sessionRule = iota // acquire: required, a valid new id
	existingLock                    // release, heartbeat: required, any id a record can hold
	anySession                      // check: optional, any id a record can hold
)

// looksLikePath reports whether a positional argument is a path rather
// than a session id: it exists, or it holds a path separator.
func looksLikePath(arg string) bool {
	if strings.ContainsRune(arg, os.PathSeparator) {
		return true
	}
	_, err := os.Lstat(arg)
	return err == nil
}

// typedMismatch is the refusal of a typed session id that is not the known
// one.
func typedMismatch(command string, c *config, typed string, rest []string) error {
	return &lineUsageError{msg: fmt.Sprintf("you are session %s (from %s), not %s: run '%s %s' (if %s is a file to create, write it as ./%s)",
		c.Session, c.Identity.Describe(), typed, command, report.ShellWords(rest), typed, typed)}
}

// sessionArg returns the session of a command that takes the session as its
// only positional argument (finish, update, handoff, ...): the typed id
// when no session is known here or it is the known one; otherwise the
// typed id is refused in one line naming the command to run instead.
func sessionArg(command string, c *config, typed string) (string, error) {
	if err := c.flagConflict(command); err != nil {
		return "", err
	}
	if c.Session == "" || typed == c.Session || c.SessionSource == identity.SourceFlag {
		if c.SessionSource == identity.SourceFlag && typed != c.Session {
			return "", usagef("two session ids: %s and --session %s", typed, c.Session)
		}
		return typed, nil
	}
	return "", &lineUsageError{msg: fmt.Sprintf("you are session %s (from %s), not %s: run '%s'",
		c.Session, c.Identity.Describe(), typed, command)}
}

// commandSession is the session a registry command acts for: the typed id
// (positional or --session) when given and allowed (see sessionArg), else
// the one resolved for this process; a usage error when there is none.
// run is the command to suggest instead of a refused id.
func commandSession(run string, c *config, typed string) (string, error) {
	session := c.Session
	if typed != "" {
		var err error
		if session, err = sessionArg(run, c, typed); err != nil {
			return "", err
		}
	}
	if err := c.flagConflict(run); err != nil {
		return "", err
	}
	if session == "" {
		return "", errNoSession()
	}
	return session, nil
}

// errNoSession is the usage error of a command that needs a session when
// none is known.
func errNoSession() error {
	return usagef("no session id known here: pass --session ID or set AGENTLOCK_SESSION " +
		"(agentlock whoami explains how agentlock finds it)")
}

// shellWord is report.ShellWord, for update.
func shellWord(s string) string { return report.ShellWord(s) }
