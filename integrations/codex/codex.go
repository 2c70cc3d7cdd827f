// Package codex is the OpenAI Codex CLI, as agentlock connects it:
// codex.toml says where its files go and how its hooks answer; the Go code
// here reads the files an edit changes, which a manifest cannot say — the
// apply_patch tool's patch, and the shell commands that run apply_patch,
// which Codex then applies itself (shell.go).
package codex

import (
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/manifest"
)

//go:generate go run ../manifest/manifestgen

// Agent returns the Codex CLI: codex.toml and its Go extension.
func Agent() *manifest.Agent {
	return manifest.Builtin(declared(), nil, manifest.Extension{EditedPaths: editedPaths, WholePaths: wholePaths, Checks: checks})
}

// editedPaths implements integrations.Agent's EditedPaths. The apply_patch tool passes
// its patch in tool_input.command (a string, or an argv whose items may
// hold it), and every file it adds, updates, deletes or moves to is named
// on a header line, relative to the session's cwd. A shell command (tool
// "Bash") counts only when it runs apply_patch, which Codex then applies
// itself (see shellPatchPaths); one that runs apply_patch on a patch the
// hook cannot see (from a file, a pipe, a variable) cannot be checked.
func editedPaths(in integrations.HookInput) ([]string, error) {
	return patchedPaths(in, integrations.PatchPaths)
}

// wholePaths implements the extension's WholePaths: the files an edit's
// patch adds (over an existing file, Codex replaces it) or deletes, found
// as editedPaths finds them.
func wholePaths(in integrations.HookInput) []string {
	paths, _ := patchedPaths(in, integrations.PatchWholePaths)
	return paths
}

// patchedPaths is editedPaths, the files named by the header lines that
// headerPaths reads of each patch.
func patchedPaths(in integrations.HookInput, headerPaths func([]string) []string) ([]string, error) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(in.ToolInput, &fields) != nil {
		return nil, nil
	}
	var texts []string
	var one string
	if json.Unmarshal(fields["command"], &one) == nil {
		texts = append(texts, one)
	} else if json.Unmarshal(fields["command"], &texts) != nil {
		return nil, nil
	}
	switch in.ToolName {
	case "apply_patch", "Edit", "Write", "":
		return headerPaths(texts), nil
	}
	// A shell tool. An argv (["bash", "-lc", script]) is searched item by
	// item: the script is one of them.
	var paths []string
	invokes := false
	for _, text := range texts {
		p, ok := shellPatchPaths(text, headerPaths)
		invokes = invokes || ok
		paths = append(paths, p...)
	}
	if invokes && len(paths) == 0 {
		return nil, fmt.Errorf("%w: the command runs apply_patch on a patch that is not in the command; "+
			"give the patch inline instead (apply_patch <<'EOF' ... EOF)", integrations.ErrUncheckable)
	}
	if workdir := integrations.StringField(in.ToolInput, "workdir"); workdir != "" {
		for i, p := range paths {
			if !filepath.IsAbs(p) {
				paths[i] = filepath.Join(workdir, p)
			}
		}
	}
	return paths, nil
}
