// Package all lists every agent integration agentlock ships, and adds the
// agents that users describe in manifests (package manifest).
package all

import (
	"slices"
	"sync"

	"github.com/agentlock/agentlock/integrations/claude"
	"github.com/agentlock/agentlock/integrations/cline"
	"github.com/agentlock/agentlock/integrations/codex"
	"github.com/agentlock/agentlock/integrations/copilot"
	"github.com/agentlock/agentlock/integrations/crush"
	"github.com/agentlock/agentlock/integrations/cursor"
	"github.com/agentlock/agentlock/integrations/droid"
	"github.com/agentlock/agentlock/integrations/gemini"
	"github.com/agentlock/agentlock/integrations/kilo"
	"github.com/agentlock/agentlock/integrations/kimi"
	"github.com/agentlock/agentlock/integrations/opencode"
	"github.com/agentlock/agentlock/integrations/pi"
	"github.com/agentlock/agentlock/integrations/qwen"
)

// Agents returns the built-in agents, in the order of the session-id
// resolution (the first agent's environment variable wins). Each is a
// folder, integrations/<name>/ (its manifest, templates, golden files and
// Go extension), and one line in builtin. The list is built once per
// process, and parses nothing; an agent is never changed once built
// (manifest.Agent.WithCopy makes another), and the Set returned has no
// room to append into the shared one.
func Agents() Set { return slices.Clip(builtin()) }

// builtin builds the list of Agents once: every command's help names the
// agents, and several parts of one command ask for them.
var builtin = sync.OnceValue(func() Set {
	return Set{
		claude.Agent(),
		codex.Agent(),
		gemini.Agent(),
		kimi.Agent(),
		copilot.Agent(),
		qwen.Agent(),
		opencode.Agent(),
		kilo.Agent(),
		crush.Agent(),
		droid.Agent(),
		cursor.Agent(),
		cline.Agent(),
		pi.Agent(),
	}
})

// Names returns the built-in agents' names.
func Names() []string { return Agents().Names() }
