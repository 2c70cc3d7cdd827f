// Package kilo is Kilo Code CLI (npm @kilocode/cli), a fork of OpenCode, as
// agentlock connects it: kilo.toml, with OpenCode's plugin templates and Go
// extension (package opencode).
package kilo

import (
	"github.com/agentlock/agentlock/integrations/manifest"
	"github.com/agentlock/agentlock/integrations/opencode"
)

//go:generate go run ../manifest/manifestgen

// Agent returns Kilo Code CLI: kilo.toml, with OpenCode's templates and
// extension.
func Agent() *manifest.Agent {
	return manifest.Builtin(declared(), opencode.Templates(), opencode.Extension())
}
