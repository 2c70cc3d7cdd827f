// Package copilot integrates the GitHub Copilot CLI with agentlock: a
// managed block in .github/copilot-instructions.md, the hooks in
// .github/hooks/agentlock.json (a file of agentlock's own; Copilot loads
// every .github/hooks/*.json, but only in a trusted folder), and a wrapper
// script.
//
// Copilot's camelCase hooks (preToolUse, sessionStart, ...) write their own
// payload — sessionId, toolName, toolArgs — and read their own output:
// a top-level permissionDecision "deny" with its reason (the only denial
// whose reason reaches the model; exit 2 denies but the model reads "hook
// exited with code 2") and a top-level additionalContext.
package copilot

import (
	"encoding/json"
	"fmt"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/codex"
)

// Agent is the GitHub Copilot CLI.
type Agent struct{ integrations.Identified[Agent] }

var (
	_ integrations.Agent          = Agent{}
	_ integrations.Denier         = Agent{}
	_ integrations.PayloadDecoder = Agent{}
)

// Identity implements integrations.Identifier.
func (Agent) Identity() integrations.Identity {
	return integrations.Identity{Name: "copilot", Title: "GitHub Copilot CLI", Provider: "github", Command: "copilot",
		// Copilot sets it, equal to the hook payload's sessionId, in the
		// environment of the model's shell commands.
		SessionEnvVar: "COPILOT_AGENT_SESSION_ID"}
}

// HooksFile is where the hooks go in the project.
const HooksFile = ".github/hooks/agentlock.json"

// InstructionsFile is the instruction file that only Copilot reads (AGENTS.md
// is Codex's too, and its one managed block cannot say both agents'
// session variables).
const InstructionsFile = ".github/copilot-instructions.md"

// Plan implements integrations.Agent.
func (a Agent) Plan(env integrations.Env) ([]integrations.Artifact, []string, error) {
	d := a.Identity().Data(env)
	var p integrations.Plan
	p.Add(integrations.Rendered(InstructionsFile, integrations.Project, integrations.ManagedBlock, "block.md.tmpl", d,
		"instructions, in a managed block at the top of .github/copilot-instructions.md"))
	p.Add(integrations.Rendered(HooksFile, integrations.Project, integrations.OwnedFile, "hooks.json.tmpl", d,
		"hooks: lock before edit/create/apply_patch, register at start, renew after each tool, finish at the end"))
	p.Add(integrations.Wrapper(d))
	p.Notes = append(p.Notes, TrustSteps...)
	return p.Result()
}

// TrustSteps tell the user how to make Copilot run the hooks: it loads
// .github/hooks/*.json only in a trusted folder, and skips them silently
// elsewhere.
var TrustSteps = []string{
	"Copilot CLI runs .github/hooks/agentlock.json only in a trusted folder, and skips it silently elsewhere:",
	"  interactive: start `copilot` in this project and trust the folder when asked (it is saved in trustedFolders of ~/.copilot/config.json);",
	"  automation: run `copilot --trust-folder -p ...` (trusts the working folder for that session only), or set COPILOT_ALLOW_ALL=true (exactly \"true\": it also allows every tool).",
}

// payload is a camelCase hook payload of Copilot CLI.
type payload struct {
	SessionID        string          `json:"sessionId"`
	Cwd              string          `json:"cwd"`
	WorkingDirectory string          `json:"workingDirectory"`
	Event            string          `json:"hookEventName"`
	ToolName         string          `json:"toolName"`
	ToolArgs         json.RawMessage `json:"toolArgs"`
	// ParentAgentID is set in the calls of a sub-agent (the task tool):
	// the agentId of the agent that started it.
	ParentAgentID string `json:"parentAgentId"`
}

// DecodePayload implements integrations.PayloadDecoder: the camelCase
// members, over the snake_case ones of Copilot's PascalCase hooks
// (session_id, tool_name, tool_input), which a hook file written by hand
// may use.
//
// A sub-agent's call (it has a parentAgentId) keeps no session id: Copilot
// gives every sub-agent a sessionId of its own (its agentId), with no
// sessionStart or sessionEnd, so its locks would belong to a session that
// never ends and would refuse the session that started it. A sub-agent
// works for its session, as agentlock's sub-agents do everywhere: the hook
// finds that session through the Copilot process the session-start hook
// recorded (or the wrapper's AGENTLOCK_SESSION).
func (Agent) DecodePayload(data []byte) (integrations.HookInput, error) {
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
	if p.ParentAgentID != "" {
		in.SessionID = ""
	}
	return in, nil
}

// editTools are the tools that change files: Copilot's own names, and the
// Claude names its PascalCase hooks give them (apply_patch becomes Edit).
var editTools = []string{"edit", "create", "apply_patch", "Edit", "Write"}

// EditedPaths implements integrations.Agent. edit and create carry their
// file in toolArgs.path (an object; a JSON string holding one is decoded
// too), apply_patch its whole patch as toolArgs, in Codex's format: every
// file the patch adds, updates, deletes or moves to counts, so that the
// patch is gated all or nothing. A patch the hook cannot read is refused.
func (Agent) EditedPaths(in integrations.HookInput) ([]string, error) {
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
		return codex.PatchPaths([]string{text}), nil
	}
	if in.ToolName == "apply_patch" {
		return nil, fmt.Errorf("%w: the apply_patch call carries no patch text the hook can read", integrations.ErrUncheckable)
	}
	return nil, nil
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

// SessionContext implements integrations.Agent: sessionStart's top-level
// additionalContext reaches the model (hookSpecificOutput's does not).
func (Agent) SessionContext(text string) ([]byte, error) {
	return integrations.MarshalLine(map[string]string{"additionalContext": text}, "session context")
}

// DenyOutput implements integrations.Denier: the top-level
// permissionDecision "deny" that camelCase preToolUse reads (it ignores
// Claude's hookSpecificOutput form); the model reads the reason.
func (Agent) DenyOutput(reason string) ([]byte, error) {
	return integrations.MarshalLine(map[string]string{"permissionDecision": "deny", "permissionDecisionReason": reason}, "pre-edit denial")
}
