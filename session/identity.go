package session

import (
	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/internal/sys/agentproc"
	"github.com/agentlock/agentlock/internal/sys/procs"
)

// Sources of a session id, as whoami and the refusals name them.
const (
	SourceFlag    = "--session"
	SourceEnv     = "AGENTLOCK_SESSION"
	SourcePayload = "the hook payload"
	// SourceAgent and SourceWrapper are the kinds of identity found
	// through an agent record; Identity.Describe names the process.
	SourceAgent   = "agent process"
	SourceWrapper = "wrapper script"
)

// Identity is the session a command acts for, resolved once per command
// by the Service from what its front end gathered (Inputs), and where it
// came from.
type Identity struct {
	// ID is the session id; "" when none is known.
	ID string
	// Source is one of the Source constants or the name of the harness
	// variable the id came from (CLAUDE_CODE_SESSION_ID, ...).
	Source string
	// Agent names the agent the session belongs to (claude, codex, ...)
	// when the source says it: the agent record's, or the agent of the
	// harness variable or hook payload; "" otherwise.
	Agent string
	// Parent is, for a sub-agent's session, the session it works for
	// ("" for a top-level session): a sub-agent is a child session, ID
	// "<parent>/<sub-id>" (core.ChildSession), resolved from the inputs
	// of its parent and Inputs.SubAgent. Source, Agent, Process and Via
	// then say where the parent came from.
	Parent string
	// SubAgent is the sub-agent's own id as its CLI gave it (Claude
	// Code's agent_id, say), and SubAgentSource where it came from; ""
	// for a top-level session.
	SubAgent, SubAgentSource string
	// Process is the recorded agent process the id came from (SourceAgent,
	// SourceWrapper); nil otherwise.
	Process *Process
	// Via says how that process was reached when not through this
	// process's ancestry: "process group" or "session".
	Via string
}

// Known reports whether a session id was found.
func (id Identity) Known() bool { return id.ID != "" }

// Describe says, for people, where the id came from: "--session",
// "CLAUDE_CODE_SESSION_ID", "the agent process 1234 (node), recorded by
// the session-start hook"; for a sub-agent, where both its parent and its
// own id came from.
func (id Identity) Describe() string {
	if id.Parent != "" {
		return "sub-agent " + id.SubAgent + " (from " + id.SubAgentSource + ") of session " + id.Parent + " (from " + id.describeSource() + ")"
	}
	return id.describeSource()
}

// describeSource is Describe for the source of the id, or of the parent's.
func (id Identity) describeSource() string {
	switch id.Source {
	case SourceAgent, SourceWrapper:
		if id.Process == nil {
			return id.Source
		}
		d := id.Process.record().Describe()
		if id.Via != "" {
			d += ", found as the leader of this process's " + id.Via
		}
		return d
	}
	return id.Source
}

// Process is an agent process recorded in a workspace's home — by the
// session-start hook (the harness) or by a wrapper script — with the
// session it runs. A process is its PID and its start time: a reused PID
// never inherits a session.
type Process struct {
	Session string
	Agent   string
	// Wrapper is set for a wrapper script, whose session wins over every
	// source but an explicit one.
	Wrapper bool
	PID     int
	Start   uint64
	// Name is the process's command name when it was recorded.
	Name string
}

func (p Process) record() agentproc.Record {
	kind := agentproc.KindHook
	if p.Wrapper {
		kind = agentproc.KindWrapper
	}
	return agentproc.Record{Session: p.Session, Agent: p.Agent, Kind: kind, PID: p.PID, Start: p.Start, Name: p.Name}
}

func (p Process) id() procs.ID { return procs.ID{PID: p.PID, Start: p.Start} }

// processOf is the Process of a record; nil for none.
func processOf(r agentproc.Record) *Process {
	if r.Session == "" {
		return nil
	}
	return &Process{Session: r.Session, Agent: r.Agent, Wrapper: r.Kind == agentproc.KindWrapper, PID: r.PID, Start: r.Start, Name: r.Name}
}

