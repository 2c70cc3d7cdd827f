package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/all"
	"github.com/agentlock/agentlock/templates"
	"github.com/agentlock/agentlock/workspace"
)

// Hook events: agentlock's names, mapped to each harness's own by the
// hook configuration templates.
const (
	eventPreEdit      = "pre-edit"
	eventSessionStart = "session-start"
	eventRenew        = "renew"
	eventSessionEnd   = "session-end"
)

var hookEvents = []string{eventPreEdit, eventSessionStart, eventRenew, eventSessionEnd}

// maxHookInput bounds the stdin payload read (a Write tool's content may be
// large; the paths are all agentlock needs).
const maxHookInput = 64 << 20

// HookOptions are the inputs of agentlock hook.
type HookOptions struct {
	IO     *IOStreams
	Config func() (*config, error)

	Agent, Event string
}

func newCmdHook(f *Factory, runF func(*HookOptions) error) *cobra.Command {
	opts := &HookOptions{IO: f.IO, Config: f.Config}
	return &cobra.Command{
		Use:   "hook <agent> <event>",
		Short: "Run one agent hook: the stable command that generated hooks call",
		Long: `Run a hook for an agent harness (` + strings.Join(all.Names(), ", ") + `). The harness writes its JSON
payload on stdin. Events:

  pre-edit       take the locks of the files the tool is about to change, for the
                 session (all or none); when another session holds one, deny the
                 edit: exit 2, nothing on stdout, one line on stderr naming the
                 holder and what to do instead
  session-start  register the session and tell the model its session id and who
                 holds what
  renew          renew every lock the session holds
  session-end    finish the session: mark it Finished, release all its locks

The session is AGENTLOCK_SESSION when set, else the harness's own id as
<agent>-<id>. Outside a project set up with "agentlock init" (no
.agent-registry folder), every hook exits 0 at once. Apart from a denied
edit, hooks always exit 0 and report problems on stderr: locks are advisory,
and a broken lock folder must not stop an agent's work.`,
		Example: `  echo '{"cwd":"/repo","session_id":"abc","tool_name":"Edit","tool_input":{"file_path":"/repo/a.go"}}' | agentlock hook claude pre-edit`,
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Agent, opts.Event = args[0], args[1]
			if runF != nil {
				return runF(opts)
			}
			return hookRun(opts)
		},
	}
}

func hookRun(opts *HookOptions) error {
	agent, ok := all.Lookup(opts.Agent)
	if !ok {
		return usagef("unknown agent %q (known: %s)", opts.Agent, strings.Join(all.Names(), ", "))
	}
	event := opts.Event
	if !slices.Contains(hookEvents, event) {
		return usagef("unknown hook event %q (known: %s)", event, strings.Join(hookEvents, ", "))
	}
	c, err := opts.Config()
	if err != nil {
		return err
	}
	io := opts.IO
	in, err := readHookInput(io.In)
	if err != nil {
		warnf(io, "%s %s hook: %v; doing nothing", agent.Name(), event, err)
		return nil
	}
	cwd, err := hookCwd(in)
	if err != nil {
		warnf(io, "%s %s hook: %v; doing nothing", agent.Name(), event, err)
		return nil
	}
	ws, err := c.workspaceOf(cwd)
	if err != nil || !ws.Enabled() {
		return nil
	}
	session := hookSession(c, agent, in)
	if session == "" {
		warnf(io, "%s %s hook: no session id (no AGENTLOCK_SESSION, no session_id in the payload); doing nothing", agent.Name(), event)
		return nil
	}
	if err := core.ValidateSession(session); err != nil {
		warnf(io, "%s %s hook: %v; doing nothing", agent.Name(), event, err)
		return nil
	}
	h := hookContext{io: io, agent: agent, in: in, cwd: cwd, ws: ws, session: session}
	switch event {
	case eventPreEdit:
		return h.preEdit()
	case eventSessionStart:
		h.sessionStart()
	case eventRenew:
		h.renew()
	case eventSessionEnd:
		h.sessionEnd()
	}
	return nil
}

type hookContext struct {
	io      *IOStreams
	agent   integrations.Agent
	in      integrations.HookInput
	cwd     string               // real path of the payload's cwd
	ws      *workspace.Workspace // the workspace of cwd
	session string
}

