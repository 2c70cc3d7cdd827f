// Package kimi integrates Kimi with agentlock, for both CLI generations
// that install the "kimi" command: the legacy kimi-cli (~/.kimi) and Kimi
// Code (~/.kimi-code), detected by the user's folder. It writes the
// per-tool instruction file (.kimi/AGENTS.md or .kimi-code/AGENTS.md) and a
// wrapper script. Kimi reads hooks only from the user's config.toml, for
// every project, so the hooks are added there only with the user's
// consent (init --global), as a marked block, never re-serialising a file
// that also holds API keys.
package kimi

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/templates"
)

// Agent is Kimi (kimi-cli or Kimi Code).
type Agent struct{}

var _ integrations.Agent = Agent{}

// Name implements integrations.Agent.
func (Agent) Name() string { return "kimi" }

// Provider implements integrations.Agent.
func (Agent) Provider() string { return "moonshot" }

// Title implements integrations.Agent.
func (Agent) Title() string { return "Kimi CLI" }

// SessionEnvVar implements integrations.Agent: Kimi gives its session id
// to hooks on stdin only.
func (Agent) SessionEnvVar() string { return "" }

// Variables that move Kimi's user folder: Kimi Code's and kimi-cli's.
const (
	KimiCodeHomeVar = "KIMI_CODE_HOME"
	KimiShareDirVar = "KIMI_SHARE_DIR"
)

// location is where the installed Kimi generation keeps its config.toml.
type location struct {
	kimiCode bool
	project  string // the per-tool folder in the project: .kimi-code or .kimi
	config   string // config.toml: below the home, or absolute
	label    string // config.toml as the user knows it
}

// locate finds the installed generation and its folder: KIMI_CODE_HOME
// (Kimi Code), else ~/.kimi-code when it exists, else KIMI_SHARE_DIR
// (kimi-cli), else ~/.kimi.
func locate(env integrations.Env) location {
	if dir := env.AgentDirs[KimiCodeHomeVar]; dir != "" {
		p := filepath.Join(dir, "config.toml")
		return location{kimiCode: true, project: ".kimi-code", config: p, label: p}
	}
	if env.UserHome != "" && env.Exists != nil && env.Exists(filepath.Join(env.UserHome, ".kimi-code")) {
		return location{kimiCode: true, project: ".kimi-code", config: ".kimi-code/config.toml", label: "~/.kimi-code/config.toml"}
	}
	if dir := env.AgentDirs[KimiShareDirVar]; dir != "" {
		p := filepath.Join(dir, "config.toml")
		return location{project: ".kimi", config: p, label: p}
	}
	return location{project: ".kimi", config: ".kimi/config.toml", label: "~/.kimi/config.toml"}
}

// Plan implements integrations.Agent.
func (a Agent) Plan(env integrations.Env) ([]integrations.Artifact, []string, error) {
	loc := locate(env)
	title := "Kimi CLI"
	if loc.kimiCode {
		title = "Kimi Code CLI"
	}
	d := templates.AgentData{Bin: env.Bin, Agent: a.Name(), Title: title, Command: "kimi", Provider: a.Provider(),
		Wrapper: integrations.WrapperPath(a.Name()), PreEditHook: env.Global, KimiCode: loc.kimiCode}
	var p integrations.Plan
	p.Add(integrations.Rendered(loc.project+"/AGENTS.md", integrations.Project, integrations.OwnedFile, "rule.md.tmpl", d,
		"instructions "+title+" loads beside AGENTS.md"))
	p.Add(integrations.Wrapper(d))
	if env.Global {
		p.Add(integrations.Rendered(loc.config, integrations.User, integrations.TOMLBlock, "hooks.toml.tmpl", d,
			"hooks (user-wide; they do nothing outside agentlock projects)"))
	} else {
		p.Notes = append(p.Notes, "Kimi reads hooks only from "+loc.label+", for every project: "+
			"run again with --global to add agentlock's hooks there (they do nothing in projects without agentlock).")
	}
	return p.Result()
}

// EditedPaths implements integrations.Agent: WriteFile/StrReplaceFile
// (kimi-cli) and Write/Edit (Kimi Code) carry tool_input.path, maybe
// relative, and Kimi expands a leading "~" (Python's expanduser) before it
// writes: so does the hook, with the user's home. A "~" the hook cannot
// expand (no home known, or another user's "~name") is a path it cannot
// check.
func (Agent) EditedPaths(in integrations.HookInput) ([]string, error) {
	p := integrations.StringField(in.ToolInput, "path")
	if p == "" || !strings.HasPrefix(p, "~") {
		if p == "" {
			return nil, nil
		}
		return []string{p}, nil
	}
	rest := p[1:]
	if in.UserHome == "" || (rest != "" && !strings.HasPrefix(rest, "/")) {
		return nil, fmt.Errorf("%w: Kimi expands the ~ of %q, which agentlock cannot; give the path without ~", integrations.ErrUncheckable, p)
	}
	return []string{filepath.Join(in.UserHome, rest)}, nil
}

// SessionContext implements integrations.Agent: Kimi adds a hook's plain
// stdout to the context.
func (Agent) SessionContext(text string) ([]byte, error) {
	return []byte(text + "\n"), nil
}
