package mcpserver

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlock/agentlock/report"
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

// newTool makes a tool whose input In becomes a command line (build), run
// by h.call. A command line of nil is a refusal already reported in err.
func newTool[In any](h handlers, name, desc string, refusalOK bool, session func(In) string, build func(In) ([]string, error)) tool {
	return tool{name: name, add: func(s *mcp.Server) {
		no := false
		ann := &mcp.ToolAnnotations{ReadOnlyHint: readOnly[name], DestructiveHint: &no, OpenWorldHint: &no}
		mcp.AddTool(s, &mcp.Tool{Name: name, Description: desc, Annotations: ann},
			func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, any, error) {
				args, err := build(in)
				if err != nil {
					return nil, nil, err
				}
				flags, err := h.sessionFlags(ctx, session(in))
				if err != nil {
					return nil, nil, err
				}
				return h.call(ctx, req, splice(args, flags), refusalOK)
			})
	}}
}

// readOnly are the tools that change nothing (annotated readOnlyHint);
// none of the tools is destructive or reaches outside the project's locks
// and registry.
var readOnly = map[string]bool{"check": true, "status": true, "whoami": true}

// splice puts flags after the command name (args[0]) and before its
// arguments.
func splice(args, flags []string) []string {
	out := append([]string{args[0]}, flags...)
	return append(out, args[1:]...)
}