func readHookInput(r io.Reader) (integrations.HookInput, error) {
	var in integrations.HookInput
	data, err := io.ReadAll(io.LimitReader(r, maxHookInput))
	if err != nil {
		return in, fmt.Errorf("read the payload: %w", err)
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return in, nil
	}
	if err := json.Unmarshal(data, &in); err != nil {
		return in, fmt.Errorf("the payload is not JSON: %w", err)
	}
	return in, nil
}

// hookCwd is the payload's cwd (the session's), else the process's.
func hookCwd(in integrations.HookInput) (string, error) {
	if in.Cwd != "" {
		return core.RealPath(in.Cwd, "")
	}
	return workspace.WorkDir()
}

// hookSession resolves the hook's session: an explicit one (--session or
// AGENTLOCK_SESSION, which the wrapper scripts export), else the harness's
// own id from its variable or from the payload, as "<agent>-<id>".
func hookSession(c *config, agent integrations.Agent, in integrations.HookInput) string {
	switch {
	case c.SessionSource == "--session" || c.SessionSource == "AGENTLOCK_SESSION":
		return c.Session
	case c.Harness[agent.Name()] != "":
		return integrations.SessionID(agent, c.Harness[agent.Name()])
	case in.SessionID != "":
		return integrations.SessionID(agent, in.SessionID)
	}
	return c.Session
}

// preEdit takes the locks of every path the tool will change, all or none.
func (h hookContext) preEdit() error {
	paths, err := h.agent.EditedPaths(h.in)
	if err != nil {
		warnf(h.io, "%s pre-edit hook: %v; the edit is not gated", h.agent.Name(), err)
		return nil
	}
	paths = h.ws.Coordinated(paths, h.cwd)
	if len(paths) == 0 {
		return nil
	}
	_, warning, err := h.ws.Acquire(paths, h.session)
	var held *core.HeldError
	var corrupt *core.CorruptError
	switch {
	case errors.As(err, &held):
		fmt.Fprintf(h.io.ErrOut, "agentlock: %s is locked by session %s (renewed %s ago), so you (%s) must not edit it now. "+
			"Do not work around this: work on another file, wait with `agentlock acquire --wait 5m %s --session %s`, or ask %s.\n",
			held.Path, held.Owner, human(held.Age), h.session, shellQuote(held.Path), h.session, held.Owner)
		return errHookDenied
	case errors.As(err, &corrupt):
		fmt.Fprintf(h.io.ErrOut, "agentlock: a lock file cannot be read (%v), so agentlock cannot tell who holds the file: "+
			"do not edit it; ask a person to check `agentlock status` and clear it with `agentlock release --force`.\n", err)
		return errHookDenied
	case err != nil:
		warnf(h.io, "%s pre-edit hook: %v; the edit is not gated", h.agent.Name(), err)
		return nil
	}
	warn(h.io, warning)
	return nil
}

// sessionStart registers the session (or marks a finished one working
// again) and gives the model its session id and the paths others hold.
func (h hookContext) sessionStart() {
	model := "unknown"
	var m string
	if json.Unmarshal(h.in.Model, &m) == nil && m != "" {
		model = m
	}
	err := h.ws.StartSession(core.Session{SessionID: h.session, Provider: h.agent.Provider(), AIVersion: model,
		WorkingOn: "(not stated yet: update it with agentlock update)"})
	if err != nil {
		warnf(h.io, "%s session-start hook: %v", h.agent.Name(), err)
	}
	data := templates.SessionContextData{Session: h.session}
	states, _, _ := h.ws.Locker().List()
	for _, s := range states {
		if s.Locked() && s.Owner != h.session {
			data.Held = append(data.Held, templates.HeldPath{Path: s.Path, Owner: s.Owner})
		}
	}
	text, err := templates.SessionContext(data)
	if err == nil {
		var out []byte
		if out, err = h.agent.SessionContext(text); err == nil {
			_, err = h.io.Out.Write(out)
		}
	}
	if err != nil {
		warnf(h.io, "%s session-start hook: %v", h.agent.Name(), err)
	}
}

func (h hookContext) renew() {
	if _, err := h.ws.Locker().RenewSession(h.session); err != nil {
		warnf(h.io, "%s renew hook: %v", h.agent.Name(), err)
	}
}

func (h hookContext) sessionEnd() {
	_, err := h.ws.Finish(h.session)
	for _, e := range joined(err) {
		if e != nil && !errors.Is(e, core.ErrNoSession) {
			warnf(h.io, "%s session-end hook: %v", h.agent.Name(), e)
		}
	}
}
