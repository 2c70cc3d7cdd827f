// Package claude integrates Claude Code with agentlock: a rule file that
// Claude Code loads in every session, the agentlock skill, hooks in
// .claude/settings.json, and a wrapper script.
package claude

import (
	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/templates"
)

// Agent is Claude Code.
type Agent struct{}

var _ integrations.Agent = Agent{}

// Name implements integrations.Agent.
func (Agent) Name() string { return "claude" }

// Provider implements integrations.Agent.
func (Agent) Provider() string { return "anthropic" }

// Title implements integrations.Agent.
func (Agent) Title() string { return "Claude Code" }

// SessionEnvVar implements integrations.Agent: Claude Code sets it in Bash
// and hook processes (2.1.132 and later).
func (Agent) SessionEnvVar() string { return "CLAUDE_CODE_SESSION_ID" }

// Plan implements integrations.Agent.
func (a Agent) Plan(env integrations.Env) ([]integrations.Artifact, []string, error) {
	d := templates.AgentData{Bin: env.Bin, Agent: a.Name(), Title: a.Title(), Command: "claude", Provider: a.Provider(),
		Wrapper: integrations.WrapperPath(a.Name()), PreEditHook: true}
	var p integrations.Plan
	p.Add(integrations.Rendered(".claude/rules/agentlock.md", integrations.Project, integrations.OwnedFile, "rule.md.tmpl", d,
		"instructions Claude Code loads in every session"))
	p.Add(integrations.Skill(".claude/skills/agentlock/SKILL.md", d))
	p.Add(integrations.Rendered(".claude/settings.json", integrations.Project, integrations.JSONHooks, "settings.json.tmpl", d,
		"hooks: lock before Edit/Write, register at start, renew after each tool, finish at the end"))
	p.Add(integrations.Wrapper(d))
	return p.Result()
}

// EditedPaths implements integrations.Agent: Edit, Write and MultiEdit
// carry tool_input.file_path (absolute), NotebookEdit notebook_path.
func (Agent) EditedPaths(in integrations.HookInput) ([]string, error) {
	for _, field := range []string{"file_path", "notebook_path"} {
		if p := integrations.StringField(in.ToolInput, field); p != "" {
			return []string{p}, nil
		}
	}
	return nil, nil
}

// SessionContext implements integrations.Agent.
func (Agent) SessionContext(text string) ([]byte, error) {
	return integrations.AdditionalContext("SessionStart", text)
}

// DenyOutput implements integrations.Denier: PreToolUse's
// permissionDecision "deny", so that the model reads only the reason.
func (Agent) DenyOutput(reason string) ([]byte, error) { return integrations.PermissionDeny(reason) }

// EditContext implements integrations.Contexter: PreToolUse's
// additionalContext reaches the model with the tool call allowed.
func (Agent) EditContext(text string) ([]byte, error) { return integrations.PermissionContext(text) }