// tools lists the server's tools.
func tools(h handlers) []tool {
	return []tool{
		newTool(h, "acquire", "Lock files (paths) and folders (areas) for your session before you modify them; renews a lock you hold. "+
			"All or none. A refusal names the session that holds the path: do not modify it and do not work around the refusal — "+
			"wait (wait_seconds), work on something else, or ask the holder. Same records as agentlock acquire --json.", false,
			func(in AcquireIn) string { return in.Session },
			func(in AcquireIn) ([]string, error) {
				if len(in.Paths)+len(in.Areas) == 0 {
					return nil, fmt.Errorf("acquire: name at least one path or area")
				}
				if in.WaitSeconds < 0 {
					return nil, fmt.Errorf("acquire: wait_seconds must not be negative")
				}
				args := []string{"acquire", "--json"}
				if in.WaitSeconds > 0 {
					args = append(args, "--wait", strconv.Itoa(in.WaitSeconds)+"s")
				}
				return appendPaths(args, in.Paths, in.Areas)
			}),
		newTool(h, "release", "Release locks your session holds (files or areas), once you are done with them. Same records as agentlock release --json.", false,
			func(in PathsIn) string { return in.Session },
			func(in PathsIn) ([]string, error) {
				if len(in.Paths) == 0 {
					return nil, fmt.Errorf("release: name at least one path (release_all releases every lock of the session)")
				}
				return appendPaths([]string{"release", "--json"}, in.Paths, nil)
			}),
		newTool(h, "release_all", "Release every lock your session holds. Same records as agentlock release --all --json.", false,
			func(in SessionIn) string { return in.Session },
			func(SessionIn) ([]string, error) { return []string{"release", "--json", "--all"}, nil }),
		newTool(h, "check", "Tell whether paths are free, locked by you, locked by another session, or stale, without changing anything. "+
			"A path another session holds is a result, not an error. Same records as agentlock check --json.", true,
			func(in PathsIn) string { return in.Session },
			func(in PathsIn) ([]string, error) {
				if len(in.Paths) == 0 {
					return nil, fmt.Errorf("check: name at least one path")
				}
				return appendPaths([]string{"check", "--json"}, in.Paths, nil)
			}),
		newTool(h, "status", "List the locks held in this project: path, holder, age, expiry. Same records as agentlock status --json.", false,
			func(StatusIn) string { return "" },
			func(in StatusIn) ([]string, error) {
				args := []string{"status", "--json"}
				if in.All {
					args = append(args, "--all")
				}
				return args, nil
			}),
		newTool(h, "heartbeat", "Renew your locks so they do not expire while you still work on them (every lock of the session when no paths are given). "+
			"Same records as agentlock heartbeat --json.", false,
			func(in HeartbeatIn) string { return in.Session },
			func(in HeartbeatIn) ([]string, error) {
				if len(in.Paths) == 0 {
					return []string{"heartbeat", "--json", "--all"}, nil
				}
				return appendPaths([]string{"heartbeat", "--json"}, in.Paths, nil)
			}),
		newTool(h, "whoami", "Tell which session this server acts for and where it found it. Same record as agentlock whoami --json.", false,
			func(in SessionIn) string { return in.Session },
			func(SessionIn) ([]string, error) { return []string{"whoami", "--json"}, nil }),
		newTool(h, "register", "Register your session in the registry (status OnWorking) with what it works on. Same record as agentlock register --json.", false,
			func(in RegisterIn) string { return in.Session },
			func(in RegisterIn) ([]string, error) {
				if strings.TrimSpace(in.WorkingOn) == "" {
					return nil, fmt.Errorf("register: working_on is required: say in a sentence what the session works on")
				}
				args := []string{"register", "--json", "--working-on", in.WorkingOn}
				args = flag(args, "--provider", in.Provider)
				args = flag(args, "--ai-version", in.AIVersion)
				args = flag(args, "--space", strings.Join(in.Space, ","))
				args = flag(args, "--todo-present", strings.Join(in.TodoPresent, ","))
				if in.Claim {
					args = append(args, "--claim")
				}
				return args, nil
			}),
		newTool(h, "update", "Change fields of your session in the registry; the others are kept. Same record as agentlock update --json.", false,
			func(in UpdateIn) string { return in.Session },
			func(in UpdateIn) ([]string, error) {
				args := []string{"update", "--json"}
				args = flag(args, "--working-on", in.WorkingOn)
				args = flag(args, "--status", in.Status)
				args = flag(args, "--space", strings.Join(in.Space, ","))
				args = flag(args, "--todo-past", strings.Join(in.TodoPast, ","))
				args = flag(args, "--todo-present", strings.Join(in.TodoPresent, ","))
				args = flag(args, "--todo-future", strings.Join(in.TodoFuture, ","))
				args = flag(args, "--issues", in.Issues)
				args = flag(args, "--provider", in.Provider)
				args = flag(args, "--ai-version", in.AIVersion)
				if len(args) == 2 {
					return nil, fmt.Errorf("update: give at least one field to change")
				}
				return args, nil
			}),
		newTool(h, "handoff", "Record the path of a handoff note (a file you wrote) in your session's registry entry, for the next agent. "+
			"Same record as agentlock handoff --json.", false,
			func(in HandoffIn) string { return in.Session },
			func(in HandoffIn) ([]string, error) {
				if strings.TrimSpace(in.Notes) == "" {
					return nil, fmt.Errorf("handoff: notes is required: the path of the note")
				}
				return []string{"handoff", "--json", "--", in.Notes}, nil
			}),
		newTool(h, "finish", "End your session: release all its locks and mark it Finished in the registry. Same records as agentlock finish --json.", false,
			func(in SessionIn) string { return in.Session },
			func(SessionIn) ([]string, error) { return []string{"finish", "--json"}, nil }),
	}
}

// flag appends --name value when value is not empty.
func flag(args []string, name, value string) []string {
	if value == "" {
		return args
	}
	return append(args, name+"="+value)
}

