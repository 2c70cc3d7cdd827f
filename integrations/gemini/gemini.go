// Package gemini is the Gemini CLI, as agentlock connects it: gemini.toml
// says where its files go and how its hooks answer; the Go code here
// resolves the edited path as Gemini does before it writes (ToolPath),
// which a manifest cannot say.
package gemini

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/manifest"
)

//go:generate go run ../manifest/manifestgen

// Agent returns the Gemini CLI: gemini.toml and its Go extension.
func Agent() *manifest.Agent {
	return manifest.Builtin(declared(), nil, manifest.Extension{EditedPaths: editedPaths, ReadPaths: readPaths, Checks: checks})
}

// readPaths implements the extension's ReadPaths: read_file's file_path,
// resolved as Gemini resolves it (ToolPath), and the files read_many_files
// names literally in include (a glob pattern names no file agentlock can
// know was read: those are not recorded).
func readPaths(in integrations.HookInput) ([]string, error) {
	switch in.ToolName {
	case "read_file":
		if p := integrations.StringField(in.ToolInput, "file_path"); p != "" {
			return []string{ToolPath(p, in.Cwd)}, nil
		}
	case "read_many_files":
		var input struct {
			Include []string `json:"include"`
		}
		_ = json.Unmarshal(in.ToolInput, &input)
		var out []string
		for _, p := range input.Include {
			if p == "" || strings.ContainsAny(p, "*?[{") {
				continue
			}
			if info, err := os.Stat(resolve(in.Cwd, ToolPath(p, in.Cwd))); err == nil && info.Mode().IsRegular() {
				out = append(out, ToolPath(p, in.Cwd))
			}
		}
		return out, nil
	}
	return nil, nil
}

// editedPaths implements integrations.Agent's EditedPaths: write_file and replace carry
// tool_input.file_path, the model's raw argument, maybe relative, which
// Gemini normalises before it writes (ToolPath): the hook locks the file
// Gemini will write, not the raw string.
func editedPaths(in integrations.HookInput) ([]string, error) {
	if p := integrations.StringField(in.ToolInput, "file_path"); p != "" {
		return []string{ToolPath(p, in.Cwd)}, nil
	}
	return nil, nil
}

// ToolPath is the path Gemini CLI's write_file and replace write for the
// model's file_path, relative to dir (the session's folder), as gemini-cli
// resolves it (resolveDefensiveToolPath, packages/core/src/utils/paths.ts):
// NUL bytes are removed; a path that exists as written is kept; else a
// leading "@" (a file reference the model copied) is dropped with the
// slashes after it, unless a file or folder named "@<first segment>"
// exists.
func ToolPath(p, dir string) string {
	clean := strings.ReplaceAll(p, "\x00", "")
	if exists(resolve(dir, clean)) {
		return clean
	}
	if !strings.HasPrefix(clean, "@") || len(clean) == 1 {
		return clean
	}
	stripped := strings.TrimLeft(clean[1:], `/\`)
	if strings.HasPrefix(clean, "@/") || strings.HasPrefix(clean, `@\`) {
		if stripped == "" {
			return clean
		}
		return stripped
	}
	first, _, _ := strings.Cut(strings.ReplaceAll(stripped, `\`, "/"), "/")
	if first == "" {
		return clean
	}
	if exists(resolve(dir, "@"+first)) {
		return clean
	}
	return stripped
}

// resolve is p relative to dir, as path.resolve does.
func resolve(dir, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(dir, p)
}

// exists reports whether path exists, following symbolic links
// (fs.existsSync).
func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}
