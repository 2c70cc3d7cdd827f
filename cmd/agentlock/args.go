package main

import (
	"github.com/agentlock/agentlock/core"
)

// pathsAndSession splits the positional arguments of a lock command into
// paths and the session id. The original form "<cmd> <path> <session>" is
// kept: with exactly two arguments and no --session flag, the second is the
// session. When a session is also known from the environment and differs
// from it, the second argument could as well be a second path, so the
// command refuses to guess rather than lock a path for the wrong session.
func pathsAndSession(command string, args []string, c *config) ([]string, string, error) {
	if len(args) == 0 {
		return nil, "", usagef("at least one path is required")
	}
	session := c.Session
	if len(args) == 2 && c.SessionSource != "--session" {
		if session != "" && session != args[1] {
			return nil, "", usagef("ambiguous arguments: %q may be a session id or a second path "+
				"(the session from %s is %q); use --session to name the session", args[1], c.SessionSource, session)
		}
		session, args = args[1], args[:1]
	}
	if session == "" {
		return nil, "", usagef("no session id: pass --session ID, set AGENTLOCK_SESSION, or use '%s <path> <session>' (agentlock whoami explains)", command)
	}
	if err := core.ValidateSession(session); err != nil {
		return nil, "", usagef("%v", err)
	}
	return args, session, nil
}
