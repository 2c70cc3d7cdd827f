// Package hooks is the front end that agent harnesses call: it turns one
// hook event of Claude Code, Codex, Gemini CLI or Kimi — a JSON payload on
// stdin — into agentlock's session policy (package workspace), and says
// what the harness must do: let the tool run, deny it, or add text to the
// model's context.
//
// Hooks stay out of the way where agentlock has no say: outside an
// agentlock project, or when the payload names no usable path, they let the
// tool run. Once an edited path is agentlock's business, the pre-edit hook
// denies when another session holds it and whenever it could not be checked
// (no session id, a lock folder it cannot read, a payload too large to
// read): the hook policy of docs/integrations/README.md.
package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/internal/sys/agentproc"
	"github.com/agentlock/agentlock/internal/sys/procs"
	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/session"
	"github.com/agentlock/agentlock/store"
	"github.com/agentlock/agentlock/templates"
	"github.com/agentlock/agentlock/workspace"
)

// Hook events: agentlock's names (the one list is
// integrations.HookEvents), mapped to each harness's own by its agent.
const (
	PreEdit      = integrations.PreEdit
	SessionStart = integrations.SessionStart
	Renew        = integrations.Renew
	SessionEnd   = integrations.SessionEnd
	TurnEnd      = integrations.TurnEnd
)

// CheckEvent refuses, as a usage error, an event that is none of
// integrations.HookEvents.
func CheckEvent(event string) error {
	if events := integrations.HookEvents(); !slices.Contains(events, event) {
		return report.UsageErrorf("unknown hook event %q (known: %s)", event, strings.Join(events, ", "))
	}
	return nil
}

// MaxPayload bounds the payload read (a Write tool's content may be large;
// the paths are all agentlock needs).
const MaxPayload = 64 << 20

// Request is one hook run.
type Request struct {
	Agent integrations.Agent
	Event string // one of Events
	// Payload is the harness's JSON on stdin.
	Payload io.Reader
	// Settings locate the workspaces.
	Settings workspace.Settings
	// Session is the session named explicitly (--session or
	// AGENTLOCK_SESSION, which the wrapper scripts export); empty for none.
	Session string
	// HarnessSession is the session id the harness exported in its
	// environment (CLAUDE_CODE_SESSION_ID, ...), raw; empty for none.
	HarnessSession string
	// Fallback is the session used when neither the harness nor the
	// payload names one (the id another harness exported, say).
	Fallback string
	// Lookup finds the agent records of the hook's process ancestry in a
	// record folder; nil looks up this process's (session.Inputs.Lookup).
	Lookup func(dir string) session.Recorded
	// Problems are invalid settings (AGENTLOCK_TIMEOUT=-5, say), each
	// naming the variable and its range; the defaults stand in for them.
	// The pre-edit hook denies an edit of a coordinated path while there
	// is one (the timeout decides who holds a file); the other events warn
	// and run with the defaults.
	Problems []error
	// Ancestry returns the hook process's ancestry, nearest first, where
	// the session-start hook finds the harness process to record; nil
	// means the current process's (procs.Ancestry).
	Ancestry func() ([]procs.Process, error)
}

// Result is what the harness is told.
type Result struct {
	// Deny, when not empty, refuses the tool call: the message tells the
	// model who holds the file and what to do instead.
	Deny string
	// Output is written on stdout for the harness (the session context).
	Output []byte
	// Warnings are problems of agentlock's own, for stderr; the tool runs.
	Warnings []string
	// Notices are for the model, the tool runs: files of this edit also
	// changed in another worktree (see workspace.Conflicts).
	Notices []string
}

func (r *Result) warnf(format string, args ...any) {
	r.Warnings = append(r.Warnings, fmt.Sprintf(format, args...))
}

