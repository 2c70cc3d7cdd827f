// Package crush is Charm Crush (npm @charmland/crush), as agentlock
// connects it: crush.toml (one PreToolUse hook in .crush.json, in Crush's
// flat layout; docs/integrations/crush.md).
package crush

import "github.com/agentlock/agentlock/integrations/manifest"

//go:generate go run ../manifest/manifestgen

// Agent returns the agent that crush.toml describes.
func Agent() *manifest.Agent {
	return manifest.Builtin(declared(), nil, manifest.Extension{Checks: checks})
}
