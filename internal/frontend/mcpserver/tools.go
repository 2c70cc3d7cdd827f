package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/integrations/all"
	"github.com/agentlock/agentlock/internal/frontend/sessionarg"
	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/session"
	"github.com/agentlock/agentlock/workspace"
)

// Inputs of the tools. Paths are relative to the project (the server's
// working folder) or absolute.
type (
	// AcquireIn is the input of acquire.
	AcquireIn struct {
		Paths       []string `json:"paths,omitempty" jsonschema:"files to lock before you modify them (all or none)"`
		Areas       []string `json:"areas,omitempty" jsonschema:"folders to lock with every path below them"`
		WaitSeconds int      `json:"wait_seconds,omitempty" jsonschema:"when a path is held, retry until it is free or this many seconds have passed (keep it under your tool timeout)"`
		Session     string   `json:"session,omitempty" jsonschema:"leave out (see the server's instructions)"`
	}
	// PathsIn is the input of release and check.
	PathsIn struct {
		Paths   []string `json:"paths" jsonschema:"files or areas (folders, written with a final /)"`
		Session string   `json:"session,omitempty" jsonschema:"leave out (see the server's instructions)"`
	}
	// HeartbeatIn is the input of heartbeat.
	HeartbeatIn struct {
		Paths   []string `json:"paths,omitempty" jsonschema:"locks to renew; none renews every lock the session holds"`
		Session string   `json:"session,omitempty" jsonschema:"leave out (see the server's instructions)"`
	}
	// SessionIn is the input of the tools that take nothing else.
	SessionIn struct {
		Session string `json:"session,omitempty" jsonschema:"leave out (see the server's instructions)"`
	}
	// StatusIn is the input of status.
	StatusIn struct {
		All bool `json:"all,omitempty" jsonschema:"also list released (free) lock files"`
	}
	// RegisterIn is the input of register.
	RegisterIn struct {
		WorkingOn   string   `json:"working_on" jsonschema:"what the session works on, in a sentence"`
		Provider    string   `json:"provider,omitempty" jsonschema:"vendor of the agent (default: from the session id)"`
		AIVersion   string   `json:"ai_version,omitempty" jsonschema:"model or CLI version"`
		Space       []string `json:"space,omitempty" jsonschema:"paths or areas the session works in"`
		TodoPresent []string `json:"todo_present,omitempty" jsonschema:"tasks in progress"`
		Claim       bool     `json:"claim,omitempty" jsonschema:"take the space entries as area locks (all or none)"`
		Session     string   `json:"session,omitempty" jsonschema:"leave out (see the server's instructions)"`
	}
	// UpdateIn is the input of update.
	UpdateIn struct {
		WorkingOn   string   `json:"working_on,omitempty" jsonschema:"what the session works on"`
		Status      string   `json:"status,omitempty" jsonschema:"OnWorking, Finished, or another word"`
		Space       []string `json:"space,omitempty" jsonschema:"paths or areas"`
		TodoPast    []string `json:"todo_past,omitempty" jsonschema:"tasks done"`
		TodoPresent []string `json:"todo_present,omitempty" jsonschema:"tasks in progress"`
		TodoFuture  []string `json:"todo_future,omitempty" jsonschema:"tasks to do"`
		Issues      string   `json:"issues,omitempty" jsonschema:"problems met (replaces the previous text)"`
		Provider    string   `json:"provider,omitempty" jsonschema:"vendor of the agent"`
		AIVersion   string   `json:"ai_version,omitempty" jsonschema:"model or CLI version"`
		Session     string   `json:"session,omitempty" jsonschema:"leave out (see the server's instructions)"`
	}
	// HandoffIn is the input of handoff.
	HandoffIn struct {
		Notes   string `json:"notes" jsonschema:"path of the handoff note (a file you wrote for the next agent)"`
		Session string `json:"session,omitempty" jsonschema:"leave out (see the server's instructions)"`
	}
)

