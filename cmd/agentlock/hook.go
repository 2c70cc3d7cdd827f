package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/all"
	"github.com/agentlock/agentlock/templates"
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

// errHookDenied: the pre-edit hook refused the edit and said why on stderr.
var errHookDenied = errors.New("edit denied")

// maxHookInput bounds the stdin payload read (a Write tool's content may be
// large; the paths are all agentlock needs).
const maxHookInput = 64 << 20

func newHookCmd(f *factory) *cobra.Command {
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
		RunE: runE(func(cmd *cobra.Command, args []string) error {
			return hookRun(f, cmd, args)
		}),
	}
}

func hookRun(f *factory, cmd *cobra.Command, args []string) error {
	agent, ok := all.Lookup(args[0])
	if !ok {
		return usagef("unknown agent %q (known: %s)", args[0], strings.Join(all.Names(), ", "))
	}
	event := args[1]
	if !slices.Contains(hookEvents, event) {
		return usagef("unknown hook event %q (known: %s)", event, strings.Join(hookEvents, ", "))
	}
	c, err := loadConfig(cmd)
	if err != nil {
		return err
	}
	in, err := readHookInput(f.In)
	if err != nil {
		warnf(f, "%s %s hook: %v; doing nothing", agent.Name(), event, err)
		return nil
	}
	cwd, err := hookCwd(in)
	if err != nil {
		warnf(f, "%s %s hook: %v; doing nothing", agent.Name(), event, err)
		return nil
	}
	project := core.FindProject(cwd)
	if !enabled(c, project) {
		return nil
	}
	session := hookSession(c, agent, in)
	if session == "" {
		warnf(f, "%s %s hook: no session id (no AGENTLOCK_SESSION, no session_id in the payload); doing nothing", agent.Name(), event)
		return nil
	}
	if err := core.ValidateSession(session); err != nil {
		warnf(f, "%s %s hook: %v; doing nothing", agent.Name(), event, err)
		return nil
	}
	h := hookContext{f: f, c: c, agent: agent, in: in, cwd: cwd, project: project, session: session}
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
	f       *factory
	c       config
	agent   integrations.Agent
	in      integrations.HookInput
	cwd     string // real path of the payload's cwd
	project string // the project of cwd ("" when none)
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
	return workDir()
}

// enabled reports whether agentlock is set up for a hook run in project:
// configured by environment, or the project has an .agent-registry folder.
// Kimi's hooks are user-wide, so this must be quick and quiet elsewhere.
func enabled(c config, project string) bool {
	if c.Home != "" || c.LockDir != "" || c.Registry != "" {
		return true
	}
	return hasHome(project)
}

// hasHome reports whether project has its .agent-registry folder.
func hasHome(project string) bool {
	if project == "" {
		return false
	}
	info, err := os.Stat(filepath.Join(project, core.HomeDirName))
	return err == nil && info.IsDir()
}

