// Package sessionarg holds the rules by which a command takes the session
// it acts for from its arguments: a typed id is taken where it is the
// session known here (package session) or none is known, and refused in
// one line naming the command to run instead where it is another's.
package sessionarg

import (
	"context"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/session"
)

// usagef refuses a command's arguments about its session: a usage error
// (exit 2), shown with the usage. The refusals said in one line, that
// already name the command to run instead, are report.LineUsageErrorf.
func usagef(format string, args ...any) error { return report.UsageErrorf(format, args...) }

// Args is what a command knows of its session before it reads its
// arguments, and the rules by which typed session ids are taken or
// refused.
type Args struct {
	// Session is the session resolved for the invocation (session.Service.Identity), ""
	// when none is known; Source is where it came from (a session.Source*
	// constant or a harness variable).
	Session, Source string
	// Resolved is the whole resolution, which says where Session came
	// from for people.
	Resolved session.Identity
	// Context is, when --session was given, the session that the agent
	// context names without it (a wrapper above, the harness's variable,
	// a recorded agent process above); zero otherwise.
	Context session.Identity
}

// sourceFlag is the source of a session given with --session.
const sourceFlag = session.SourceFlag

// Of is what svc, a command's session service, knows: the session it
// resolved and, with --session, the agent context's.
func Of(ctx context.Context, svc *session.Service) Args {
	id := svc.Identity(ctx)
	return Args{Session: id.ID, Source: id.Source, Resolved: id, Context: svc.Context(ctx)}
}

// FlagConflict refuses, in one line, a --session that is not the session
// of the agent this runs for: an agent that typed another id would take
// locks its own hooks then refuse it. AGENTLOCK_SESSION alone does not
// count: there the flag wins, as configuration flags do. run is the
// command to suggest instead, without --session.
func (a Args) FlagConflict(run string) error {
	if !a.Context.Known() || a.Context.ID == a.Session {
		return nil
	}
	return report.LineUsageErrorf("you are session %s (from %s), not %s: run '%s' (without --session)",
		a.Context.ID, a.Context.Describe(), a.Session, run)
}

// Rule is how PathsAndSession takes a lock command's session.
type Rule int

const (
	// NewLock (acquire): required, a valid new id (core.ValidateSession).
	NewLock Rule = iota
	// ExistingLock (release, heartbeat): required, any id a lock record
	// can hold (core.ValidateExistingSession), such as the ids with spaces
	// that agent-registry 0.2 accepted.
	ExistingLock
	// AnySession (check): optional, any id a record can hold; with no
	// session known, a second argument that looks like a path is a path.
	AnySession
)

// PathsAndSession splits the positional arguments of a lock command into
// paths and the session id: the one reading of a lock command's positional
// session (acquire, release, heartbeat, check). The original form "<cmd>
// <path> <session>" is kept: with exactly two arguments and no --session
// flag, the second is the session when no session is known here. When one
// is known, a second argument equal to it is accepted as the session; one
// that names an existing file or folder, or holds a path separator, is a
// second path; anything else is a typed id that is not this session's,
// and is refused in one line that names both ids and the command to run
// instead — locking a path for another session than the one the agent's
// own hooks use would only get the agent's edits denied. rule says which
// ids the command accepts and whether it needs one; with AnySession the
// session may come back "".
func (a Args) PathsAndSession(command string, args []string, rule Rule) ([]string, string, error) {
	if len(args) == 0 {
		return nil, "", usagef("at least one path is required")
	}
	for i, p := range args {
		switch {
		case p != "":
		case i == 1 && len(args) == 2 && a.Source != sourceFlag:
			// The place of the original form's session: the user gave
			// an empty session id, not an empty path.
			return nil, "", usagef("the session id is empty ('' after the path): name the session, or leave it out for the one agentlock finds (agentlock whoami)")
		default:
			return nil, "", usagef("a path is empty ('' on the command line): name a file or a folder")
		}
	}
	if err := a.FlagConflict(command + " " + report.ShellWords(args)); err != nil {
		return nil, "", err
	}
	session := a.Session
	if len(args) == 2 && a.Source != sourceFlag {
		switch typed := args[1]; {
		case typed == session, session == "" && (rule != AnySession || !looksLikePath(typed)):
			session, args = typed, args[:1]
		case session != "" && !looksLikePath(typed):
			return nil, "", a.typedMismatch(command, typed, args[:1])
		}
	}
	switch {
	case session == "" && rule == AnySession:
		return args, "", nil
	case session == "":
		return nil, "", usagef("no session id: pass --session ID, set AGENTLOCK_SESSION, or use '%s <path> <session>' (agentlock whoami explains)", command)
	}
	validate := core.ValidateSession
	if rule != NewLock {
		validate = core.ValidateExistingSession
	}
	if err := validate(session); err != nil {
		return nil, "", usagef("%v", err)
	}
	return args, session, nil
}

// looksLikePath reports whether a positional argument is a path rather
// than a session id: it exists, or it holds a path separator.
func looksLikePath(arg string) bool {
	if strings.ContainsRune(arg, os.PathSeparator) {
		return true
	}
	_, err := os.Lstat(arg)
	return err == nil
}

