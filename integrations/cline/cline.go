// Package cline is the Cline CLI (npm cline), as agentlock connects it:
// cline.toml, and Go code for what a manifest cannot say — one executable
// per hook event in .clinerules/hooks/ (TaskStart, PreToolUse,
// PostToolUse, TaskComplete, TaskCancel, TaskError, SessionShutdown: each
// a tiny sh script running `agentlock hook cline <event>` with the payload
// on stdin), Cline's payload and the files its edit tools change.
//
// Cline 3.x (its @cline/core) sends every hook the base payload — taskId,
// workspaceRoots, hookName — and PreToolUse adds tool_call {id, name,
// input} and preToolUse {toolName, parameters} (every parameter a string);
// PostToolUse adds tool_result {id, name, input, output} and postToolUse
// {toolName, parameters, result}.
// Its edit tools are editor (input.path) and apply_patch (input.input, a
// patch in Codex's format). It reads a control JSON on stdout:
// {"cancel": true, "errorMessage": …} cancels — it stops the whole task
// with that reason (there is no "skip this tool" answer for a hook file);
// an exit status is ignored, and a hook that fails to run or prints
// something that is not JSON lets the tool run.
package cline

import (
	"embed"
	"encoding/json"
	"fmt"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/manifest"
	"github.com/agentlock/agentlock/templates"
)

//go:generate go run ../manifest/manifestgen

//go:embed *.tmpl
var templateFiles embed.FS

// Agent returns the Cline CLI: cline.toml, its hook files' template and its
// Go extension.
func Agent() *manifest.Agent {
	return manifest.Builtin(declared(), templateFiles, manifest.Extension{HookFiles: hookFiles, DecodePayload: decodePayload, EditedPaths: editedPaths, ReadPaths: readPaths, WholePaths: wholePaths, Checks: checks})
}

// HooksDir is where the hook files go in the project.
const HooksDir = ".clinerules/hooks"

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

// hookFiles plans the hook files, one per event of Hooks, executable.
func hookFiles(d templates.AgentData) ([]integrations.Artifact, error) {
	var arts []integrations.Artifact
	for _, h := range Hooks {
		hd := d
		hd.Title, hd.Command = h.File, h.Event // the template's event names
		art, err := integrations.Rendered(HooksDir+"/"+h.File, integrations.Project, integrations.OwnedFile, "hook.sh.tmpl", hd,
			"hook: Cline runs it at "+h.File+" ("+h.Event+")")
		if err != nil {
			return nil, err
		}
		art.Mode = 0o755
		arts = append(arts, art)
	}
	return arts, nil
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
	// ToolResult is PostToolUse's tool (hookName "tool_result"): the call
	// as tool_call gives it, with its output.
	ToolResult *struct {
		Name  string          `json:"name"`
		Input json.RawMessage `json:"input"`
	} `json:"tool_result"`
	PreToolUse *struct {
		ToolName   string            `json:"toolName"`
		Parameters map[string]string `json:"parameters"`
	} `json:"preToolUse"`
}

// decodePayload implements integrations.PayloadDecoder: the task is the
// session, the first workspace root the working folder, and the tool's
// input tool_call.input (PreToolUse), tool_result.input (PostToolUse), else
// preToolUse.parameters.
func decodePayload(data []byte) (integrations.HookInput, error) {
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
	case p.ToolResult != nil:
		in.ToolName, in.ToolInput = p.ToolResult.Name, p.ToolResult.Input
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

// readPaths implements the extension's ReadPaths: the files of a
// read_files call (tool_result.input of the PostToolUse payload, as Cline
// 3.0.65 sends it): its files, each a path or an
// entry with one, or file_paths, or paths. A ranged read (start_line,
// end_line) is a read of the file as any other: the version is the file's.
func readPaths(in integrations.HookInput) ([]string, error) {
	if in.ToolName != "read_files" {
		return nil, nil
	}
	var input map[string]json.RawMessage
	if json.Unmarshal(in.ToolInput, &input) != nil {
		return nil, nil
	}
	var out []string
	for _, field := range []string{"files", "file_paths", "paths"} {
		raw, ok := input[field]
		if !ok {
			continue
		}
		var items []json.RawMessage
		if json.Unmarshal(raw, &items) != nil {
			items = []json.RawMessage{raw}
		}
		for _, item := range items {
			var path string
			if json.Unmarshal(item, &path) != nil {
				path = integrations.StringField(item, "path")
			}
			if path != "" {
				out = append(out, path)
			}
		}
		break
	}
	return out, nil
}

// wholePaths implements the extension's WholePaths: editor's create
// (input.command "create") writes its file whole, and an apply_patch's Add
// File and Delete File.
func wholePaths(in integrations.HookInput) []string {
	if in.ToolName == "editor" && integrations.StringField(in.ToolInput, "command") == "create" {
		if p := integrations.StringField(in.ToolInput, "path"); p != "" {
			return []string{p}
		}
		return nil
	}
	if in.ToolName != "apply_patch" {
		return nil
	}
	text := ""
	if json.Unmarshal(in.ToolInput, &text) != nil || text == "" {
		text = integrations.StringField(in.ToolInput, "input")
	}
	if text == "" {
		return nil
	}
	return integrations.PatchWholePaths([]string{text})
}

// editedPaths implements integrations.Agent's EditedPaths: editor's path (and
// write_to_file's, replace_in_file's of the editor extension), and every
// file of an apply_patch, all or nothing. An edit tool whose files the
// hook cannot find is refused; a call that names no tool is gated by the
// path or patch it carries (integrations.EditCall).
func editedPaths(in integrations.HookInput) ([]string, error) {
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
			return integrations.PatchPaths([]string{text}), nil
		}
	case "":
		if path != "" {
			return []string{path}, nil
		}
		if text := patch(); text != "" {
			return integrations.PatchPaths([]string{text}), nil
		}
		return nil, nil
	default:
		return nil, nil
	}
	return nil, fmt.Errorf("%w: the %s call names no file the hook can read", integrations.ErrUncheckable, in.ToolName)
}
