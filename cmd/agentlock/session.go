package main

import (
	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/core"
)

// pathsAndSession splits the positional arguments of a lock command into
// paths and the session id. The original form "<cmd> <path> <session>" is
// kept: with exactly two arguments and no --session flag, the second is the
// session. When AGENTLOCK_SESSION is also set and differs from it, the
// second argument could as well be a second path, so the command refuses to
// guess rather than lock a path for the wrong session.
func pathsAndSession(cmd *cobra.Command, args []string, c config) ([]string, string, error) {
	if len(args) == 0 {
		return nil, "", usagef("at least one path is required")
	}
	session := c.Session
	flagGiven := cmd.Flags().Changed("session")
	if len(args) == 2 && !flagGiven {
		if session != "" && session != args[1] {
			return nil, "", usagef("ambiguous arguments: %q may be a session id or a second path "+
				"(the session from %s is %q); use --session to name the session", args[1], c.SessionSource, session)
		}
		session, args = args[1], args[:1]
	}
	if session == "" {
		return nil, "", usagef("no session id: pass --session ID, set AGENTLOCK_SESSION, or use '%s <path> <session>' (agentlock whoami explains)", cmd.CommandPath())
	}
	if err := core.ValidateSession(session); err != nil {
		return nil, "", usagef("%v", err)
	}
	return args, session, nil
}
