// Package codex integrates the OpenAI Codex CLI with agentlock: a short
// managed block at the top of AGENTS.md (never AGENTS.override.md, which
// would shadow the user's file), the agentlock skill in .agents/skills,
// hooks in .codex/hooks.json, and a wrapper script.
package codex

import (
	"encoding/json"
	"strings"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/templates"
)

// Agent is the Codex CLI.
type Agent struct{}

var _ integrations.Agent = Agent{}

// Name implements integrations.Agent.
func (Agent) Name() string { return "codex" }

// Provider implements integrations.Agent.
func (Agent) Provider() string { return "openai" }

// Title implements integrations.Agent.
func (Agent) Title() string { return "Codex CLI" }

// SessionEnvVar implements integrations.Agent: Codex sets it in the
// environment of shell commands.
func (Agent) SessionEnvVar() string { return "CODEX_THREAD_ID" }

// Plan implements integrations.Agent.
func (a Agent) Plan(env integrations.Env) ([]integrations.Artifact, []string, error) {
	d := templates.AgentData{Bin: env.Bin, Agent: a.Name(), Title: a.Title(), Command: "codex", Provider: a.Provider(),
		Wrapper: integrations.WrapperPath(a.Name()), PreEditHook: true}
	var p integrations.Plan
	p.Add(integrations.Rendered("AGENTS.md", integrations.Project, integrations.ManagedBlock, "block.md.tmpl", d,
		"instructions, in a managed block at the top of AGENTS.md"))
	p.Add(integrations.Skill(".agents/skills/agentlock/SKILL.md", d))
	p.Add(integrations.Rendered(".codex/hooks.json", integrations.Project, integrations.JSONHooks, "hooks.json.tmpl", d,
		"hooks: lock before apply_patch, register at start, renew after each tool, finish at the end"))
	p.Add(integrations.Wrapper(d))
	p.Notes = append(p.Notes, "Codex loads .codex/hooks.json only in a trusted project, and asks you to trust new hooks in /hooks.")
	return p.Result()
}

// patchHeaders are the apply_patch lines that name a file the patch
// changes.
var patchHeaders = []string{"*** Add File: ", "*** Update File: ", "*** Delete File: ", "*** Move to: "}

// EditedPaths implements integrations.Agent: apply_patch passes its patch
// in tool_input.command (a string, or an argv whose items may hold it), and
// every file it adds, updates, deletes or moves to is named on a header
// line, relative to the session's cwd.
func (Agent) EditedPaths(in integrations.HookInput) ([]string, error) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(in.ToolInput, &fields) != nil {
		return nil, nil
	}
	var texts []string
	var one string
	if json.Unmarshal(fields["command"], &one) == nil {
		texts = append(texts, one)
	} else if json.Unmarshal(fields["command"], &texts) != nil {
		return nil, nil
	}
	var paths []string
	seen := map[string]bool{}
	for _, text := range texts {
		for _, line := range strings.Split(text, "\n") {
			line = strings.TrimRight(line, "\r")
			for _, h := range patchHeaders {
				if p, ok := strings.CutPrefix(line, h); ok && strings.TrimSpace(p) != "" && !seen[p] {
					p = strings.TrimSpace(p)
					seen[p] = true
					paths = append(paths, p)
				}
			}
		}
	}
	return paths, nil
}

// SessionContext implements integrations.Agent.
func (Agent) SessionContext(text string) ([]byte, error) {
	return integrations.AdditionalContext("SessionStart", text)
}