// appendPaths appends paths, and areas written with a final "/". A
// relative path without a separator is written as ./path, so that the
// command never reads a second argument as a session id ("acquire a b").
func appendPaths(args, paths, areas []string) ([]string, error) {
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

// sessionFlags returns the flags that carry the session argument a model
// gave: none when it gave none (the command resolves the session as every
// command does) or when it is the server's own; --session when the server
// knows no session. A session that is not the server's is refused.
func (h handlers) sessionFlags(ctx context.Context, typed string) ([]string, error) {
	if typed == "" {
		return nil, nil
	}
	out := h.cfg.Run(ctx, []string{"whoami", "--json"}, nil)
	records, err := parseRecords(out.Stdout)
	if err != nil || len(records) != 1 {
		return nil, fmt.Errorf("whoami: %s", strings.TrimSpace(string(out.Stderr)))
	}
	own, _ := records[0]["session_id"].(string)
	source, _ := records[0]["source"].(string)
	switch own {
	case "":
		return []string{"--session", typed}, nil
	case typed:
		return nil, nil
	}
	return nil, fmt.Errorf("this server acts for session %s (from %s), not %s: call the tool again without the session argument", own, source, typed)
}

// hasWait reports whether a command line waits (acquire --wait).
func hasWait(args []string) bool { return waitOf(args) > 0 }

// waitOf is the --wait of a command line, or 0.
func waitOf(args []string) time.Duration {
	for i, a := range args {
		if a == "--wait" && i+1 < len(args) {
			d, _ := time.ParseDuration(args[i+1])
			return d
		}
	}
	return 0
}

// noSessionHint is added to an error that says no session is known.
const noSessionHint = "This MCP server knows no session for your agent. Fix it in one of these ways: " +
	"pass the session argument with the id the user gave you; set AGENTLOCK_SESSION in the env of the agentlock server in the agent's MCP configuration; " +
	"or start the agent through its agentlock wrapper (agentlock init --agent NAME writes it)."

// refusalText is the text of a tool error: each refused path with its
// holder and what to do, then any other error the command reported.
func refusalText(command string, records []map[string]any, out Output) string {
	var lines []string
	holders := map[string]bool{}
	reported := false
	for _, r := range records {
		path, _ := r["path"].(string)
		switch {
		case r["kind"] == "error":
			msg, _ := r["error"].(string)
			reported = true
			lines = append(lines, "agentlock "+command+": "+msg)
		case r["error"] != nil && r["error"] != "":
			owner := str(r["current_owner"], r["session_id"])
			lines = append(lines, fmt.Sprintf("%s: %v (held by %s); it was not changed.", path, r["error"], owner))
		case command == "acquire" && r["session_id"] != nil:
			holder := str(r["session_id"])
			holders[holder] = true
			line := fmt.Sprintf("%s is held by session %s (", path, holder)
			if note, _ := r["note"].(string); note != "held by another session" {
				line += note + "; "
			}
			if via, _ := r["via"].(string); via != "" {
				line += ", through " + via
			}
			if age, ok := r["age"].(float64); ok {
				line += fmt.Sprintf("renewed %.0fs ago", age)
			}
			if left, ok := r["expires_in"].(float64); ok {
				line += fmt.Sprintf(", expires in %.0fs unless renewed", left)
			}
			lines = append(lines, line+").")
		case r["note"] != nil:
			lines = append(lines, fmt.Sprintf("%s: %v.", path, r["note"]))
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
	if msg := strings.TrimSpace(string(out.Stderr)); msg != "" && len(holders) == 0 && !reported {
		lines = append(lines, msg)
	}
	text := strings.Join(lines, "\n")
	if text == "" {
		text = fmt.Sprintf("agentlock %s failed (exit %d)", command, out.Code)
	}
	if strings.Contains(text, "no session id") {
		text += "\n" + noSessionHint
	}
	return text
}

// describe is a line for people ahead of the records of a result, where
// one helps: check's held paths.
func describe(records []map[string]any, code int) string {
	if code != report.ExitRefused {
		return ""
	}
	var held []string
	for _, r := range records {
		if r["state"] == "locked" {
			held = append(held, fmt.Sprintf("%v is locked by %v", r["path"], str(r["session_id"], r["owner"])))
		}
	}
	if len(held) == 0 {
		return ""
	}
	return strings.Join(held, "; ") + ": do not modify it; acquire with wait_seconds, or ask the holder."
}

// str is the first non-empty string among vs.
func str(vs ...any) string {
	for _, v := range vs {
		if s, ok := v.(string); ok && s != "" {
			return s
		}
	}
	return "another session"
}
