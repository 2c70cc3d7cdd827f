// Package opencode is OpenCode (npm opencode-ai), as agentlock connects it:
// opencode.toml and the plugin's templates, and Go code for what a
// manifest cannot say — the files an edit tool call changes. Kilo Code CLI
// (integrations/kilo) is the same contract under other names, and uses the
// templates and the extension of this package.
package opencode

import (
	"embed"
	"fmt"
	"io/fs"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/manifest"
)

//go:generate go run ../manifest/manifestgen

//go:embed *.tmpl
var templateFiles embed.FS

// Agent returns OpenCode: opencode.toml, the plugin's templates and the Go
// extension.
func Agent() *manifest.Agent { return manifest.Builtin(declared(), Templates(), Extension()) }

// Templates are the templates of the plugin and of its .gitignore block,
// for OpenCode and Kilo Code CLI.
func Templates() fs.FS { return templateFiles }

// Extension is the Go code of OpenCode and Kilo Code CLI.
func Extension() manifest.Extension {
	return manifest.Extension{EditedPaths: editedPaths, Checks: checks}
}

// editTools are the tools that change files; the plugin sends only these.
var editTools = []string{"edit", "write", "multiedit", "apply_patch", "patch"}

// editedPaths implements integrations.Agent's EditedPaths. edit, write and multiedit
// carry their file in filePath (absolute, or relative to the project);
// apply_patch (what model ids with "gpt-" get instead) carries a patch in
// Codex's format in patchText, whose every added, updated, deleted or
// moved-to file counts — relative to the project — so that the patch is
// gated all or nothing. A patch tool call without patch text is refused.
func editedPaths(in integrations.HookInput) ([]string, error) {
	if !integrations.EditCall(in.ToolName, editTools...) {
		return nil, nil
	}
	if p := integrations.StringField(in.ToolInput, "filePath"); p != "" {
		return []string{p}, nil
	}
	if text := integrations.StringField(in.ToolInput, "patchText"); text != "" {
		return integrations.PatchPaths([]string{text}), nil
	}
	if in.ToolName == "apply_patch" || in.ToolName == "patch" {
		return nil, fmt.Errorf("%w: the %s call carries no patchText the hook can read", integrations.ErrUncheckable, in.ToolName)
	}
	return nil, nil
}