// tool is one tool and how to add it.
type tool struct {
	name string
	add  func(*mcp.Server)
}

// newTool makes a tool whose input In is checked (check: an error is a
// mistake of the model, returned as it is) and then run as one command of
// the session service (run), printed as command (the command line's name
// of it) prints it. session gives the session argument of the input, wait
// how long the call may wait (its progress is then reported).
func newTool[In any](h handlers, name, command, desc string, refusalOK bool, session func(In) string, wait func(In) time.Duration,
	check func(In) error, run func(context.Context, *toolRun, In) error) tool {
	return tool{name: name, add: func(s *mcp.Server) {
		no := false
		ann := &mcp.ToolAnnotations{ReadOnlyHint: readOnly[name], DestructiveHint: &no, OpenWorldHint: &no}
		mcp.AddTool(s, &mcp.Tool{Name: name, Description: desc, Annotations: ann},
			func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
				if err := check(in); err != nil {
					return nil, nil, err
				}
				var d time.Duration
				if wait != nil {
					d = wait(in)
				}
				return h.run(ctx, req, name, command, session(in), d, refusalOK, func(ctx context.Context, c *toolRun) error { return run(ctx, c, in) })
			})
	}}
}

// readOnly are the tools that change nothing (annotated readOnlyHint);
// none of the tools is destructive or reaches outside the project's locks
// and registry.
var readOnly = map[string]bool{"check": true, "status": true, "whoami": true}

