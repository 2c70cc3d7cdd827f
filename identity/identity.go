// Package identity resolves, once and for every front end, which agentlock
// session a command or a hook acts for, and records the agent processes
// that let a command find it with nothing typed.
//
// The order (docs/identity.md):
//
//  1. an explicit id: --session, or the original positional form;
//  2. AGENTLOCK_SESSION (the wrapper scripts export it);
//  3. a wrapper script among the process's ancestors that recorded itself
//     (so the wrapper's id wins even where a harness dropped
//     AGENTLOCK_SESSION from the environment);
//  4. the harness's variable: CLAUDE_CODE_SESSION_ID → claude-<id>,
//     CODEX_THREAD_ID → codex-<id>, GEMINI_SESSION_ID → gemini-<id>,
//     COPILOT_AGENT_SESSION_ID → copilot-<id>;
//     hooks then read the session_id of their payload;
//  5. the session recorded for the nearest recorded ancestor: the
//     session-start hook records the harness process it runs under (the
//     nearest ancestor that is not a shell) with the session's id, and any
//     command the harness runs later finds it by walking up its own
//     ancestry. A process is identified by PID and start time, so a reused
//     PID never inherits a session.
package identity

import (
	"github.com/agentlock/agentlock/internal/sys/procs"
)

// Sources of a session id, as whoami and the refusals name them.
const (
	SourceFlag    = "--session"
	SourceEnv     = "AGENTLOCK_SESSION"
	SourcePayload = "the hook payload"
	// SourceAgent and SourceWrapper are the kinds of identity found
	// through a record; Identity.Describe names the process.
	SourceAgent   = "agent process"
	SourceWrapper = "wrapper script"
)

// Identity is a resolved session id and where it came from.
type Identity struct {
	Session string
	// Source is one of the Source constants or the name of the harness
	// variable the id came from (CLAUDE_CODE_SESSION_ID, ...).
	Source string
	// Record is the agent record the id came from (SourceAgent,
	// SourceWrapper); zero otherwise.
	Record Record
	// Via is how the record was reached when not through the ancestry
	// (see Found.Via).
	Via string
}

// Known reports whether a session id was found.
func (id Identity) Known() bool { return id.Session != "" }

// Describe says, for people, where the id came from: "--session",
// "CLAUDE_CODE_SESSION_ID", "the agent process 1234 (node), recorded by
// the session-start hook".
func (id Identity) Describe() string {
	switch id.Source {
	case SourceAgent, SourceWrapper:
		d := id.Record.Describe()
		if id.Via != "" {
			d += ", found as the leader of this process's " + id.Via
		}
		return d
	}
	return id.Source
}

// Inputs are what a resolution starts from. The caller reads the
// environment and flags; this package never does.
type Inputs struct {
	// Flag is the id given with --session (or typed positionally, where
	// the caller treats it as explicit); empty for none.
	Flag string
	// Env is AGENTLOCK_SESSION.
	Env string
	// Harness is the session the harness's variable names, already as
	// "<agent>-<id>", and the variable's name; empty for none.
	Harness, HarnessVar string
	// Payload is a hook payload's session, as "<agent>-<id>"; empty for
	// none (and for commands).
	Payload string
	// Lookup finds the agent records of this process's ancestry; nil
	// when there is no workspace to look in.
	Lookup func() Found
}

// Resolve applies the resolution order to in.
func Resolve(in Inputs) Identity {
	switch {
	case in.Flag != "":
		return Identity{Session: in.Flag, Source: SourceFlag}
	case in.Env != "":
		return Identity{Session: in.Env, Source: SourceEnv}
	}
	var found Found
	looked := false
	look := func() Found {
		if !looked && in.Lookup != nil {
			found, looked = in.Lookup(), true
		}
		return found
	}
	if f := look(); f.Wrapper.Session != "" {
		return Identity{Session: f.Wrapper.Session, Source: SourceWrapper, Record: f.Wrapper, Via: f.Via}
	}
	switch {
	case in.Harness != "":
		return Identity{Session: in.Harness, Source: in.HarnessVar}
	case in.Payload != "":
		return Identity{Session: in.Payload, Source: SourcePayload}
	}
	if f := look(); f.Agent.Session != "" {
		return Identity{Session: f.Agent.Session, Source: SourceAgent, Record: f.Agent, Via: f.Via}
	}
	return Identity{}
}

// LookupSelf returns a Lookup of the current process's ancestry in the
// record folder dir. Where processes cannot be read it finds nothing.
func LookupSelf(dir string) func() Found {
	return func() Found {
		// Most commands run where no agent process was ever recorded (a
		// person's shell, a script, any project without hooks): one read
		// of the folder spares them the walk up their ancestry.
		if !hasRecords(dir) {
			return Found{}
		}
		self, err := procs.Self()
		if err != nil {
			return Found{}
		}
		chain, err := procs.Ancestry(self.PID)
		if err != nil {
			return Found{}
		}
		return Lookup(dir, chain)
	}
}

// Watch returns the agent processes whose life bounds a renewal loop of
// id's session: the recorded process the id came from; else the nearest
// recorded ancestor (lookup, may be nil) when it runs the same session;
// else the live processes recorded for the session in dir, most recent
// first. It returns none when nothing is known to watch.
func Watch(id Identity, dir string, lookup func() Found) []procs.ID {
	if id.Record.Session != "" && id.Record.Session == id.Session && procs.Alive(id.Record.ID()) {
		return []procs.ID{id.Record.ID()}
	}
	if lookup != nil {
		if f := lookup(); f.Agent.Session == id.Session && procs.Alive(f.Agent.ID()) {
			return []procs.ID{f.Agent.ID()}
		}
	}
	var out []procs.ID
	for _, r := range OfSession(dir, id.Session) {
		out = append(out, r.ID())
	}
	return out
}

// Life returns whether the agent processes that bound a renewal loop of
// id's session (Watch) still run, each time it is called: true while any
// does. It returns nil when nothing is known to watch: a loop started from
// a one-shot shell would then be re-parented and renew the session's locks
// forever after the agent died.
func Life(id Identity, dir string, lookup func() Found) func() bool {
	ids := Watch(id, dir, lookup)
	if len(ids) == 0 {
		return nil
	}
	return func() bool {
		for _, id := range ids {
			if procs.Alive(id) {
				return true
			}
		}
		return false
	}
}
