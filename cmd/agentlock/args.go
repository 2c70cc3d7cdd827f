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
//
// Commands that create a lock check the id strictly (core.ValidateSession);
// with existing set, the commands that act on a lock that exists accept
// every id a lock record can hold (core.ValidateExistingSession), such as
// the ids with spaces that agent-registry 0.2 accepted.
func pathsAndSession(command string, args []string, c *config, existing bool) ([]string, string, error) {
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
	validate := core.ValidateSession
	if existing {
		validate = core.ValidateExistingSession
	}
	if err := validate(session); err != nil {
		return nil, "", usagef("%v", err)
	}
	return args, session, nil
}