// tools lists the server's tools. Each runs what the command line's
// command of the same name runs, in the same order of checks, and prints
// it the same way.
func tools(h handlers) []tool {
	return []tool{
		newTool(h, "acquire", "acquire", "Lock files (paths) and folders (areas) for your session before you modify them; renews a lock you hold. "+
			"All or none. A refusal names the session that holds the path: do not modify it and do not work around the refusal — "+
			"wait (wait_seconds), work on something else, or ask the holder. Same records as agentlock acquire --json.", false,
			func(in AcquireIn) string { return in.Session },
			func(in AcquireIn) time.Duration { return time.Duration(in.WaitSeconds) * time.Second },
			func(in AcquireIn) error {
				if len(in.Paths)+len(in.Areas) == 0 {
					return fmt.Errorf("acquire: name at least one path or area")
				}
				if in.WaitSeconds < 0 {
					return fmt.Errorf("acquire: wait_seconds must not be negative")
				}
				_, err := pathArgs(in.Paths, in.Areas)
				return err
			},
			func(ctx context.Context, c *toolRun, in AcquireIn) error {
				args, _ := pathArgs(in.Paths, in.Areas)
				paths, id, err := sessionarg.Of(ctx, c.svc).PathsAndSession("agentlock acquire", args, sessionarg.NewLock)
				if err != nil {
					return err
				}
				wait := time.Duration(in.WaitSeconds) * time.Second
				waited := false
				got, err := c.svc.Acquire(ctx, session.AcquireRequest{Paths: paths, Session: id, Wait: wait, JudgeViews: true, OnWait: func(w session.Waiting) {
					waited = true
					c.out.Waits(w)
					if c.wait != nil && w.Held != nil {
						c.wait.set(report.Waiting(w.Held, w.Wait))
					}
				}})
				if stale := (*session.StaleError)(nil); errors.As(err, &stale) {
					// The session read the file before another changed it:
					// refused as the pre-edit hook refuses a stale write,
					// the file reserved for it (docs/read-versions.md).
					err = staleRefusal(err, stale)
				}
				if err := c.out.Acquisition(got, err, wait, waited); err != nil {
					return err
				}
				if ctx.Err() != nil {
					// Taken as the call was cancelled: nobody hears of
					// the success, so nobody would release the locks.
					_, _ = got.Undo(context.WithoutCancel(ctx))
					return ctx.Err()
				}
				return c.out.Leases(got.Leases)
			}),
		newTool(h, "release", "release", "Release locks your session holds (files or areas), once you are done with them. Same records as agentlock release --json.", false,
			func(in PathsIn) string { return in.Session }, nil,
			needPaths("release: name at least one path (release_all releases every lock of the session)"),
			func(ctx context.Context, c *toolRun, in PathsIn) error {
				paths, id, err := c.paths(ctx, "agentlock release", in.Paths, sessionarg.ExistingLock)
				if err != nil {
					return err
				}
				got, err := c.svc.Release(ctx, session.ReleaseRequest{Paths: paths, Session: id})
				return c.out.Releases(got, err, false)
			}),
		newTool(h, "release_all", "release", "Release every lock your session holds. Same records as agentlock release --all --json.", false,
			func(in SessionIn) string { return in.Session }, nil, func(SessionIn) error { return nil },
			func(ctx context.Context, c *toolRun, _ SessionIn) error {
				id, err := sessionarg.Of(ctx, c.svc).AllSession("agentlock release", nil)
				if err != nil {
					return err
				}
				got, err := c.svc.Release(ctx, session.ReleaseRequest{All: true, Session: id})
				return c.out.Releases(got, err, true)
			}),
		newTool(h, "check", "check", "Tell whether paths are free, locked by you, locked by another session, or stale, without changing anything. "+
			"A path another session holds is a result, not an error. Same records as agentlock check --json.", true,
			func(in PathsIn) string { return in.Session }, nil,
			needPaths("check: name at least one path"),
			func(ctx context.Context, c *toolRun, in PathsIn) error {
				paths, id, err := c.paths(ctx, "agentlock check", in.Paths, sessionarg.AnySession)
				if err != nil {
					return err
				}
				got, err := c.svc.Check(ctx, paths, id)
				return c.out.Checks(got, err)
			}),
		newTool(h, "status", "status", "List the locks held in this project: path, holder, age, expiry. Same records as agentlock status --json.", false,
			func(StatusIn) string { return "" }, nil, func(StatusIn) error { return nil },
			func(ctx context.Context, c *toolRun, in StatusIn) error {
				listing, err := c.svc.Status(ctx, session.StatusRequest{All: in.All, Orphans: true, Conflicts: true, StaleViews: true})
				if err != nil {
					return err
				}
				return c.out.Listing(listing, in.All)
			}),
		newTool(h, "heartbeat", "heartbeat", "Renew your locks so they do not expire while you still work on them (every lock of the session when no paths are given). "+
			"Same records as agentlock heartbeat --json.", false,
			func(in HeartbeatIn) string { return in.Session }, nil,
			func(in HeartbeatIn) error {
				_, err := pathArgs(in.Paths, nil)
				return err
			},
			func(ctx context.Context, c *toolRun, in HeartbeatIn) error {
				rules := sessionarg.Of(ctx, c.svc)
				var paths []string
				var id string
				var err error
				if len(in.Paths) == 0 {
					id, err = rules.AllOnly("agentlock heartbeat", nil)
				} else {
					paths, id, err = c.paths(ctx, "agentlock heartbeat", in.Paths, sessionarg.ExistingLock)
				}
				if err != nil {
					return err
				}
				if err := core.ValidateExistingSession(id); err != nil {
					return report.UsageErrorf("%v", err)
				}
				if _, err := c.svc.Workspace(ctx); err != nil {
					return err
				}
				if len(in.Paths) == 0 {
					renewed, err := c.svc.RenewSession(ctx, id, true)
					return c.out.Renewed(renewed, err, id, true)
				}
				renewals, err := c.svc.RenewPaths(ctx, paths, id)
				return c.out.RenewedPaths(renewals, err, id, true)
			}),
		newTool(h, "whoami", "whoami", "Tell which session this server acts for and where it found it. Same record as agentlock whoami --json.", false,
			func(in SessionIn) string { return in.Session }, nil, func(SessionIn) error { return nil },
			func(ctx context.Context, c *toolRun, _ SessionIn) error {
				c.out.WarnProblems(h.cfg.Problems)
				return c.out.Identity(c.svc.Identity(ctx))
			}),
		newTool(h, "register", "register", "Register your session in the registry (status OnWorking) with what it works on. Same record as agentlock register --json.", false,
			func(in RegisterIn) string { return in.Session }, nil,
			func(in RegisterIn) error {
				if strings.TrimSpace(in.WorkingOn) == "" {
					return fmt.Errorf("register: working_on is required: say in a sentence what the session works on")
				}
				return nil
			},
			func(ctx context.Context, c *toolRun, in RegisterIn) error {
				id, err := sessionarg.Of(ctx, c.svc).CommandSession("agentlock register", "")
				if err != nil {
					return err
				}
				if err := core.ValidateSession(id); err != nil {
					return report.UsageErrorf("%v", err)
				}
				space := strings.Join(in.Space, ",")
				if in.Claim && space == "" {
					return report.UsageErrorf("register --claim needs a space (--space src/auth,tests/auth)")
				}
				if _, err := c.svc.Workspace(ctx); err != nil {
					return err
				}
				var provider string
				if in.Provider == "" {
					provider = all.ProviderOf(id, c.svc.Identity(ctx).Agent)
				}
				started, err := c.svc.Register(ctx, id, session.Registration{WorkingOn: in.WorkingOn, Provider: in.Provider, AIVersion: in.AIVersion,
					Space: space, TodoPresent: strings.Join(in.TodoPresent, ","), DefaultProvider: provider, Agent: all.AgentOf(id), Claim: in.Claim})
				if err != nil {
					return err
				}
				return c.out.Registered(started, in.Claim)
			}),
		newTool(h, "update", "update", "Change fields of your session in the registry; the others are kept. Same record as agentlock update --json.", false,
			func(in UpdateIn) string { return in.Session }, nil,
			func(in UpdateIn) error {
				if len(in.edit()) == 0 {
					return fmt.Errorf("update: give at least one field to change")
				}
				return nil
			},
			func(ctx context.Context, c *toolRun, in UpdateIn) error {
				if _, err := c.svc.Workspace(ctx); err != nil {
					return err
				}
				rules := sessionarg.Of(ctx, c.svc)
				id, _, _, err := rules.SessionAndText("agentlock update", nil)
				if err != nil {
					return err
				}
				if err := rules.FlagConflict("agentlock update"); err != nil {
					return err
				}
				if id == "" {
					return sessionarg.ErrNoSession()
				}
				changed, err := c.svc.Update(ctx, id, in.edit())
				if err != nil {
					return err
				}
				return c.out.Changed(changed, "updated")
			}),
		newTool(h, "handoff", "handoff", "Record the path of a handoff note (a file you wrote) in your session's registry entry, for the next agent. "+
			"Same record as agentlock handoff --json.", false,
			func(in HandoffIn) string { return in.Session }, nil,
			func(in HandoffIn) error {
				if strings.TrimSpace(in.Notes) == "" {
					return fmt.Errorf("handoff: notes is required: the path of the note")
				}
				return nil
			},
			func(ctx context.Context, c *toolRun, in HandoffIn) error {
				if _, err := c.svc.Workspace(ctx); err != nil {
					return err
				}
				id, err := sessionarg.Of(ctx, c.svc).CommandSession("agentlock handoff "+report.ShellWord(in.Notes), "")
				if err != nil {
					return err
				}
				changed, err := c.svc.Handoff(ctx, id, in.Notes)
				if err != nil {
					return err
				}
				return c.out.Changed(changed, "handoff recorded for")
			}),
		newTool(h, "finish", "finish", "End your session: release all its locks and mark it Finished in the registry. Same records as agentlock finish --json.", false,
			func(in SessionIn) string { return in.Session }, nil, func(SessionIn) error { return nil },
			func(ctx context.Context, c *toolRun, _ SessionIn) error {
				id, err := sessionarg.Of(ctx, c.svc).CommandSession("agentlock finish", "")
				if err != nil {
					return err
				}
				// The session exists already: any id that 0.2 accepted will do.
				if err := core.ValidateExistingSession(id); err != nil {
					return report.UsageErrorf("%v", err)
				}
				if _, err := c.svc.Workspace(ctx); err != nil {
					return err
				}
				done, err := c.svc.Finish(ctx, id)
				return c.out.Ended(done, id, err)
			}),
	}
}

