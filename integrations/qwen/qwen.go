// Package qwen is Qwen Code (npm @qwen-code/qwen-code), a Gemini CLI fork
// with Claude Code's hook layout in .qwen/settings.json, as agentlock
// connects it: qwen.toml (docs/integrations/qwen.md).
package qwen

import "github.com/agentlock/agentlock/integrations/manifest"

//go:generate go run ../manifest/manifestgen

// Agent returns the agent that qwen.toml describes.
func Agent() *manifest.Agent {
	return manifest.Builtin(declared(), nil, manifest.Extension{Checks: checks})
}
