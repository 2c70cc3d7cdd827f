// Package copilot is the GitHub Copilot CLI, as agentlock connects it:
// copilot.toml, its hook file's template, and Go code for what a manifest
// cannot say — Copilot's camelCase payload (sessionId, toolName, toolArgs,
// a sub-agent's parentAgentId) and the files its edit tools change.
package copilot

import (
	"embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/manifest"
)

//go:generate go run ../manifest/manifestgen

//go:embed *.tmpl
var templateFiles embed.FS

// Agent returns the GitHub Copilot CLI: copilot.toml, its hook file's
// template and its Go extension.
func Agent() *manifest.Agent {
	return manifest.Builtin(declared(), templateFiles, manifest.Extension{DecodePayload: decodePayload, EditedPaths: editedPaths, ReadPaths: readPaths, WholePaths: wholePaths, Checks: checks})
}

// payload is a camelCase hook payload of Copilot CLI.
type payload struct {
	SessionID        string          `json:"sessionId"`
	Cwd              string          `json:"cwd"`
	WorkingDirectory string          `json:"workingDirectory"`
	Event            string          `json:"hookEventName"`
	ToolName         string          `json:"toolName"`
	ToolArgs         json.RawMessage `json:"toolArgs"`
	// AgentID and ParentAgentID are set in the calls of a sub-agent (the
	// task tool), and in subagentStart and subagentStop: the sub-agent's
	// id, and the id of the agent that started it.
	AgentID       string `json:"agentId"`
	ParentAgentID string `json:"parentAgentId"`
}

// decodePayload implements integrations.PayloadDecoder: the camelCase
// members, over the snake_case ones of Copilot's PascalCase hooks
// (session_id, tool_name, tool_input), which a hook file written by hand
// may use.
//
// A sub-agent's payload (it has an agentId, 1.0.102: in its tool calls,
// where its sessionId is the same id, and in subagentStart and
// subagentStop, whose sessionId is yet another) names the sub-agent: the
// hook acts for the child session "<session>/<agentId>". Its session is
// not in the payload (parentAgentId names the agent that started it, a
// sub-agent itself at depth): the hook finds it, as it finds a main
// thread's whose payload says none, through the Copilot process the
// session-start hook recorded, or the wrapper's AGENTLOCK_SESSION. So a
// sub-agent of a sub-agent is one more child of the session: sub-agents
// at every depth exclude each other.
func decodePayload(data []byte) (integrations.HookInput, error) {
	var in integrations.HookInput
	if err := integrations.UnmarshalPayload(data, &in); err != nil {
		return in, fmt.Errorf("the payload is not JSON: %w", err)
	}
	var p payload
	if err := integrations.UnmarshalPayload(data, &p); err != nil {
		return in, fmt.Errorf("the payload is not a Copilot CLI hook payload: %w", err)
	}
	set := func(dst *string, v string) {
		if v != "" {
			*dst = v
		}
	}
	set(&in.SessionID, p.SessionID)
	set(&in.Cwd, p.WorkingDirectory)
	set(&in.Cwd, p.Cwd)
	set(&in.Event, p.Event)
	set(&in.ToolName, p.ToolName)
	if len(p.ToolArgs) > 0 && string(p.ToolArgs) != "null" {
		in.ToolInput = p.ToolArgs
	}
	if p.AgentID != "" || p.ParentAgentID != "" {
		in.SessionID, in.SubAgent = "", p.AgentID
		if in.SubAgent == "" {
			in.SubAgent = p.SessionID // a tool call's sessionId is its agent's id
		}
	}
	return in, nil
}

// editTools are the tools that change files: Copilot's own names, and the
// Claude names its PascalCase hooks give them (apply_patch becomes Edit).
var editTools = []string{"edit", "create", "apply_patch", "Edit", "Write"}

// editedPaths implements integrations.Agent's EditedPaths. edit and create carry their
// file in toolArgs.path (an object; a JSON string holding one is decoded
// too), apply_patch its whole patch as toolArgs, in Codex's format: every
// file the patch adds, updates, deletes or moves to counts, so that the
// patch is gated all or nothing. A patch the hook cannot read is refused.
func editedPaths(in integrations.HookInput) ([]string, error) {
	if !integrations.EditCall(in.ToolName, editTools...) {
		return nil, nil
	}
	args, text := toolArgs(in.ToolInput)
	for _, field := range []string{"path", "file_path"} {
		if p := integrations.StringField(args, field); p != "" {
			return []string{p}, nil
		}
	}
	if text == "" {
		// A patch carried in a member (input, patch, command) of an object.
		for _, field := range []string{"input", "patch", "command"} {
			if text = integrations.StringField(args, field); text != "" {
				break
			}
		}
	}
	if text != "" {
		return integrations.PatchPaths([]string{text}), nil
	}
	if in.ToolName == "apply_patch" {
		return nil, fmt.Errorf("%w: the apply_patch call carries no patch text the hook can read", integrations.ErrUncheckable)
	}
	return nil, nil
}

// readPaths implements the extension's ReadPaths: view's file, in
// toolArgs.path as edit's (an object, or a JSON string holding one). A
// folder view names no file read: recorded as nothing
// (docs/read-versions.md).
func readPaths(in integrations.HookInput) ([]string, error) {
	if in.ToolName != "view" {
		return nil, nil
	}
	args, _ := toolArgs(in.ToolInput)
	if p := integrations.StringField(args, "path"); p != "" {
		abs := p
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(in.Cwd, p)
		}
		if info, err := os.Stat(abs); err == nil && info.IsDir() {
			return nil, nil
		}
		return []string{p}, nil
	}
	return nil, nil
}

// wholePaths implements the extension's WholePaths: create writes its
// file whole, and apply_patch's Add File and Delete File (Copilot's GPT-5
// model ids rewrite a file as Delete File + Add File) do too.
func wholePaths(in integrations.HookInput) []string {
	if !integrations.EditCall(in.ToolName, editTools...) {
		return nil
	}
	args, text := toolArgs(in.ToolInput)
	if in.ToolName == "create" {
		if p := integrations.StringField(args, "path"); p != "" {
			return []string{p}
		}
		return nil
	}
	if text == "" {
		for _, field := range []string{"input", "patch", "command"} {
			if text = integrations.StringField(args, field); text != "" {
				break
			}
		}
	}
	if text == "" {
		return nil
	}
	return integrations.PatchWholePaths([]string{text})
}

// toolArgs returns the tool's arguments as a JSON object, when they are
// one (or a JSON string holding one), and else the text of a string
// argument (apply_patch's patch).
func toolArgs(raw json.RawMessage) (object json.RawMessage, text string) {
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return raw, ""
	}
	var fields map[string]json.RawMessage
	if json.Unmarshal([]byte(s), &fields) == nil {
		return json.RawMessage(s), ""
	}
	return nil, s
}
