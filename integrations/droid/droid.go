// Package droid is Factory Droid (npm @factory/cli), as agentlock connects
// it: droid.toml (Claude Code's hook layout and payload in
// .factory/settings.json; docs/integrations/droid.md).
package droid

import "github.com/agentlock/agentlock/integrations/manifest"

//go:generate go run ../manifest/manifestgen

// Agent returns the agent that droid.toml describes.
func Agent() *manifest.Agent {
	return manifest.Builtin(declared(), nil, manifest.Extension{Checks: checks})
}
