// Package fake is a fifth agent that exists only in tests: with its
// template folder and one entry in internal/agents/all, it is everything an
// agent needs. TestAFifthAgentNeedsOnePackage copies it into a copy of the
// module as integrations/fake.
package fake

import (
	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/templates"
)

// Agent is the Fake CLI.
type Agent struct{}

var _ integrations.Agent = Agent{}

// Name implements integrations.Agent.
func (Agent) Name() string { return "fake" }

// Provider implements integrations.Agent.
func (Agent) Provider() string { return "fakery" }

// Title implements integrations.Agent.
func (Agent) Title() string { return "Fake CLI" }

// SessionEnvVar implements integrations.Agent: the Fake CLI gives its
// session id to hooks on stdin only.
func (Agent) SessionEnvVar() string { return "" }

// Plan implements integrations.Agent.
func (a Agent) Plan(env integrations.Env) ([]integrations.Artifact, []string, error) {
	d := templates.AgentData{Bin: env.Bin, Agent: a.Name(), Title: a.Title(), Command: "fake", Provider: a.Provider(),
		Wrapper: integrations.WrapperPath(a.Name()), PreEditHook: true}
	var p integrations.Plan
	p.Add(integrations.Rendered(".fake/rules/agentlock.md", integrations.Project, integrations.OwnedFile, "rule.md.tmpl", d,
		"instructions the Fake CLI loads in every session"))
	p.Add(integrations.Rendered(".fake/settings.json", integrations.Project, integrations.JSONHooks, "settings.json.tmpl", d,
		"hooks: lock before edit, finish at the end"))
	p.Add(integrations.Wrapper(d))
	return p.Result()
}

// EditedPaths implements integrations.Agent: tool_input.path, maybe
// relative to the payload's cwd.
func (Agent) EditedPaths(in integrations.HookInput) ([]string, error) {
	if p := integrations.StringField(in.ToolInput, "path"); p != "" {
		return []string{p}, nil
	}
	return nil, nil
}

// SessionContext implements integrations.Agent: plain text.
func (Agent) SessionContext(text string) ([]byte, error) {
	return []byte(text + "\n"), nil
}
