// Package all lists every agent integration agentlock ships.
package all

import (
	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/claude"
	"github.com/agentlock/agentlock/integrations/codex"
	"github.com/agentlock/agentlock/integrations/copilot"
	"github.com/agentlock/agentlock/integrations/gemini"
	"github.com/agentlock/agentlock/integrations/kimi"
)

// Agents returns the integrations, in the order of the session-id
// resolution (the first agent's environment variable wins). Adding an
// agent is one import and one line here, besides its package and its
// template folder (templates/agents/<name>/).
func Agents() []integrations.Agent {
	return []integrations.Agent{
		claude.Agent{},
		codex.Agent{},
		gemini.Agent{},
		kimi.Agent{},
		copilot.Agent{},
	}
}

// Lookup returns the agent called name.
func Lookup(name string) (integrations.Agent, bool) {
	for _, a := range Agents() {
		if a.Name() == name {
			return a, true
		}
	}
	return nil, false
}

// Names returns the agents' names.
func Names() []string {
	var names []string
	for _, a := range Agents() {
		names = append(names, a.Name())
	}
	return names
}