// needPaths is the check of an input that must name paths: msg when it
// names none.
func needPaths(msg string) func(PathsIn) error {
	return func(in PathsIn) error {
		if len(in.Paths) == 0 {
			return errors.New(msg)
		}
		_, err := pathArgs(in.Paths, nil)
		return err
	}
}

// paths are an input's paths and the session of the call, by the rules of
// command's positional session (sessionarg), for paths checked already.
func (c *toolRun) paths(ctx context.Context, command string, paths []string, rule sessionarg.Rule) ([]string, string, error) {
	args, _ := pathArgs(paths, nil)
	return sessionarg.Of(ctx, c.svc).PathsAndSession(command, args, rule)
}

// edit is the change an update's input asks for: the fields given.
func (in UpdateIn) edit() workspace.SessionEdit {
	edit := workspace.SessionEdit{}
	for name, value := range map[string]string{"working-on": in.WorkingOn, "status": in.Status, "space": strings.Join(in.Space, ","),
		"todo-past": strings.Join(in.TodoPast, ","), "todo-present": strings.Join(in.TodoPresent, ","), "todo-future": strings.Join(in.TodoFuture, ","),
		"issues": in.Issues, "provider": in.Provider, "ai-version": in.AIVersion} {
		if value != "" {
			edit[name] = value
		}
	}
	return edit
}

