// Package codex integrates the OpenAI Codex CLI with agentlock: a short
// managed block at the top of AGENTS.md (never AGENTS.override.md, which
// would shadow the user's file), the agentlock skill in .agents/skills,
// hooks in .codex/hooks.json, and a wrapper script.
package codex

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/agentlock/agentlock/integrations"
)

// Agent is the Codex CLI.
type Agent struct{ integrations.Identified[Agent] }

var _ integrations.Agent = Agent{}

// Identity implements integrations.Identifier.
func (Agent) Identity() integrations.Identity {
	return integrations.Identity{Name: "codex", Title: "Codex CLI", Provider: "openai", Command: "codex",
		// Codex sets it in the environment of shell commands.
		SessionEnvVar: "CODEX_THREAD_ID"}
}

// Plan implements integrations.Agent.
func (a Agent) Plan(env integrations.Env) ([]integrations.Artifact, []string, error) {
	d := a.Identity().Data(env)
	var p integrations.Plan
	p.Add(integrations.Rendered("AGENTS.md", integrations.Project, integrations.ManagedBlock, "block.md.tmpl", d,
		"instructions, in a managed block at the top of AGENTS.md"))
	p.Add(integrations.Skill(".agents/skills/agentlock/SKILL.md", d))
	p.Add(integrations.Rendered(".codex/hooks.json", integrations.Project, integrations.JSONHooks, "hooks.json.tmpl", d,
		"hooks: lock before apply_patch (also run through the shell), register at start, renew after each tool, finish at the end"))
	p.Add(integrations.Wrapper(d))
	p.Notes = append(p.Notes, TrustSteps...)
	return p.Result()
}

// TrustSteps tell the user how to make Codex run the hooks: Codex loads
// .codex/hooks.json only in a trusted project, and runs a hook only once
// its definition was trusted; codex exec skips untrusted hooks without a
// word. agentlock keeps its entries byte-stable (command, matcher,
// timeout, statusMessage, position) so that the trust survives upgrades.
var TrustSteps = []string{
	"Codex runs these hooks only once you trust them, and `codex exec` skips untrusted hooks silently:",
	"  interactive: start `codex` in this project, trust the project when asked, open /hooks and trust agentlock's 4 hooks (once per checkout; upgrades keep them trusted);",
	"  automation: run `codex exec --dangerously-bypass-hook-trust ...` (the project must be trusted: [projects.\"<path>\"] trust_level = \"trusted\" in ~/.codex/config.toml), or trust the hooks once in /hooks.",
}

// patchHeaders are the apply_patch lines that name a file the patch
// changes.
var patchHeaders = []string{"*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:"}

// EditedPaths implements integrations.Agent. The apply_patch tool passes
// its patch in tool_input.command (a string, or an argv whose items may
// hold it), and every file it adds, updates, deletes or moves to is named
// on a header line, relative to the session's cwd. A shell command (tool
// "Bash") counts only when it runs apply_patch, which Codex then applies
// itself (see shellPatchPaths); one that runs apply_patch on a patch the
// hook cannot see (from a file, a pipe, a variable) cannot be checked.
func (Agent) EditedPaths(in integrations.HookInput) ([]string, error) {
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
		return PatchPaths(texts), nil
	}
	// A shell tool. An argv (["bash", "-lc", script]) is searched item by
	// item: the script is one of them.
	var paths []string
	invokes := false
	for _, text := range texts {
		p, ok := shellPatchPaths(text)
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

// patchPaths returns the files that patch texts add, update, delete or
// move to, in order, each once.
func PatchPaths(texts []string) []string {
	var paths []string
	seen := map[string]bool{}
	for _, text := range texts {
		for _, line := range strings.Split(text, "\n") {
			// Trailing blanks and the tabs of an indented here-document
			// (<<-) only: a body line starts with a space, +, or -.
			line = strings.TrimLeft(strings.TrimRight(line, " \t\r"), "\t")
			for _, h := range patchHeaders {
				if p, ok := strings.CutPrefix(line, h); ok && strings.TrimSpace(p) != "" {
					p = strings.TrimSpace(p)
					if !seen[p] {
						seen[p] = true
						paths = append(paths, p)
					}
				}
			}
		}
	}
	return paths
}

// SessionContext implements integrations.Agent.
func (Agent) SessionContext(text string) ([]byte, error) {
	return integrations.AdditionalContext("SessionStart", text)
}

// DenyOutput implements integrations.Denier: PreToolUse's
// permissionDecision "deny", so that the model reads only the reason.
func (Agent) DenyOutput(reason string) ([]byte, error) { return integrations.PermissionDeny(reason) }
