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
	"github.com/agentlock/agentlock/identity"
	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/internal/sys/procs"
	"github.com/agentlock/agentlock/report"
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
	// record folder; nil means identity.LookupSelf.
	Lookup func(dir string) identity.Found
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
func Run(ctx context.Context, req Request) Result {
	var res Result
	name := req.Agent.Name()
	in, err := readPayload(req.Payload, req.Agent)
	if errors.Is(err, errPayloadTooLarge) && req.Event == PreEdit {
		// The path is in the part not read: it cannot be checked. Deny
		// where agentlock is in use, stay quiet elsewhere.
		if wd, werr := workspace.WorkDir(); werr == nil {
			// A workspace that cannot be opened (its store unusable, say)
			// cannot tell that agentlock is not in use: deny there too.
			if ws, oerr := workspace.Open(wd, req.Settings); oerr == nil && ws.Enabled() || oerr != nil && !errors.Is(oerr, workspace.ErrNoWorkspace) {
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
	ws, err := workspace.Open(cwd, req.Settings)
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
		// A session whose agent exited without its session-end hook
		// (kimi -p) is finished by the next hook that runs here.
		if _, err := ws.FinishExited(ctx); err != nil {
			res.warnf("%s %s hook: %v", name, req.Event, err)
		}
	}
	if req.Event == PreEdit {
		// The edited paths decide, not the working folder: a session may
		// work outside the project and edit a file of it, or through an
		// alias.
		h := run{req: req, in: in, cwd: cwd, ws: ws, res: &res}
		h.preEdit(ctx)
		return res
	}
	if !ws.Enabled() {
		return res // not an agentlock project: hooks stay quiet (Kimi's are user-wide)
	}
	for _, p := range req.Problems {
		res.warnf("%s %s hook: %v; running with the default", name, req.Event, p)
	}
	session := sessionOf(req, in, ws).Session
	if session == "" {
		res.warnf("%s %s hook: no session id (no AGENTLOCK_SESSION, no session_id in the payload, no recorded agent process); doing nothing", name, req.Event)
		return res
	}
	if err := core.ValidateSession(session); err != nil {
		res.warnf("%s %s hook: %v; doing nothing", name, req.Event, err)
		return res
	}
	h := run{req: req, in: in, cwd: cwd, ws: ws, session: session, res: &res}
	switch req.Event {
	case SessionStart:
		h.sessionStart(ctx)
	case Renew:
		h.renew(ctx)
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
	cwd     string               // real path of the session's working folder
	ws      *workspace.Workspace // the workspace of cwd
	session string
	res     *Result
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

// sessionOf resolves the hook's session in the order of package identity:
// the explicit one, a wrapper script among the ancestors, the harness's own
// id from its environment, then from the payload, as "<agent>-<id>", the id
// another harness exported, and last the session recorded for the nearest
// recorded agent process among the hook's ancestors, in ws's home.
func sessionOf(req Request, in integrations.HookInput, ws *workspace.Workspace) identity.Identity {
	dir := identity.Dir(ws.Home)
	lookup := identity.LookupSelf(dir)
	if req.Lookup != nil {
		lookup = func() identity.Found { return req.Lookup(dir) }
	}
	inputs := identity.Inputs{Env: req.Session, Payload: req.Fallback, Lookup: lookup}
	if req.HarnessSession != "" {
		inputs.Harness = integrations.SessionID(req.Agent, req.HarnessSession)
		inputs.HarnessVar = req.Agent.SessionEnvVar()
	}
	if in.SessionID != "" {
		inputs.Payload = integrations.SessionID(req.Agent, in.SessionID)
	}
	return identity.Resolve(inputs)
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
	harness, ok := identity.Harness(chain)
	if !ok {
		h.res.warnf("%s session-start hook: no agent process above this hook (only shells up to PID 1): "+
			"commands without a session id will not find %s", h.req.Agent.Name(), h.session)
		return
	}
	now := time.Now
	if h.req.Settings.Now != nil {
		now = h.req.Settings.Now
	}
	if _, err := identity.Write(identity.Dir(h.ws.Home), harness, h.session, h.req.Agent.Name(), identity.KindHook, now()); err != nil {
		h.res.warnf("%s session-start hook: %v", h.req.Agent.Name(), err)
	}
}

// preEdit takes the locks of every path the tool will change, all or none,
// and denies the edit when another session holds one of them. A path that
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
	paths, unresolved := h.ws.Coordinated(paths, h.cwd)
	if len(unresolved) > 0 && h.ws.Enabled() {
		h.deny("agentlock cannot resolve the path of this edit (%v)", unresolved[0])
		return
	}
	if len(paths) == 0 {
		return
	}
	if len(h.req.Problems) > 0 {
		h.res.Deny = fmt.Sprintf("agentlock: %v, so agentlock cannot check this edit: do not make it now; ask a person to fix that variable (agentlock doctor shows it).", h.req.Problems[0])
		return
	}
	h.session = sessionOf(h.req, h.in, h.ws).Session
	if h.session == "" {
		h.deny("no session id (no AGENTLOCK_SESSION, no session_id in the hook payload, no recorded agent process) to lock %s for", paths[0])
		return
	}
	if err := core.ValidateSession(h.session); err != nil {
		h.deny("%v", err)
		return
	}
	groups, err := h.byWorkspace(paths)
	if err != nil {
		// The path's own store decides; one that cannot be used (no etcd
		// in this build, unreadable settings) is no reason to use another.
		h.deny("%v", err)
		return
	}
	for _, group := range groups {
		if !h.acquire(ctx, group.ws, group.paths) {
			return
		}
	}
	for _, group := range groups {
		h.conflicts(ctx, group.ws, group.paths)
	}
}

// conflicts tells the model about the files of this edit that another
// worktree of the repository changed too; with the repository's
// deny-conflicts policy it denies the edit instead. A failure to ask git
// is only a warning: the lock, the one thing that must hold, is taken.
func (h run) conflicts(ctx context.Context, ws *workspace.Workspace, paths []string) {
	found, err := ws.Conflicts(ctx, paths)
	if err != nil {
		h.res.warnf("could not check other worktrees for changes of these files: %v", err)
		return
	}
	for _, c := range found {
		h.res.Notices = append(h.res.Notices, "agentlock: "+c.Message())
	}
	if len(found) > 0 && ws.DenyConflicts() {
		// The lock just taken stays the session's: it did not edit, and
		// it may wait on the other worktree while holding it.
		h.res.Deny = "agentlock: " + found[0].Message() + "; this repository denies such edits (agentlock init --deny-conflicts): ask the other worktree's session, or a person, before editing it."
	}
}

// deny refuses the edit because a coordinated path could not be checked.
func (h run) deny(format string, args ...any) {
	h.res.Deny = "agentlock: " + fmt.Sprintf(format, args...) +
		", so agentlock cannot check this edit: do not make it now; ask a person to run `agentlock status`."
}

// pathGroup is the paths whose locks live in one workspace.
type pathGroup struct {
	ws    *workspace.Workspace
	paths []string
}

// byWorkspace groups real paths by the workspace their real path belongs
// to, in the order first met: an alias's lock lives in its target's
// project. A workspace that cannot be opened is an error: its path cannot
// be checked.
func (h run) byWorkspace(paths []string) ([]pathGroup, error) {
	var groups []pathGroup
	index := map[string]int{}
	for _, p := range paths {
		ws, err := h.ws.Of(p)
		if err != nil {
			return nil, err
		}
		i, ok := index[ws.LockDir]
		if !ok {
			i = len(groups)
			index[ws.LockDir] = i
			groups = append(groups, pathGroup{ws: ws})
		}
		groups[i].paths = append(groups[i].paths, p)
	}
	return groups, nil
}

// acquire takes the locks of paths in ws, all or none, and reports whether
// the edit may go on.
func (h run) acquire(ctx context.Context, ws *workspace.Workspace, paths []string) bool {
	if home, held := ws.LegacyHeld(ctx, paths); len(held) > 0 {
		h.res.warnf("%s", report.LegacyHeld(home, held))
	}
	_, warning, err := ws.Acquire(ctx, paths, h.session)
	var held *core.HeldError
	var corrupt *core.CorruptError
	switch {
	case errors.As(err, &held) && held.Queued:
		h.res.Deny = fmt.Sprintf("agentlock: %s, so you (%s) must not edit it now. "+
			"Do not work around this: work on another file, wait your turn with `%s`, or ask %s.",
			report.QueuedFor(held.Path, "session "+held.Owner+ws.Place(ctx, held.Owner), held.Age), h.session, report.WaitCommand(held.Path), held.Owner)
	case errors.As(err, &held):
		instead := "work on another file"
		if held.Via != "" {
			instead = "work outside that area"
		}
		h.res.Deny = fmt.Sprintf("agentlock: %s (renewed %s ago), so you (%s) must not edit it now. "+
			"Do not work around this: %s, wait with `%s`, or ask %s.",
			core.HeldBy(held.Path, held.Via, "session "+held.Owner+ws.Place(ctx, held.Owner)), report.Human(held.Age), h.session, instead, report.WaitCommand(held.Path), held.Owner)
	case errors.As(err, &corrupt):
		h.res.Deny = fmt.Sprintf("agentlock: a lock file cannot be read (%v), so agentlock cannot tell who holds the file: "+
			"do not edit it; ask a person to check `agentlock status` and clear it with `agentlock release --force`.", err)
	case errors.Is(err, core.ErrBusy):
		// A path is known but could not be checked: another process is
		// stuck inside its lock file. Letting the edit through would let
		// it past a lock that may be held.
		h.res.Deny = fmt.Sprintf("agentlock: could not check the lock (%v), so agentlock cannot tell who holds the file: "+
			"do not edit it now; try again in a moment, and if this persists ask a person to find the stopped agentlock process.", err)
	case err != nil:
		h.deny("%v", err)
	case warning != nil:
		h.res.warnf("%v", warning)
	}
	return h.res.Deny == ""
}

// sessionStart registers the session (or marks a finished one working
// again) and gives the model its session id and the paths others hold.
func (h run) sessionStart(ctx context.Context) {
	name := h.req.Agent.Name()
	var model string // workspace.UnknownVersion when the payload does not say
	_ = json.Unmarshal(h.in.Model, &model)
	_, err := h.ws.StartSession(ctx, core.Session{SessionID: h.session, Provider: h.req.Agent.Provider(), AIVersion: model,
		WorkingOn: "(not stated yet: update it with agentlock update)"}, workspace.SessionStart{})
	if err != nil {
		h.res.warnf("%s session-start hook: %v", name, err)
	}
	h.recordHarness()
	data := templates.SessionContextData{Session: h.session}
	states, _, _ := h.ws.Locker().List(ctx)
	for _, s := range states {
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

// renew renews every lock the session holds, as heartbeat --all does.
func (h run) renew(ctx context.Context) {
	notices, err := h.ws.KeepSessionAlive(ctx, h.session)
	for _, n := range append(notices, err) {
		if n != nil {
			h.res.warnf("%s renew hook: %v", h.req.Agent.Name(), n)
		}
	}
}

// sessionEnd finishes the session: Finished, every lock released. A
// session the registry does not know is not a problem here.
func (h run) sessionEnd(ctx context.Context) {
	_, err := h.ws.Finish(ctx, h.session)
	for _, e := range core.Unjoin(err) {
		if !errors.Is(e, core.ErrNoSession) {
			h.res.warnf("%s session-end hook: %v", h.req.Agent.Name(), e)
		}
	}
}