// Run runs one hook event. It never fails: a problem of agentlock's own is
// a warning in the Result and the tool runs, except for the pre-edit event
// when a path that agentlock coordinates is known but could not be checked
// (see the hook policy in docs/integrations/README.md): then it denies, as
// it does when another session holds the path.
//
// The hook is one command of the session service (package session): the
// workspace of the payload's cwd is opened once (opening it finishes the
// sessions whose agent exited, as every command does) and the session is
// resolved once, from what the payload and the request say.
func Run(ctx context.Context, req Request) Result {
	// A tool's read happened before its after-tool hook started (see
	// workspace.SettleWindow).
	started := time.Now()
	if req.Settings.Now != nil {
		started = req.Settings.Now()
	}
	var res Result
	name := req.Agent.Name()
	in, err := readPayload(req.Payload, req.Agent)
	if errors.Is(err, errPayloadTooLarge) && req.Event == PreEdit {
		// The path is in the part not read: it cannot be checked. Deny
		// where agentlock is in use, stay quiet elsewhere.
		if wd, werr := workspace.WorkDir(); werr == nil {
			// A workspace that cannot be opened (its store unusable, say)
			// cannot tell that agentlock is not in use: deny there too.
			ws, oerr := session.New(session.Config{Settings: req.Settings, WorkDir: wd}).Workspace(ctx)
			if oerr == nil && ws.Enabled() || oerr != nil && !errors.Is(oerr, workspace.ErrNoWorkspace) {
				res.Deny = fmt.Sprintf("agentlock: the %s hook payload is over %d MiB, so agentlock cannot check the paths of this edit: "+
					"do not make it in one step; write the file in smaller parts.", name, MaxPayload>>20)
				return res
			}
		}
	}
	if err != nil {
		res.warnf("%s %s hook: %v; doing nothing", name, req.Event, err)
		return res
	}
	in.UserHome = req.Settings.UserHome
	cwd, err := payloadCwd(in)
	if err != nil {
		res.warnf("%s %s hook: %v; doing nothing", name, req.Event, err)
		return res
	}
	svc := session.New(session.Config{Settings: req.Settings, WorkDir: cwd, Identity: identityInputs(req, in)})
	ws, err := svc.Workspace(ctx)
	if errors.Is(err, workspace.ErrNoWorkspace) {
		return res // agentlock is not set up here
	}
	if err != nil {
		// Otherwise Open fails only when it could not read what says
		// whether and how agentlock is set up here (a shared-home record,
		// say, with no file descriptor left): the edit cannot be checked.
		if req.Event == PreEdit {
			res.Deny = fmt.Sprintf("agentlock: could not tell how agentlock is set up here (%v), so agentlock cannot check this edit: "+
				"do not make it now; ask a person to run `agentlock doctor`.", err)
			return res
		}
		res.warnf("%s %s hook: %v; doing nothing", name, req.Event, err)
		return res
	}
	if ws.Enabled() {
		// A project setting that cannot be used (its timeout file) has a
		// safe value in its place: say so, and go on.
		for _, p := range ws.Problems() {
			res.warnf("%s %s hook: %v", name, req.Event, p)
		}
	}
	if _, err := ws.Ended(); err != nil {
		// A session whose agent exited without its session-end hook
		// (kimi -p) is finished by the next hook that runs here (opening
		// the workspace did); one that could not be is retried by the
		// next.
		res.warnf("%s %s hook: %v", name, req.Event, err)
	}
	h := run{req: req, in: in, svc: svc, ws: ws, res: &res, started: started}
	if req.Event == PreEdit {
		// The edited paths decide, not the working folder: a session may
		// work outside the project and edit a file of it, or through an
		// alias.
		h.preEdit(ctx)
		return res
	}
	if !ws.Enabled() {
		return res // not an agentlock project: hooks stay quiet (Kimi's are user-wide)
	}
	for _, p := range req.Problems {
		res.warnf("%s %s hook: %v; running with the default", name, req.Event, p)
	}
	h.session = svc.Identity(ctx).ID
	if h.session == "" {
		res.warnf("%s %s hook: no session id (no AGENTLOCK_SESSION, no session_id in the payload, no recorded agent process); doing nothing", name, req.Event)
		return res
	}
	if err := core.ValidateSession(h.session); err != nil {
		res.warnf("%s %s hook: %v; doing nothing", name, req.Event, err)
		return res
	}
	switch req.Event {
	case SessionStart:
		h.sessionStart(ctx)
	case Renew:
		h.renew(ctx)
	case TurnEnd:
		h.turnEnd(ctx)
	case SessionEnd:
		h.sessionEnd(ctx)
	default:
		res.warnf("%s hook: unknown event %q (known: %s); doing nothing", name, req.Event, strings.Join(integrations.HookEvents(), ", "))
	}
	return res
}