// typedMismatch is the refusal of a typed session id that is not the
// known one.
func (a Args) typedMismatch(command, typed string, rest []string) error {
	return report.LineUsageErrorf("you are session %s (from %s), not %s: run '%s %s' (if %s is a file to create, write it as ./%s)",
		a.Session, a.Resolved.Describe(), typed, command, report.ShellWords(rest), typed, typed)
}

// SessionArg returns the session of a command that takes the session as
// its only positional argument (finish, update, handoff, ...): the typed
// id when no session is known here or it is the known one; otherwise the
// typed id is refused in one line naming the command to run instead.
func (a Args) SessionArg(command, typed string) (string, error) {
	if err := a.FlagConflict(command); err != nil {
		return "", err
	}
	if a.Session == "" || typed == a.Session || a.Source == sourceFlag {
		if a.Source == sourceFlag && typed != a.Session {
			return "", usagef("two session ids: %s and --session %s", typed, a.Session)
		}
		return typed, nil
	}
	return "", report.LineUsageErrorf("you are session %s (from %s), not %s: run '%s'",
		a.Session, a.Resolved.Describe(), typed, command)
}

// SessionAndText splits the positional arguments of a command that takes
// [session] [text] (update's [session] [working_on]): with two, the first
// is the session; with one, it is the session when no session is known
// here or it is the known one, else the text. A typed session is taken or
// refused as SessionArg does (the command to suggest keeps the text). It
// returns the session (the known one when none is typed) and the text,
// with whether one was given.
func (a Args) SessionAndText(command string, args []string) (session, text string, hasText bool, err error) {
	typed := ""
	switch {
	case len(args) == 2:
		typed, args = args[0], args[1:]
	case len(args) == 1 && (a.Session == "" || args[0] == a.Session):
		typed, args = args[0], nil
	}
	session = a.Session
	if typed != "" {
		rest := ""
		if len(args) == 1 {
			rest = " " + report.ShellWord(args[0])
		}
		if session, err = a.SessionArg(command+rest, typed); err != nil {
			return "", "", false, err
		}
	}
	if len(args) == 1 {
		return session, args[0], true, nil
	}
	return session, "", false, nil
}

// AllSession is the session of release --all, whose only positional
// argument is the original's session ("release --all <session>"): the
// typed id as SessionArg takes it, else the session known here. A typed
// id that is not the known session is refused naming the command that
// works, '<command> --all'; one that looks like a path (it exists, or
// holds a /) is refused naming that command and the release of the path.
func (a Args) AllSession(command string, args []string) (string, error) {
	if len(args) == 1 && a.Session != "" && args[0] != a.Session && a.Source != sourceFlag && looksLikePath(args[0]) {
		return "", report.LineUsageErrorf("--all takes no paths: run '%s --all' to release every lock of session %s, or '%s %s' to release that one",
			command, a.Session, command, report.ShellWord(args[0]))
	}
	if len(args) == 1 {
		return a.SessionArg(command+" --all", args[0])
	}
	return a.AllOnly(command, args)
}

// AllOnly is the session of heartbeat --all, which takes no positional
// argument: the session known here (--session included, unless it is not
// the agent's own: FlagConflict).
func (a Args) AllOnly(command string, args []string) (string, error) {
	if len(args) > 0 {
		return "", usagef("--all takes no paths")
	}
	if err := a.FlagConflict(command + " --all"); err != nil {
		return "", err
	}
	if a.Session == "" {
		return "", ErrNoSession()
	}
	return a.Session, nil
}

// LoopArgs splits the positional arguments of the original's
// "heartbeat-loop <path> [session] [interval]": the third is the interval;
// with two, the second is the interval when it is seconds or a Go
// duration, else the session. rest are the arguments for PathsAndSession;
// interval is "" when none is given.
func LoopArgs(args []string) (rest []string, interval string) {
	switch {
	case len(args) == 3:
		return args[:2], args[2]
	case len(args) == 2 && isInterval(args[1]):
		return args[:1], args[1]
	}
	return args, ""
}

// isInterval reports whether a heartbeat-loop argument is an interval
// (seconds, or a Go duration) rather than a session id.
func isInterval(s string) bool {
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return true
	}
	_, err := time.ParseDuration(s)
	return err == nil
}

// CommandSession is the session a registry command acts for: the typed id
// (positional or --session) when given and allowed (see SessionArg), else
// the one resolved for this process; an error when there is none. run is
// the command to suggest instead of a refused id.
func (a Args) CommandSession(run, typed string) (string, error) {
	session := a.Session
	if typed != "" {
		var err error
		if session, err = a.SessionArg(run, typed); err != nil {
			return "", err
		}
	}
	if err := a.FlagConflict(run); err != nil {
		return "", err
	}
	if session == "" {
		return "", ErrNoSession()
	}
	return session, nil
}

// ErrNoSession is the usage error of a command that needs a session when
// none is known.
func ErrNoSession() error {
	return usagef("no session id known here: pass --session ID or set AGENTLOCK_SESSION " +
		"(agentlock whoami explains how agentlock finds it)")
}
