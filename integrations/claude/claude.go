// Package claude is Claude Code, as agentlock connects it: claude.toml
// says it all (a rule file Claude Code loads in every session, the
// agentlock skill, hooks in .claude/settings.json, the project MCP file
// .mcp.json and a wrapper script); there is no Go code.
package claude

import "github.com/agentlock/agentlock/integrations/manifest"

//go:generate go run ../manifest/manifestgen

// Agent returns the agent that claude.toml describes.
func Agent() *manifest.Agent { return manifest.Builtin(declared(), nil, manifest.Extension{}) }