// run is one hook run past its checks.
type run struct {
	req     Request
	in      integrations.HookInput
	svc     *session.Service
	ws      *workspace.Workspace // the workspace of the payload's cwd
	session string
	res     *Result
	// started is when the hook started.
	started time.Time
}

// errPayloadTooLarge is a payload over MaxPayload bytes.
var errPayloadTooLarge = fmt.Errorf("the payload is over %d MiB", MaxPayload>>20)

func readPayload(r io.Reader, agent integrations.Agent) (integrations.HookInput, error) {
	var in integrations.HookInput
	if r == nil {
		return in, nil
	}
	// One byte more than the bound tells a payload cut short from one that
	// fits exactly: a cut payload must not be parsed as if whole.
	data, err := io.ReadAll(io.LimitReader(r, MaxPayload+1))
	if err != nil {
		return in, fmt.Errorf("read the payload: %w", err)
	}
	if len(data) > MaxPayload {
		return in, errPayloadTooLarge
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return in, nil
	}
	if d, ok := agent.(integrations.PayloadDecoder); ok {
		return d.DecodePayload(data)
	}
	if err := integrations.UnmarshalPayload(data, &in); err != nil {
		return in, fmt.Errorf("the payload is not JSON: %w", err)
	}
	in.Raw = data
	return in, nil
}

// payloadCwd is the payload's cwd (the session's), else the process's.
func payloadCwd(in integrations.HookInput) (string, error) {
	if in.Cwd != "" {
		return core.RealPath(in.Cwd, "")
	}
	return workspace.WorkDir()
}

// identityInputs are what the hook's session is resolved from (package
// session, in its order): the explicit one, a wrapper script among the
// ancestors, the harness's own id from its environment, then from the
// payload, as "<agent>-<id>", the id another harness exported, and last
// the session recorded for the nearest recorded agent process among the
// hook's ancestors, in the home of the payload's cwd; the sub-agent the
// payload names, if any, makes that session the parent of the hook's.
func identityInputs(req Request, in integrations.HookInput) session.Inputs {
	inputs := session.Inputs{Env: req.Session, Payload: req.Fallback, Lookup: req.Lookup}
	if req.HarnessSession != "" {
		inputs.Harness = integrations.SessionID(req.Agent, req.HarnessSession)
		inputs.HarnessVar = req.Agent.SessionEnvVar()
		inputs.Agent = req.Agent.Name()
	}
	if in.SessionID != "" {
		inputs.Payload = integrations.SessionID(req.Agent, in.SessionID)
		inputs.Agent = req.Agent.Name()
	}
	// A hook fired in a sub-agent acts for the sub-agent's own session,
	// a child of the session resolved above.
	inputs.SubAgent, inputs.SubAgentSource = in.SubAgent, session.SourcePayload
	return inputs
}

// recordHarness records the harness process the hook runs under (the
// nearest ancestor that is not a shell) as the agent process of the
// session, so that the commands it runs later find the session by their
// ancestry.
func (h run) recordHarness() {
	ancestry := h.req.Ancestry
	if ancestry == nil {
		ancestry = func() ([]procs.Process, error) { return procs.Ancestry(os.Getpid()) }
	}
	chain, err := ancestry()
	if errors.Is(err, procs.ErrUnsupported) {
		return
	}
	if err != nil {
		h.res.warnf("%s session-start hook: cannot read the process ancestry: %v", h.req.Agent.Name(), err)
		return
	}
	harness, ok := agentproc.Harness(chain)
	if !ok {
		h.res.warnf("%s session-start hook: no agent process above this hook (only shells up to PID 1): "+
			"commands without a session id will not find %s", h.req.Agent.Name(), h.session)
		return
	}
	now := time.Now
	if h.req.Settings.Now != nil {
		now = h.req.Settings.Now
	}
	if _, err := agentproc.Write(agentproc.Dir(h.ws.Home), harness, h.session, h.req.Agent.Name(), agentproc.KindHook, now()); err != nil {
		h.res.warnf("%s session-start hook: %v", h.req.Agent.Name(), err)
	}
}

