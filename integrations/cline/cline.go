// Package cline integrates the Cline CLI (npm cline) with agentlock: a
// rule in .clinerules/agentlock.md, one executable per hook event in
// .clinerules/hooks/ (TaskStart, PreToolUse, PostToolUse, TaskComplete,
// TaskCancel, TaskError, SessionShutdown: each a tiny sh script running `agentlock hook cline
// <event>` with the payload on stdin), and a wrapper script.
//
// Cline 3.x (its @cline/core) sends every hook the base payload — taskId,
// workspaceRoots, hookName — and PreToolUse adds tool_call {id, name,
// input} and preToolUse {toolName, parameters} (every parameter a string).
// Its edit tools are editor (input.path) and apply_patch (input.input, a
// patch in Codex's format). It reads a control JSON on stdout:
// {"cancel": true, "errorMessage": …} cancels — it stops the whole task
// with that reason (there is no "skip this tool" answer for a hook file);
// an exit status is ignored, and a hook that fails to run or prints
// something that is not JSON lets the tool run.
package cline

import (
	"encoding/json"
	"fmt"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/codex"
)

// Agent is the Cline CLI.
type Agent struct{ integrations.Identified[Agent] }

var (
	_ integrations.Agent          = Agent{}
	_ integrations.Denier         = Agent{}
	_ integrations.PayloadDecoder = Agent{}
)

// Identity implements integrations.Identifier.
func (Agent) Identity() integrations.Identity {
	return integrations.Identity{Name: "cline", Title: "Cline CLI", Provider: "cline", Command: "cline",
		// Cline exports no task id to its shell; the session-start hook
		// records the Cline process instead.
		SessionEnvVar: ""}
}

// Where the files go in the project.
const (
	RuleFile = ".clinerules/agentlock.md"
	HooksDir = ".clinerules/hooks"
)

// Hooks maps Cline's hook files to agentlock's events. TaskComplete and
// TaskCancel and TaskError end a task (a task a hook cancelled ends in
// TaskCancel or TaskError); SessionShutdown ends the CLI's session. Cline
// runs all but PreToolUse and PostToolUse detached, ignoring their output.
var Hooks = []struct{ File, Event string }{
	{"TaskStart", "session-start"},
	{"PreToolUse", "pre-edit"},
	{"PostToolUse", "renew"},
	{"TaskComplete", "session-end"},
	{"TaskCancel", "session-end"},
	{"TaskError", "session-end"},
	{"SessionShutdown", "session-end"},
}

// Plan implements integrations.Agent.
func (a Agent) Plan(env integrations.Env) ([]integrations.Artifact, []string, error) {
	d := a.Identity().Data(env)
	var p integrations.Plan
	p.Add(integrations.Rendered(RuleFile, integrations.Project, integrations.OwnedFile, "rule.md.tmpl", d,
		"instructions: a Cline rule"))
	for _, h := range Hooks {
		hd := d
		hd.Title, hd.Command = h.File, h.Event // the template's event names
		art, err := integrations.Rendered(HooksDir+"/"+h.File, integrations.Project, integrations.OwnedFile, "hook.sh.tmpl", hd,
			"hook: Cline runs it at "+h.File+" ("+h.Event+")")
		art.Mode = 0o755
		p.Add(art, err)
	}
	p.Add(integrations.Wrapper(d))
	p.Notes = append(p.Notes, "Cline stops the whole task when agentlock refuses an edit (a hook file cannot make it skip one tool): restart it on other files, or after the holder finishes.")
	return p.Result()
}

// payload is a Cline hook payload.
type payload struct {
	TaskID         string   `json:"taskId"`
	HookName       string   `json:"hookName"`
	WorkspaceRoots []string `json:"workspaceRoots"`
	ToolCall       *struct {
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"tool_call"`
	PreToolUse *struct {
		ToolName   string            `json:"toolName"`
		Parameters map[string]string `json:"parameters"`
	} `json:"preToolUse"`
}

// DecodePayload implements integrations.PayloadDecoder: the task is the
// session, the first workspace root the working folder, and the tool's
// input tool_call.input (else preToolUse.parameters).
func (Agent) DecodePayload(data []byte) (integrations.HookInput, error) {
	var in integrations.HookInput
	var p payload
	if err := integrations.UnmarshalPayload(data, &p); err != nil {
		return in, fmt.Errorf("the payload is not a Cline hook payload: %w", err)
	}
	in.Raw, in.SessionID, in.Event = data, p.TaskID, p.HookName
	if len(p.WorkspaceRoots) > 0 {
		in.Cwd = p.WorkspaceRoots[0]
	}
	switch {
	case p.ToolCall != nil:
		in.ToolName, in.ToolInput = p.ToolCall.Name, p.ToolCall.Input
	case p.PreToolUse != nil:
		in.ToolName = p.PreToolUse.ToolName
		params, err := json.Marshal(p.PreToolUse.Parameters)
		if err != nil {
			return in, fmt.Errorf("the Cline payload's preToolUse.parameters: %w", err)
		}
		in.ToolInput = params
	}
	return in, nil
}

// EditedPaths implements integrations.Agent: editor's path (and
// write_to_file's, replace_in_file's of the editor extension), and every
// file of an apply_patch, all or nothing. An edit tool whose files the
// hook cannot find is refused; a call that names no tool is gated by the
// path or patch it carries (integrations.EditCall).
func (Agent) EditedPaths(in integrations.HookInput) ([]string, error) {
	path := integrations.StringField(in.ToolInput, "path")
	patch := func() string {
		var text string
		if json.Unmarshal(in.ToolInput, &text) != nil || text == "" {
			text = integrations.StringField(in.ToolInput, "input")
		}
		return text
	}
	switch in.ToolName {
	case "editor", "write_to_file", "replace_in_file", "new_rule":
		if path != "" {
			return []string{path}, nil
		}
	case "apply_patch":
		if text := patch(); text != "" {
			return codex.PatchPaths([]string{text}), nil
		}
	case "":
		if path != "" {
			return []string{path}, nil
		}
		if text := patch(); text != "" {
			return codex.PatchPaths([]string{text}), nil
		}
		return nil, nil
	default:
		return nil, nil
	}
	return nil, fmt.Errorf("%w: the %s call names no file the hook can read", integrations.ErrUncheckable, in.ToolName)
}

// SessionContext implements integrations.Agent: a TaskStart hook's
// contextModification is added to the task's context.
func (Agent) SessionContext(text string) ([]byte, error) {
	return integrations.MarshalLine(map[string]string{"contextModification": text}, "session context")
}

// DenyOutput implements integrations.Denier: Cline's cancel reply.
func (Agent) DenyOutput(reason string) ([]byte, error) {
	return integrations.MarshalLine(map[string]any{"cancel": true, "errorMessage": reason}, "pre-edit denial")
}
