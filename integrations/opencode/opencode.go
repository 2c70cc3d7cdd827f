// Package opencode integrates OpenCode and its fork Kilo Code CLI with
// agentlock. Neither runs shell hooks: both load JavaScript plugins from
// their config folder (.opencode/plugins/, .kilo/plugins/) with no trust
// step, so the gate is a generated plugin file that hands every edit tool
// call to `agentlock hook <agent> pre-edit` and throws the reason of a
// refusal, which the model reads. The plugin also injects the session id
// into the model's shell (shell.env), tells the model its session
// (experimental.chat.system.transform) and finishes the session when the
// CLI exits (process.on("exit")); it holds no lock logic.
//
// The plugin sends agentlock's own payload, in HookInput's names:
// session_id, cwd, tool_name and tool_input (the tool's args: filePath for
// edit and write, patchText for apply_patch).
package opencode

import (
	"fmt"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/codex"
)

// Agent is OpenCode or Kilo Code CLI: the same plugin contract, in a
// config folder and under names of its own.
type Agent struct {
	// id's SessionEnvVar is the session variable the plugin sets in the
	// shell.
	id integrations.Identity
	// dir is the project's config folder: ".opencode", ".kilo".
	dir string
}

var _ integrations.Agent = Agent{}

// OpenCode is the OpenCode CLI (npm opencode-ai).
func OpenCode() Agent {
	return Agent{id: integrations.Identity{Name: "opencode", Title: "OpenCode", Provider: "opencode", Command: "opencode", SessionEnvVar: "OPENCODE_SESSION_ID"}, dir: ".opencode"}
}

// Kilo is Kilo Code CLI (npm @kilocode/cli), a fork of OpenCode.
func Kilo() Agent {
	return Agent{id: integrations.Identity{Name: "kilo", Title: "Kilo Code CLI", Provider: "kilocode", Command: "kilo", SessionEnvVar: "KILO_SESSION_ID"}, dir: ".kilo"}
}

// Name implements integrations.Agent.
func (a Agent) Name() string { return a.id.Name }

// Title implements integrations.Agent.
func (a Agent) Title() string { return a.id.Title }

// Provider implements integrations.Agent.
func (a Agent) Provider() string { return a.id.Provider }

// SessionEnvVar implements integrations.Agent: the CLI exports no session
// id; agentlock's plugin sets this one in the model's shell (shell.env).
func (a Agent) SessionEnvVar() string { return a.id.SessionEnvVar }

// Dir is the project's config folder of the CLI: ".opencode" or ".kilo".
func (a Agent) Dir() string { return a.dir }

// PluginFile is where the gate goes in the project.
func (a Agent) PluginFile() string { return a.dir + "/plugins/agentlock.js" }

// Plan implements integrations.Agent: the skill (the CLI reads
// <dir>/skills/), the plugin, the .gitignore block that keeps out of git
// what the CLI installs into its config folder at every start, and the
// wrapper. Instructions go to the model through the plugin (the session
// context, at every turn), not AGENTS.md: that file's one agentlock block
// is Codex's, and names Codex's session variable.
func (a Agent) Plan(env integrations.Env) ([]integrations.Artifact, []string, error) {
	d := a.id.Data(env)
	var p integrations.Plan
	p.Add(integrations.Skill(a.dir+"/skills/agentlock/SKILL.md", d))
	p.Add(integrations.Rendered(a.PluginFile(), integrations.Project, integrations.OwnedFile, "opencode-plugin.js.tmpl", d,
		"plugin: lock before edit/write/apply_patch, register at start, session id in the shell, renew after each tool, finish at exit"))
	ignore, err := integrations.Rendered(a.dir+"/.gitignore", integrations.Project, integrations.ManagedBlock, "opencode-gitignore.tmpl", d,
		"keeps what "+a.id.Title+" installs into "+a.dir+"/ (node_modules, package.json, lockfiles) out of git")
	ignore.Comment, ignore.Placement = "#", integrations.Bottom
	p.Add(ignore, err)
	p.Add(integrations.Wrapper(d))
	p.Notes = append(p.Notes, a.id.Title+" loads "+a.PluginFile()+" at every start, with no trust step; `"+a.id.Command+" --pure` (or "+
		pureVar(a)+") loads no plugin and gates nothing.")
	return p.Result()
}

// pureVar is the variable that turns plugins off like --pure.
func pureVar(a Agent) string {
	if a.id.Name == "kilo" {
		return "KILO_PURE=1"
	}
	return "OPENCODE_PURE=1"
}

// editTools are the tools that change files; the plugin sends only these.
var editTools = []string{"edit", "write", "multiedit", "apply_patch", "patch"}

// EditedPaths implements integrations.Agent. edit, write and multiedit
// carry their file in filePath (absolute, or relative to the project);
// apply_patch (what model ids with "gpt-" get instead) carries a patch in
// Codex's format in patchText, whose every added, updated, deleted or
// moved-to file counts — relative to the project — so that the patch is
// gated all or nothing. A patch tool call without patch text is refused.
func (a Agent) EditedPaths(in integrations.HookInput) ([]string, error) {
	if !integrations.EditCall(in.ToolName, editTools...) {
		return nil, nil
	}
	if p := integrations.StringField(in.ToolInput, "filePath"); p != "" {
		return []string{p}, nil
	}
	if text := integrations.StringField(in.ToolInput, "patchText"); text != "" {
		return codex.PatchPaths([]string{text}), nil
	}
	if in.ToolName == "apply_patch" || in.ToolName == "patch" {
		return nil, fmt.Errorf("%w: the %s call carries no patchText the hook can read", integrations.ErrUncheckable, in.ToolName)
	}
	return nil, nil
}

// SessionContext implements integrations.Agent: the plugin pushes the
// session-start hook's stdout, as it is, into the system prompt.
func (Agent) SessionContext(text string) ([]byte, error) {
	return []byte(text + "\n"), nil
}