// preEdit takes the locks of every path the tool will change, all or none,
// and denies the edit when another session holds one of them: the session
// service's acquisition with the gate's policy (session.Gate). A path that
// agentlock coordinates but could not check (no session to lock it for, a
// lock folder it cannot read, ...) denies too: fail closed once a path is
// known to be agentlock's business.
func (h run) preEdit(ctx context.Context) {
	name := h.req.Agent.Name()
	paths, err := h.req.Agent.EditedPaths(h.in)
	if errors.Is(err, integrations.ErrUncheckable) && h.ws.Enabled() {
		h.res.Deny = "agentlock: " + err.Error() + "."
		return
	}
	if err != nil {
		h.res.warnf("%s pre-edit hook: %v; the edit is not gated", name, err)
		return
	}
	gate := &session.Gate{Problems: h.req.Problems, ReadsUnseen: !h.readsSeen()}
	if r, ok := h.req.Agent.(integrations.Reader); ok {
		gate.Whole = r.WholePaths(h.in)
	}
	got, err := h.svc.Acquire(ctx, session.AcquireRequest{Paths: paths, Gate: gate})
	h.session = got.Session
	if len(got.Legacy.Held) > 0 {
		h.res.warnf("%s", report.LegacyHeld(got.Legacy.Home, got.Legacy.Held))
	}
	if err != nil {
		h.refuse(err, got)
		if !errors.As(err, new(*session.ConflictError)) {
			return
		}
	}
	for _, m := range got.Mirror {
		h.res.warnf("%v", m)
	}
	for _, v := range got.Stale {
		// Warn mode: the write goes on, the model is told.
		h.res.Notices = append(h.res.Notices, h.staleWarning(v))
	}
	// Files of this edit that another worktree changed too: told to the
	// model. A failure to ask git is only a warning: the lock, the one
	// thing that must hold, is taken.
	if got.ConflictsErr != nil {
		h.res.warnf("could not check other worktrees for changes of these files: %v", got.ConflictsErr)
	}
	for _, c := range got.Conflicts {
		h.res.Notices = append(h.res.Notices, "agentlock: "+c.Message())
	}
}

