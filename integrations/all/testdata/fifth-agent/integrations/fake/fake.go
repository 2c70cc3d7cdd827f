// Package fake is a fifth agent that exists only in tests: with its
// template folder and one entry in integrations/all, it is everything an
// agent needs. TestAFifthAgentNeedsOnePackage copies it into a copy of the
// module as integrations/fake.
package fake

import (
	"github.com/agentlock/agentlock/integrations"
)

// Agent is the Fake CLI.
type Agent struct{ integrations.Identified[Agent] }

var _ integrations.Agent = Agent{}

// Identity implements integrations.Identifier.
func (Agent) Identity() integrations.Identity {
	return integrations.Identity{Name: "fake", Title: "Fake CLI", Provider: "fakery", Command: "fake",
		// The Fake CLI gives its session id to hooks on stdin only.
		SessionEnvVar: ""}
}

// Plan implements integrations.Agent.
func (a Agent) Plan(env integrations.Env) ([]integrations.Artifact, []string, error) {
	d := a.Identity().Data(env)
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
