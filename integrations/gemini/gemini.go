// Package gemini integrates the Gemini CLI with agentlock: a managed block
// in GEMINI.md, hooks in .gemini/settings.json (JSONC: edited as text, the
// user's comments kept), and a wrapper script, which is what gives the
// model's shell commands a session id (Gemini exports its own only to
// hooks).
package gemini

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/agentlock/agentlock/integrations"
)

// Agent is the Gemini CLI.
type Agent struct{ integrations.Identified[Agent] }

var _ integrations.Agent = Agent{}

// Identity implements integrations.Identifier.
func (Agent) Identity() integrations.Identity {
	return integrations.Identity{Name: "gemini", Title: "Gemini CLI", Provider: "google", Command: "gemini",
		// Gemini sets it for hooks only, not for the model's shell commands.
		SessionEnvVar: "GEMINI_SESSION_ID"}
}

// Plan implements integrations.Agent.
func (a Agent) Plan(env integrations.Env) ([]integrations.Artifact, []string, error) {
	d := a.Identity().Data(env)
	var p integrations.Plan
	p.Add(integrations.Rendered("GEMINI.md", integrations.Project, integrations.ManagedBlock, "block.md.tmpl", d,
		"instructions, in a managed block at the top of GEMINI.md"))
	p.Add(integrations.Rendered(".gemini/settings.json", integrations.Project, integrations.JSONHooks, "settings.json.tmpl", d,
		"hooks: lock before write_file/replace, register at start, renew after each tool, finish at the end"))
	p.Add(integrations.Wrapper(d))
	p.Notes = append(p.Notes, "Gemini CLI ignores .gemini/settings.json in an untrusted folder; trust the project for the hooks to run.")
	return p.Result()
}

// EditedPaths implements integrations.Agent: write_file and replace carry
// tool_input.file_path, the model's raw argument, maybe relative, which
// Gemini normalises before it writes (ToolPath): the hook locks the file
// Gemini will write, not the raw string.
func (Agent) EditedPaths(in integrations.HookInput) ([]string, error) {
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

// SessionContext implements integrations.Agent.
func (Agent) SessionContext(text string) ([]byte, error) {
	return integrations.AdditionalContext("SessionStart", text)
}

// DenyOutput implements integrations.Denier: {"decision":"deny"} with exit
// 0, which Gemini shows without its "hook failed" label (exit 1 would only
// warn and let the tool run; exit 2 denies, labelled as a failure).
func (Agent) DenyOutput(reason string) ([]byte, error) { return integrations.DecisionDeny(reason) }