// refuse words the denial of an edit whose acquisition err refused.
func (h run) refuse(err error, got session.Acquired) {
	var (
		held       *core.HeldError
		corrupt    *core.CorruptError
		unresolved *session.UnresolvedError
		problem    *session.ProblemError
		noSession  *session.NoSessionError
		conflict   *session.ConflictError
		stale      *session.StaleError
	)
	switch {
	case errors.As(err, &unresolved):
		h.deny("agentlock cannot resolve the path of this edit (%v)", unresolved.Err)
	case errors.As(err, &problem):
		h.res.Deny = fmt.Sprintf("agentlock: %v, so agentlock cannot check this edit: do not make it now; ask a person to fix that variable (agentlock doctor shows it).", problem.Err)
	case errors.As(err, &noSession):
		h.deny("no session id (no AGENTLOCK_SESSION, no session_id in the hook payload, no recorded agent process) to lock %s for", noSession.Path)
	case errors.As(err, &stale):
		h.res.Deny = h.staleReason(stale)
	case errors.As(err, &conflict):
		// The lock just taken stays the session's: it did not edit, and
		// it may wait on the other worktree while holding it.
		h.res.Deny = "agentlock: " + conflict.Conflict.Message() + "; this repository denies such edits (agentlock init --deny-conflicts): ask the other worktree's session, or a person, before editing it."
	case errors.As(err, &held) && held.Queued:
		h.res.Deny = fmt.Sprintf("agentlock: %s, so you (%s) must not edit it now. "+
			"Do not work around this: work on another file, wait your turn with `%s`, or ask %s.",
			report.QueuedFor(held.Path, "session "+held.Owner+got.Places[held.Owner], held.Age), h.session, report.WaitCommand(held.Path), held.Owner)
	case errors.As(err, &held) && held.Taken == store.TakenByHook && held.Via == "" && h.ws.HookLocks().Lifetime == workspace.LifetimeTurn &&
		(held.Relation == core.Unrelated || held.Relation == core.Sibling):
		// A lock that lives as long as its holder's work: say when it
		// frees, and offer no explicit lock (one would outlive the turn).
		// A sub-agent of this session holds its locks until it stops
		// (heldDenial says so).
		frees := "when " + held.Owner + "'s turn ends"
		if idle := h.ws.HookLocks().Idle; idle > 0 {
			frees += fmt.Sprintf(", or once %s leaves it unused for %s more", held.Owner, report.Human(max(held.Left, 0)))
		}
		waited := ""
		if got.Waited > 0 {
			waited = fmt.Sprintf(" (agentlock waited %s for it)", report.Human(got.Waited))
		}
		h.res.Deny = fmt.Sprintf("agentlock: %s, who is editing it now (last edit %s ago), so you (%s) must not edit it now%s. "+
			"It frees %s: work on another file and try this one again after that. Do not work around this; ask %s if it cannot wait.",
			core.HeldBy(held.Path, "", "session "+core.Holder(held.Owner, held.Relation)+got.Places[held.Owner]), report.Human(held.Unused), h.session, waited, frees, held.Owner)
	case errors.As(err, &held):
		h.res.Deny = h.heldDenial(held, got)
	case errors.As(err, &corrupt):
		h.res.Deny = fmt.Sprintf("agentlock: a lock file cannot be read (%v), so agentlock cannot tell who holds the file: "+
			"do not edit it; ask a person to check `agentlock status` and clear it with `agentlock release --force`.", err)
	case errors.Is(err, core.ErrBusy):
		// A path is known but could not be checked: another process is
		// stuck inside its lock file. Letting the edit through would let
		// it past a lock that may be held.
		h.res.Deny = fmt.Sprintf("agentlock: could not check the lock (%v), so agentlock cannot tell who holds the file: "+
			"do not edit it now; try again in a moment, and if this persists ask a person to find the stopped agentlock process.", err)
	default:
		// The path's own store decides; one that cannot be used (no etcd
		// in this build, unreadable settings) is no reason to use another.
		h.deny("%v", err)
	}
}

// heldDenial words the denial of an edit of a path another session holds
// (held), naming how that session is related to this one through
// sub-agents. A sub-agent is never told to wait with agentlock acquire:
// its shell commands may act for its parent (Claude Code's do), and a
// lock its parent took that way is one it may not edit.
func (h run) heldDenial(held *core.HeldError, got session.Acquired) string {
	holder := core.HeldBy(held.Path, held.Via, "session "+core.Holder(held.Owner, held.Relation)+got.Places[held.Owner])
	instead := "work on another file"
	if held.Via != "" {
		instead = "work outside that area"
	}
	subAgent := got.Parent != ""
	switch {
	case held.Relation == core.Parent:
		return fmt.Sprintf("agentlock: %s (renewed %s ago), which took it itself, so you (%s), its sub-agent, must not edit it. "+
			"Do not work around this: %s, or tell your session that you need it. "+
			"Your shell commands may act for %s: if you ran `agentlock acquire` on it yourself, run `agentlock release %s`, then edit it (your edits are locked for you).",
			holder, report.Human(held.Age), h.session, instead, held.Owner, report.ShellQuote(held.Path))
	case held.Relation == core.Child:
		return fmt.Sprintf("agentlock: %s (renewed %s ago), so you (%s) must not edit it while that sub-agent works. "+
			"Do not work around this: %s, or wait for it to finish with `%s`.",
			holder, report.Human(held.Age), h.session, instead, report.WaitCommand(held.Path))
	case subAgent:
		return fmt.Sprintf("agentlock: %s (renewed %s ago), so you (%s) must not edit it now. "+
			"Do not work around this: %s and come back to this one later, or tell your session that you need it.",
			holder, report.Human(held.Age), h.session, instead)
	}
	return fmt.Sprintf("agentlock: %s (renewed %s ago), so you (%s) must not edit it now. "+
		"Do not work around this: %s, wait with `%s`, or ask %s.",
		holder, report.Human(held.Age), h.session, instead, report.WaitCommand(held.Path), held.Owner)
}

