// Package kimi is Kimi Code CLI (npm @moonshot-ai/kimi-code, the "kimi"
// command), as agentlock connects it: kimi.toml, and Go code for what a
// manifest cannot say — its plan and its "~" paths. Kimi Code reads hooks
// only from the user's config.toml ($KIMI_CODE_HOME, else ~/.kimi-code),
// for every project: so the hooks are added there, only with the user's
// consent (init --global), as a marked block, never re-serialising a file
// that also holds API keys. The hooks decide from the payload's cwd and
// paths, so one entry serves every project and does nothing outside
// agentlock projects. In the project it writes .kimi-code/AGENTS.md
// (instructions Kimi Code loads beside AGENTS.md) and a wrapper script.
//
// The legacy Python kimi-cli (~/.kimi, archived upstream) is not
// supported: uninit still removes what an older agentlock wrote for it.
package kimi

import (
	"embed"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/manifest"
)

//go:generate go run ../manifest/manifestgen

//go:embed *.tmpl
var templateFiles embed.FS

// Agent returns Kimi Code CLI: kimi.toml, its hooks' template and its Go
// extension.
func Agent() *manifest.Agent {
	return manifest.Builtin(declared(), templateFiles, manifest.Extension{Plan: plan, EditedPaths: editedPaths, Checks: checks, Legacy: legacy})
}

// Variables that move Kimi's user folder: Kimi Code's, and the legacy
// kimi-cli's (read only to remove what an older agentlock wrote there).
const (
	KimiCodeHomeVar = "KIMI_CODE_HOME"
	KimiShareDirVar = "KIMI_SHARE_DIR"
)

// Config is where Kimi Code keeps its config.toml, as an artifact path
// (below the user's home, or absolute when KIMI_CODE_HOME moves it) and as
// the user knows it.
func Config(env integrations.Env) (path, label string) {
	if dir := env.AgentDirs[KimiCodeHomeVar]; dir != "" {
		p := filepath.Join(dir, "config.toml")
		return p, p
	}
	return ".kimi-code/config.toml", "~/.kimi-code/config.toml"
}

// legacyConfig is the legacy kimi-cli's config.toml: $KIMI_SHARE_DIR,
// else ~/.kimi.
func legacyConfig(env integrations.Env) string {
	if dir := env.AgentDirs[KimiShareDirVar]; dir != "" {
		return filepath.Join(dir, "config.toml")
	}
	return ".kimi/config.toml"
}

// UserLevelNote is what init says when it leaves Kimi out for want of
// consent to the user-level file.
func UserLevelNote(label string) string {
	return "not set up: Kimi Code reads hooks only from the user-level " + label +
		", so agentlock's hooks must go there, for every project (they gate only the projects set up for agentlock " +
		"and do nothing elsewhere). Without them nothing would gate Kimi's edits, so nothing was written for Kimi: " +
		"run `agentlock init --agent kimi --global`."
}

// plan implements integrations.Agent's Plan. Without consent to user files
// (env.Global) init plans nothing for Kimi, since nothing would gate its
// edits; uninit (env.Removing) still removes the project's files, and
// what an older agentlock wrote for the legacy kimi-cli.
func plan(a *manifest.Agent, env integrations.Env) ([]integrations.Artifact, []string, error) {
	config, label := Config(env)
	var p integrations.Plan
	if !env.Global && !env.Removing {
		p.Notes = append(p.Notes, UserLevelNote(label))
		return p.Result()
	}
	d := a.Data(env)
	d.PreEditHook = true      // whatever is planned comes with the hooks
	d.InitFlags = " --global" // the init that writes Kimi's files
	p.Add(integrations.Rendered(".kimi-code/AGENTS.md", integrations.Project, integrations.OwnedFile, "rule.md.tmpl", d,
		"instructions Kimi Code loads beside AGENTS.md"))
	p.Add(integrations.Wrapper(d))
	if env.Global {
		hooks, err := integrations.Rendered(config, integrations.User, integrations.TOMLBlock, "hooks.toml.tmpl", d,
			"hooks, user-level: Kimi Code runs them in every project, and they gate only projects set up for agentlock")
		// Created private, with its folder: Kimi keeps API keys in it.
		hooks.Mode = 0o600
		p.Add(hooks, err)
	}
	if env.Removing {
		// Written by agentlock for kimi-cli before Kimi Code replaced it.
		p.Add(unsupported(integrations.Rendered(".kimi/AGENTS.md", integrations.Project, integrations.OwnedFile, "rule.md.tmpl", d,
			"instructions for the legacy kimi-cli (unsupported)")))
		if env.Global {
			p.Add(unsupported(integrations.Rendered(legacyConfig(env), integrations.User, integrations.TOMLBlock, "hooks.toml.tmpl", d,
				"hooks for the legacy kimi-cli (unsupported)")))
		}
	}
	return p.Result()
}

// unsupported marks an artifact of the legacy kimi-cli.
func unsupported(a integrations.Artifact, err error) (integrations.Artifact, error) {
	a.Unsupported = true
	return a, err
}

// editedPaths implements integrations.Agent's EditedPaths: Write and Edit carry
// tool_input.path, maybe relative to the payload's cwd, and Kimi expands a
// leading "~" before it writes: so does the hook, with the user's home. A "~" the hook cannot
// expand (no home known, or another user's "~name") is a path it cannot
// check.
func editedPaths(in integrations.HookInput) ([]string, error) {
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