// hookSession resolves the hook's session: an explicit one (--session or
// AGENTLOCK_SESSION, which the wrapper scripts export), else the harness's
// own id from its variable or from the payload, as "<agent>-<id>".
func hookSession(c config, agent integrations.Agent, in integrations.HookInput) string {
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
		warnf(h.f, "%s pre-edit hook: %v; the edit is not gated", h.agent.Name(), err)
		return nil
	}
	// Only paths in the session's project or another agentlock project
	// are coordinated: an edit of ~/.claude/settings.json or /tmp/x is
	// nobody's business here, even when a wrapper configured the folders.
	var gated []string
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(h.cwd, p)
		}
		if project := core.FindProject(p); project != "" && (project == h.project || hasHome(project)) {
			gated = append(gated, p)
		}
	}
	paths = gated
	if len(paths) == 0 {
		return nil
	}
	leases, err := h.c.locker().AcquireAll(paths, h.session)
	var held *core.HeldError
	var corrupt *core.CorruptError
	switch {
	case errors.As(err, &held):
		fmt.Fprintf(h.f.ErrOut, "agentlock: %s is locked by session %s (renewed %s ago), so you (%s) must not edit it now. "+
			"Do not work around this: work on another file, wait with `agentlock acquire --wait 5m %s --session %s`, or ask %s.\n",
			held.Path, held.Owner, human(held.Age), h.session, shellQuote(held.Path), h.session, held.Owner)
		return errHookDenied
	case errors.As(err, &corrupt):
		fmt.Fprintf(h.f.ErrOut, "agentlock: a lock file cannot be read (%v), so agentlock cannot tell who holds the file: "+
			"do not edit it; ask a person to check `agentlock status` and clear it with `agentlock release --force`.\n", err)
		return errHookDenied
	case err != nil:
		warnf(h.f, "%s pre-edit hook: %v; the edit is not gated", h.agent.Name(), err)
		return nil
	}
	real := make([]string, len(leases))
	for i, l := range leases {
		real[i] = l.Path
	}
	syncDoNotTouch(h.f, h.c, h.session, real, true)
	return nil
}

// sessionStart registers the session (or marks a finished one working
// again) and gives the model its session id and the paths others hold.
func (h hookContext) sessionStart() {
	reg, err := h.c.registryFor(h.cwd)
	if err == nil {
		err = h.registerOnce(reg)
	}
	if err != nil {
		warnf(h.f, "%s session-start hook: %v", h.agent.Name(), err)
	}
	data := templates.SessionContextData{Session: h.session}
	if dir, err := h.c.lockDirFor(h.cwd); err == nil {
		states, _, _ := h.c.locker().List(dir)
		for _, s := range states {
			if s.Locked() && s.Owner != h.session {
				data.Held = append(data.Held, templates.HeldPath{Path: s.Path, Owner: s.Owner})
			}
		}
	}
	text, err := templates.SessionContext(data)
	if err == nil {
		var out []byte
		if out, err = h.agent.SessionContext(text); err == nil {
			_, err = h.f.Out.Write(out)
		}
	}
	if err != nil {
		warnf(h.f, "%s session-start hook: %v", h.agent.Name(), err)
	}
}

func (h hookContext) registerOnce(reg *core.Registry) error {
	doc, err := reg.Load()
	if err != nil {
		return err
	}
	if s, ok := doc.Find(h.session); ok {
		if s.Status == core.StatusWorking {
			return nil
		}
		_, err := reg.Update(h.session, func(s *core.Session) { s.Status = core.StatusWorking })
		return err
	}
	model := "unknown"
	var m string
	if json.Unmarshal(h.in.Model, &m) == nil && m != "" {
		model = m
	}
	_, err = reg.Register(core.Session{SessionID: h.session, Provider: h.agent.Provider(), AIVersion: model,
		WorkingOn: "(not stated yet: update it with agentlock update)"})
	return err
}

func (h hookContext) renew() {
	dir, err := h.c.lockDirFor(h.cwd)
	if err == nil {
		_, err = h.c.locker().RenewSession(dir, h.session)
	}
	if err != nil {
		warnf(h.f, "%s renew hook: %v", h.agent.Name(), err)
	}
}

func (h hookContext) sessionEnd() {
	reg, err := h.c.registryFor(h.cwd)
	if err == nil {
		if _, err = reg.Finish(h.session); errors.Is(err, core.ErrNoSession) {
			err = nil
		}
	}
	if err != nil {
		warnf(h.f, "%s session-end hook: %v", h.agent.Name(), err)
	}
	dir, err := h.c.lockDirFor(h.cwd)
	if err == nil {
		_, err = h.c.locker().ReleaseSession(dir, h.session)
	}
	if err != nil {
		warnf(h.f, "%s session-end hook: %v", h.agent.Name(), err)
	}
}

func warnf(f *factory, format string, args ...any) {
	fmt.Fprintf(f.ErrOut, "agentlock: warning: "+format+"\n", args...)
}
