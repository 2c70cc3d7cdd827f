// Package pi is Pi (npm @earendil-works/pi-coding-agent), as agentlock
// connects it: pi.toml and its extension's template, and Go code for what
// a manifest cannot say — the file an edit tool changes.
package pi

import (
	"embed"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/manifest"
)

//go:generate go run ../manifest/manifestgen

//go:embed *.tmpl
var templateFiles embed.FS

// Agent returns Pi: pi.toml, its extension's template and its Go
// extension.
func Agent() *manifest.Agent {
	return manifest.Builtin(declared(), templateFiles, manifest.Extension{EditedPaths: editedPaths, Checks: checks})
}

// AgentDirVar moves Pi's user folder (default ~/.pi/agent), where its
// trust.json and settings.json are.
const AgentDirVar = "PI_CODING_AGENT_DIR"

// editTools are Pi's built-in tools that change a file; both carry
// input.path.
var editTools = []string{"edit", "write"}

// editedPaths implements integrations.Agent's EditedPaths.
func editedPaths(in integrations.HookInput) ([]string, error) {
	if !integrations.EditCall(in.ToolName, editTools...) {
		return nil, nil
	}
	if p := integrations.StringField(in.ToolInput, "path"); p != "" {
		return []string{p}, nil
	}
	if in.ToolName == "" {
		return nil, nil // no tool and no path: nothing to gate
	}
	return nil, integrations.ErrUncheckable
}