// Recorded is what a look-up of a process's ancestry found in a record
// folder (see Inputs.Lookup).
type Recorded struct {
	// Agent is the nearest recorded ancestor; nil when none.
	Agent *Process
	// Wrapper is the nearest wrapper script among the ancestors; nil when
	// none.
	Wrapper *Process
	// Via says how the records were reached when not through the
	// ancestry: "process group" or "session" (the process was
	// re-parented, but its group or session leader is a recorded agent).
	Via string
}

func recordedOf(f agentproc.Found) Recorded {
	return Recorded{Agent: processOf(f.Agent), Wrapper: processOf(f.Wrapper), Via: f.Via}
}

// Inputs are what a front end gathered for the identity of a command: it
// reads the flags, the environment and the hook payload; the service
// never does. The Service resolves them once, in this order
// (docs/identity.md): Flag, Env, a wrapper script among the ancestors,
// Harness, Payload, then the agent process recorded nearest among the
// ancestors.
type Inputs struct {
	// Flag is the id given with --session; "" for none.
	Flag string
	// Env is AGENTLOCK_SESSION (a hook given --session passes it here).
	Env string
	// Harness is the session the harness's variable names, already as
	// "<agent>-<id>", and HarnessVar the variable's name; "" for none.
	Harness, HarnessVar string
	// Payload is a hook payload's session as "<agent>-<id>" (or, failing
	// that, the id another harness exported); "" for none.
	Payload string
	// Agent is the agent Harness and Payload belong to (a hook's agent);
	// "" when not known.
	Agent string
	// SubAgent is the id of the sub-agent the command runs for, as its
	// CLI gives it (Claude Code's agent_id in a hook payload, Copilot's
	// sessionId beside a parentAgentId); "" for a main thread. The session
	// the other inputs resolve is then its parent, and the command acts
	// for the child session "<parent>/<id>" (core.ChildSession). It is
	// applied over every source but --session, which names the whole id:
	// a sub-agent's hook under a wrapper is a child of the wrapper's
	// session (AGENTLOCK_SESSION).
	SubAgent string
	// SubAgentSource says where SubAgent came from, for people: "the hook
	// payload's agent_id".
	SubAgentSource string
	// Lookup, when not nil, replaces the look-up of this process's
	// ancestry in the record folder dir of the working folder's workspace
	// (tests, a front end that serves another process).
	Lookup func(dir string) Recorded
}

// resolve applies the resolution order to in; look finds the records of
// the ancestry, called at most once and only when needed. A sub-agent's
// input makes the session found the parent of the one returned.
func resolve(in Inputs, look func() Recorded) Identity {
	id := resolveTop(in, look)
	if in.SubAgent == "" || !id.Known() || id.Source == SourceFlag {
		return id // a --session typed names the whole id
	}
	id.Parent, id.SubAgent, id.SubAgentSource = id.ID, in.SubAgent, in.SubAgentSource
	id.ID = core.ChildSession(id.Parent, in.SubAgent)
	return id
}

// resolveTop is resolve without the sub-agent: the session of the main
// thread.
func resolveTop(in Inputs, look func() Recorded) Identity {
	switch {
	case in.Flag != "":
		return Identity{ID: in.Flag, Source: SourceFlag}
	case in.Env != "":
		return Identity{ID: in.Env, Source: SourceEnv}
	}
	var found Recorded
	looked := false
	lookup := func() Recorded {
		if !looked && look != nil {
			found, looked = look(), true
		}
		return found
	}
	if f := lookup(); f.Wrapper != nil {
		return Identity{ID: f.Wrapper.Session, Source: SourceWrapper, Agent: f.Wrapper.Agent, Process: f.Wrapper, Via: f.Via}
	}
	switch {
	case in.Harness != "":
		return Identity{ID: in.Harness, Source: in.HarnessVar, Agent: in.Agent}
	case in.Payload != "":
		return Identity{ID: in.Payload, Source: SourcePayload, Agent: in.Agent}
	}
	if f := lookup(); f.Agent != nil {
		return Identity{ID: f.Agent.Session, Source: SourceAgent, Agent: f.Agent.Agent, Process: f.Agent, Via: f.Via}
	}
	return Identity{}
}