// pathArgs are the paths of a tool's input as the command line takes them:
// paths, and areas written with a final "/". A relative path without a
// separator is written as ./path, so that the rules of a command's
// positional session (sessionarg) never read a second path as a session
// id ("acquire a b"); relative paths are taken from the server's folder.
func pathArgs(paths, areas []string) ([]string, error) {
	var args []string
	for _, p := range paths {
		if p == "" {
			return nil, fmt.Errorf("a path is empty: name a file or a folder")
		}
		args = append(args, pathArg(p))
	}
	for _, a := range areas {
		if a == "" {
			return nil, fmt.Errorf("an area is empty: name a folder")
		}
		if !strings.HasSuffix(a, "/") {
			a += "/"
		}
		args = append(args, pathArg(a))
	}
	return args, nil
}

func pathArg(p string) string {
	if filepath.IsAbs(p) || strings.HasPrefix(p, "./") || strings.HasPrefix(p, "../") {
		return p
	}
	return "./" + p
}

// noSessionHint is added to an error that says no session is known.
const noSessionHint = "This MCP server knows no session for your agent. Fix it in one of these ways: " +
	"pass the session argument with the id the user gave you; set AGENTLOCK_SESSION in the env of the agentlock server in the agent's MCP configuration; " +
	"or start the agent through its agentlock wrapper (agentlock init --agent NAME writes it)."

// fields are the members of a record that the text of a result reads,
// "" (nil) where the record has none.
type fields struct {
	kind, path, state, err, currentOwner, sessionID, owner, note, via string
	age, expiresIn                                                    *float64
}

// fieldsOf reads a record as it is printed (its JSON members).
func fieldsOf(rec any) fields {
	switch r := rec.(type) {
	case report.Error:
		return fields{kind: "error", err: r.Error}
	case report.Acquire:
		return fields{path: r.Path, sessionID: r.SessionID, owner: r.Owner, note: r.Note, via: r.Via, age: r.Age, expiresIn: r.ExpiresIn}
	case report.Release:
		return fields{path: r.Path, sessionID: r.SessionID, note: r.Note, err: r.Error, currentOwner: r.CurrentOwner}
	case report.Heartbeat:
		return fields{path: r.Path, sessionID: r.SessionID, err: r.Error, currentOwner: r.CurrentOwner}
	case report.Check:
		return fields{path: r.Path, state: r.State, sessionID: r.SessionID, owner: r.Owner, via: r.Via, age: r.Age, expiresIn: r.ExpiresIn}
	case report.Status:
		return fields{path: r.Path, state: r.State, sessionID: r.SessionID, err: r.Error, age: r.Age, expiresIn: r.ExpiresIn}
	}
	return fields{}
}