// deny refuses the edit because a coordinated path could not be checked.
func (h run) deny(format string, args ...any) {
	h.res.Deny = "agentlock: " + fmt.Sprintf(format, args...) +
		", so agentlock cannot check this edit: do not make it now; ask a person to run `agentlock status`."
}

// sessionStart registers the session (or marks a finished one working
// again) and gives the model its session id and the paths others hold.
func (h run) sessionStart(ctx context.Context) {
	name := h.req.Agent.Name()
	var model string // workspace.UnknownVersion when the payload does not say
	_ = json.Unmarshal(h.in.Model, &model)
	if parent := h.svc.Identity(ctx).Parent; parent != "" {
		// A sub-agent starts (Claude Code's SubagentStart): its session is
		// registered under its parent. Its harness process is its
		// parent's, recorded already, and whose commands answer with the
		// parent's session; the harness expects no session context here.
		entry := workspace.ChildEntry(h.session, parent)
		entry.Provider, entry.AIVersion = h.req.Agent.Provider(), model
		if _, err := h.svc.Start(ctx, session.StartRequest{Session: entry}); err != nil {
			h.res.warnf("%s session-start hook: %v", name, err)
		}
		return
	}
	_, err := h.svc.Start(ctx, session.StartRequest{Session: core.Session{SessionID: h.session, Provider: h.req.Agent.Provider(), AIVersion: model,
		WorkingOn: "(not stated yet: update it with agentlock update)"}})
	if err != nil {
		h.res.warnf("%s session-start hook: %v", name, err)
	}
	h.recordHarness()
	data := templates.SessionContextData{Session: h.session}
	list, _ := h.svc.Status(ctx, session.StatusRequest{})
	for _, s := range list.States {
		if s.Locked() && s.Owner != h.session {
			data.Held = append(data.Held, templates.HeldPath{Path: s.Path, Owner: s.Owner})
		}
	}
	text, err := templates.SessionContext(data)
	if err == nil {
		h.res.Output, err = h.req.Agent.SessionContext(text)
	}
	if err != nil {
		h.res.warnf("%s session-start hook: %v", name, err)
	}
}

// renew renews every lock the session holds, as heartbeat --all does, and
// records the versions of what the tool read or the session's edit wrote
// (the after-tool event: see recordVersions).
func (h run) renew(ctx context.Context) {
	renewed, err := h.svc.RenewSession(ctx, h.session, false)
	for _, n := range append(renewed.Notices, err) {
		if n != nil {
			h.res.warnf("%s renew hook: %v", h.req.Agent.Name(), n)
		}
	}
	h.recordVersions(ctx)
	h.tellUntold(ctx)
}

// turnEnd ends a turn of the session (session.Service.EndTurn): where the
// locks hooks take live as long as a turn, its hook-taken locks are
// released; the ones it took on purpose stay.
func (h run) turnEnd(ctx context.Context) {
	ended, err := h.svc.EndTurn(ctx, h.session)
	if ended.Mirror != nil {
		h.res.warnf("%s turn-end hook: %v", h.req.Agent.Name(), ended.Mirror)
	}
	if err != nil {
		h.res.warnf("%s turn-end hook: %v", h.req.Agent.Name(), err)
	}
}

// sessionEnd ends the session (session.Service.End): Finished, every lock
// released, nobody's identity any more. A
// session the registry does not know is not a problem here.
func (h run) sessionEnd(ctx context.Context) {
	_, err := h.svc.End(ctx, h.session)
	for _, e := range core.Unjoin(err) {
		if !errors.Is(e, core.ErrNoSession) {
			h.res.warnf("%s session-end hook: %v", h.req.Agent.Name(), e)
		}
	}
}
