// Package all lists every agent integration agentlock ships, and adds the
// agents that users describe in manifests (package manifest).
package all

import (
	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/cline"
	"github.com/agentlock/agentlock/integrations/codex"
	"github.com/agentlock/agentlock/integrations/copilot"
	"github.com/agentlock/agentlock/integrations/cursor"
	"github.com/agentlock/agentlock/integrations/gemini"
	"github.com/agentlock/agentlock/integrations/kimi"
	"github.com/agentlock/agentlock/integrations/manifest"
	"github.com/agentlock/agentlock/integrations/opencode"
	"github.com/agentlock/agentlock/integrations/pi"
)

// Agents returns the built-in integrations, in the order of the session-id
// resolution (the first agent's environment variable wins). An agent is
// either a Go package (one import and one line here, besides its package
// and its template folder templates/agents/<name>/) or an embedded manifest
// (integrations/manifest/builtin/<name>.toml and one line here).
func Agents() []integrations.Agent {
	return []integrations.Agent{
		manifest.Builtin("claude"),
		codex.Agent{},
		gemini.Agent{},
		kimi.Agent{},
		copilot.Agent{},
		manifest.Builtin("qwen"),
		opencode.OpenCode(),
		opencode.Kilo(),
		manifest.Builtin("crush"),
		manifest.Builtin("droid"),
		cursor.Agent{},
		cline.Agent{},
		pi.Agent{},
	}
}

// Lookup returns the built-in agent called name.
func Lookup(name string) (integrations.Agent, bool) { return Builtin().Lookup(name) }

// Names returns the built-in agents' names.
func Names() []string { return Builtin().Names() }