// staleRefusal words the refusal of an acquisition for a stale view: what
// changed, who changed it, and to read the file again, the lock being the
// session's meanwhile.
func staleRefusal(err error, stale *session.StaleError) error {
	by := ""
	if v := stale.Views[0]; v.Err == nil {
		by = ", by " + session.StaleBy(v)
	}
	return fmt.Errorf("%w%s: a change based on what you read would overwrite that change. The file is reserved for you "+
		"(agentlock took its lock for %s), so nobody else can change it meanwhile: read it again, then redo your change on the current content", err, by, stale.Session)
}

// refusalText is the text of a tool error: each refused path with its
// holder and what to do, then any other error the command reported.
func refusalText(command string, records []any, stderr string, code int) string {
	var lines []string
	holders := map[string]bool{}
	reported := false
	for _, rec := range records {
		r := fieldsOf(rec)
		switch {
		case r.kind == "error":
			reported = true
			lines = append(lines, "agentlock "+command+": "+r.err)
		case r.err != "":
			owner := str(r.currentOwner, r.sessionID)
			lines = append(lines, fmt.Sprintf("%s: %v (held by %s); it was not changed.", r.path, r.err, owner))
		case command == "acquire" && r.sessionID != "":
			holder := r.sessionID
			holders[holder] = true
			line := fmt.Sprintf("%s is held by session %s (", r.path, holder)
			if r.note != "held by another session" {
				line += r.note + "; "
			}
			if r.via != "" {
				line += ", through " + r.via
			}
			if r.age != nil {
				line += fmt.Sprintf("renewed %.0fs ago", *r.age)
			}
			if r.expiresIn != nil {
				line += fmt.Sprintf(", expires in %.0fs unless renewed", *r.expiresIn)
			}
			lines = append(lines, line+").")
		case r.note != "":
			lines = append(lines, fmt.Sprintf("%s: %v.", r.path, r.note))
		}
	}
	if len(holders) > 0 {
		names := make([]string, 0, len(holders))
		for n := range holders {
			names = append(names, n)
		}
		sort.Strings(names)
		lines = append(lines, "Nothing was acquired. Do not modify these paths and do not work around this refusal: "+
			"call acquire again with wait_seconds to wait for them, work on something else, or ask "+strings.Join(names, ", ")+
			" (the registry resource "+RegistryURI+" says what each session works on).")
	}
	if msg := strings.TrimSpace(stderr); msg != "" && len(holders) == 0 && !reported {
		lines = append(lines, msg)
	}
	text := strings.Join(lines, "\n")
	if text == "" {
		text = fmt.Sprintf("agentlock %s failed (exit %d)", command, code)
	}
	if strings.Contains(text, "no session id") {
		text += "\n" + noSessionHint
	}
	return text
}

// describe is a line for people ahead of the records of a result, where
// one helps: check's held paths.
func describe(records []any, code int) string {
	if code != report.ExitRefused {
		return ""
	}
	var held []string
	for _, rec := range records {
		if r := fieldsOf(rec); r.state == "locked" {
			held = append(held, fmt.Sprintf("%v is locked by %v", r.path, str(r.sessionID, r.owner)))
		}
	}
	if len(held) == 0 {
		return ""
	}
	return strings.Join(held, "; ") + ": do not modify it; acquire with wait_seconds, or ask the holder."
}

// str is the first non-empty string among vs.
func str(vs ...string) string {
	for _, v := range vs {
		if v != "" {
			return v
		}
	}
	return "another session"
}
