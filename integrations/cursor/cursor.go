// Package cursor integrates the Cursor CLI (cursor-agent) with agentlock,
// from Cursor's documented hook contract: an always-applied rule in
// .cursor/rules/agentlock.mdc, agentlock's entries in .cursor/hooks.json
// (merged beside the user's own), and a wrapper script.
//
// Cursor's hooks.json is {"version": 1, "hooks": {<event>: [{"command",
// "matcher"}]}}; its payload carries conversation_id, hook_event_name,
// workspace_roots, tool_name and tool_input; a preToolUse hook denies with
// {"permission":"deny","user_message":…,"agent_message":…} on stdout AND
// exit 2 (any other non-zero exit fails open). One event name Cursor does
// not know voids the whole file, so the hooks use only KnownEvents.
//
// Cursor is not on npm and its CLI takes no custom model endpoint: it was
// never run here (docs/integrations/cursor.md).
package cursor

import (
	"encoding/json"
	"fmt"

	"github.com/agentlock/agentlock/integrations"
)

// Agent is the Cursor CLI.
type Agent struct{ integrations.Identified[Agent] }

var (
	_ integrations.Agent          = Agent{}
	_ integrations.Denier         = Agent{}
	_ integrations.PayloadDecoder = Agent{}
)

// Identity implements integrations.Identifier.
func (Agent) Identity() integrations.Identity {
	return integrations.Identity{Name: "cursor", Title: "Cursor CLI", Provider: "cursor", Command: "cursor-agent",
		// Cursor exports no session id to the model's shell (its hooks'
		// conversation_id is in the payload only); the session-start hook
		// records the Cursor process instead.
		SessionEnvVar: ""}
}

// Where the files go in the project.
const (
	HooksFile = ".cursor/hooks.json"
	RuleFile  = ".cursor/rules/agentlock.mdc"
)

// KnownEvents are the hook event names of Cursor's documented hooks.json
// schema. A file holding any other name is ignored by Cursor as a whole.
var KnownEvents = []string{
	"sessionStart", "sessionEnd", "preToolUse", "postToolUse", "postToolUseFailure",
	"subagentStart", "subagentStop", "beforeShellExecution", "afterShellExecution",
	"beforeMCPExecution", "afterMCPExecution", "beforeReadFile", "afterFileEdit",
	"beforeSubmitPrompt", "preCompact", "stop", "afterAgentResponse", "afterAgentThought",
	"beforeTabFileRead", "afterTabFileEdit",
}

// Plan implements integrations.Agent.
func (a Agent) Plan(env integrations.Env) ([]integrations.Artifact, []string, error) {
	d := a.Identity().Data(env)
	var p integrations.Plan
	p.Add(integrations.Rendered(RuleFile, integrations.Project, integrations.OwnedFile, "rule.mdc.tmpl", d,
		"instructions: an always-applied Cursor rule"))
	p.Add(integrations.Rendered(HooksFile, integrations.Project, integrations.JSONHooks, "hooks.json.tmpl", d,
		"hooks: lock before Write/StrReplace/Edit/MultiEdit/Delete, register at start, renew after each tool, finish at the end"))
	p.Add(integrations.Wrapper(d))
	p.Notes = append(p.Notes, "Cursor CLI was not run by agentlock's tests (not on npm, no custom model endpoint): its hooks follow Cursor's documented contract; check them once by hand (docs/integrations/cursor.md).")
	return p.Result()
}

// payload is a Cursor hook payload.
type payload struct {
	ConversationID string          `json:"conversation_id"`
	Event          string          `json:"hook_event_name"`
	Cwd            string          `json:"cwd"`
	WorkspaceRoots []string        `json:"workspace_roots"`
	ToolName       string          `json:"tool_name"`
	ToolInput      json.RawMessage `json:"tool_input"`
	Model          json.RawMessage `json:"model"`
}

// DecodePayload implements integrations.PayloadDecoder. A payload without
// a cwd is taken from the first workspace root, which relative paths are
// relative to.
func (Agent) DecodePayload(data []byte) (integrations.HookInput, error) {
	var in integrations.HookInput
	var p payload
	if err := integrations.UnmarshalPayload(data, &p); err != nil {
		return in, fmt.Errorf("the payload is not a Cursor hook payload: %w", err)
	}
	in.Raw = data
	in.SessionID, in.Event, in.Cwd, in.ToolName = p.ConversationID, p.Event, p.Cwd, p.ToolName
	if in.Cwd == "" && len(p.WorkspaceRoots) > 0 {
		in.Cwd = p.WorkspaceRoots[0]
	}
	if len(p.ToolInput) > 0 && string(p.ToolInput) != "null" {
		in.ToolInput = p.ToolInput
	}
	if len(p.Model) > 0 && string(p.Model) != "null" {
		in.Model = p.Model
	}
	return in, nil
}

// EditTools are the Cursor tools that change a file.
var EditTools = []string{"Write", "StrReplace", "Edit", "MultiEdit", "Delete"}

// EditedPaths implements integrations.Agent: the file of an edit tool, in
// tool_input.file_path (path or target_file in some versions). An edit
// tool whose file the hook cannot find is refused: it knows an edit is
// coming but not of what.
func (Agent) EditedPaths(in integrations.HookInput) ([]string, error) {
	if !integrations.EditCall(in.ToolName, EditTools...) {
		return nil, nil
	}
	for _, field := range []string{"file_path", "path", "target_file"} {
		if p := integrations.StringField(in.ToolInput, field); p != "" {
			return []string{p}, nil
		}
	}
	if in.ToolName == "" {
		return nil, nil // no tool and no path: nothing to gate
	}
	return nil, fmt.Errorf("%w: the %s call names no file the hook can read", integrations.ErrUncheckable, in.ToolName)
}

// SessionContext implements integrations.Agent: sessionStart's
// additional_context is added to the conversation.
func (Agent) SessionContext(text string) ([]byte, error) {
	return integrations.MarshalLine(map[string]string{"additional_context": text}, "session context")
}

// DenyOutput implements integrations.Denier: Cursor's deny JSON, which it
// reads only together with exit 2 (integrations.ErrExitDenyWithOutput).
func (Agent) DenyOutput(reason string) ([]byte, error) {
	out, err := integrations.MarshalLine(map[string]string{"permission": "deny", "user_message": reason, "agent_message": reason}, "pre-edit denial")
	if err != nil {
		return nil, err
	}
	return out, integrations.ErrExitDenyWithOutput
}
