// Package cursor is the Cursor CLI (cursor-agent), as agentlock connects
// it, from Cursor's documented hook contract: cursor.toml and its
// templates, and Go code for what a manifest cannot say — its payload
// (conversation_id, workspace_roots) and the files its edit tools change.
// Cursor is not on npm and its CLI takes no custom model endpoint: it was
// never run here (docs/integrations/cursor.md).
package cursor

import (
	"embed"
	"encoding/json"
	"fmt"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/manifest"
)

//go:generate go run ../manifest/manifestgen

//go:embed *.tmpl
var templateFiles embed.FS

// Agent returns the Cursor CLI: cursor.toml, its templates and its Go
// extension.
func Agent() *manifest.Agent {
	return manifest.Builtin(declared(), templateFiles, manifest.Extension{DecodePayload: decodePayload, EditedPaths: editedPaths})
}

// KnownEvents are the hook event names of Cursor's documented hooks.json
// schema. A file holding any other name is ignored by Cursor as a whole.
var KnownEvents = []string{
	"sessionStart", "sessionEnd", "preToolUse", "postToolUse", "postToolUseFailure",
	"subagentStart", "subagentStop", "beforeShellExecution", "afterShellExecution",
	"beforeMCPExecution", "afterMCPExecution", "beforeReadFile", "afterFileEdit",
	"beforeSubmitPrompt", "preCompact", "stop", "afterAgentResponse", "afterAgentThought",
	"beforeTabFileRead", "afterTabFileEdit",
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

// decodePayload implements integrations.PayloadDecoder. A payload without
// a cwd is taken from the first workspace root, which relative paths are
// relative to.
func decodePayload(data []byte) (integrations.HookInput, error) {
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

// editedPaths implements integrations.Agent's EditedPaths: the file of an edit tool, in
// tool_input.file_path (path or target_file in some versions). An edit
// tool whose file the hook cannot find is refused: it knows an edit is
// coming but not of what.
func editedPaths(in integrations.HookInput) ([]string, error) {
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
