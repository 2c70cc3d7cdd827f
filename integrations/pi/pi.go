// Package pi integrates Pi (npm @earendil-works/pi-coding-agent) with
// agentlock: the instructions in a managed block of .pi/APPEND_SYSTEM.md
// (appended to Pi's system prompt), the extension
// .pi/extensions/agentlock.ts, and a wrapper script. Pi loads both .pi
// files only in a trusted project.
//
// The extension holds no lock logic: on Pi's session_start, tool_call,
// tool_result and session_shutdown it runs `agentlock hook pi <event>`
// with {session_id, cwd, hook_event_name, tool_name, tool_input} on stdin
// (Claude Code's field names), blocks the call with agentlock's reason on
// exit 2, and blocks an edit tool when agentlock cannot run. Pi sets
// PI_SESSION_ID, equal to the extension's session id, in its bash tool.
package pi

import (
	"github.com/agentlock/agentlock/integrations"
)

// Agent is Pi.
type Agent struct{ integrations.Identified[Agent] }

var _ integrations.Agent = Agent{}

// Identity implements integrations.Identifier.
func (Agent) Identity() integrations.Identity {
	return integrations.Identity{Name: "pi", Title: "Pi", Provider: "earendil", Command: "pi",
		SessionEnvVar: "PI_SESSION_ID"}
}

// AgentDirVar moves Pi's user folder (default ~/.pi/agent), where its
// trust.json and settings.json are.
const AgentDirVar = "PI_CODING_AGENT_DIR"

// Where the files go in the project.
const (
	ExtensionFile    = ".pi/extensions/agentlock.ts"
	InstructionsFile = ".pi/APPEND_SYSTEM.md"
)

// Plan implements integrations.Agent.
func (a Agent) Plan(env integrations.Env) ([]integrations.Artifact, []string, error) {
	d := a.Identity().Data(env)
	var p integrations.Plan
	p.Add(integrations.Rendered(InstructionsFile, integrations.Project, integrations.ManagedBlock, "block.md.tmpl", d,
		"instructions, in a managed block at the top of .pi/APPEND_SYSTEM.md"))
	p.Add(integrations.Rendered(ExtensionFile, integrations.Project, integrations.OwnedFile, "extension.ts.tmpl", d,
		"extension: lock before edit/write, register at start, renew after each tool, finish at the end"))
	p.Add(integrations.Wrapper(d))
	p.Notes = append(p.Notes, TrustSteps...)
	return p.Result()
}

// TrustSteps tell the user how to make Pi load the extension: it loads
// .pi/extensions only in a trusted project.
var TrustSteps = []string{
	"Pi loads .pi/extensions/agentlock.ts and .pi/APPEND_SYSTEM.md only in a trusted project:",
	"  interactive: start `pi` here and trust the project when asked (or run /trust);",
	"  automation: `pi --approve -p ...` trusts it for that run (print mode never asks, and skips the extension otherwise).",
}

// editTools are Pi's built-in tools that change a file; both carry
// input.path.
var editTools = []string{"edit", "write"}

// EditedPaths implements integrations.Agent.
func (Agent) EditedPaths(in integrations.HookInput) ([]string, error) {
	if !integrations.EditCall(in.ToolName, editTools...) {
		return nil, nil
	}
	if p := integrations.StringField(in.ToolInput, "path"); p != "" {
		return []string{p}, nil
	}
	if in.ToolName == "" {
		return nil, nil // no tool and no path: nothing to gate
	}
	return nil, integrations.ErrUncheckable
}

// SessionContext implements integrations.Agent: the extension appends the
// text to the system prompt.
func (Agent) SessionContext(text string) ([]byte, error) { return []byte(text + "\n"), nil }
