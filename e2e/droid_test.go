//go:build linux

package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlock/agentlock/e2e/mock"
)

// droidAgent drives Factory Droid headless (droid exec) against the
// mock's Chat Completions: a custom model of provider
// generic-chat-completion-api in ~/.factory/settings.json, --auto high
// (without it droid exec is read-only and refuses every edit), a
// placeholder FACTORY_API_KEY (no Factory login exists offline; nothing
// reads it against the mock), and every run offline.
var droidAgent = agent{
	cli:     droidCLI,
	offline: true,
	configure: func(t *testing.T, r *e2eRun, prompt string) ([]string, []string) {
		r.write(t, filepath.Join(r.home, ".factory", "settings.json"), mustJSON(map[string]any{
			"customModels": []any{map[string]any{"model": "mock-model", "displayName": "Mock", "baseUrl": r.server.URL() + "/v1",
				"apiKey": "sk-mock", "provider": "generic-chat-completion-api", "maxOutputTokens": 4096}},
		}))
		return []string{"exec", "--auto", "high", "-m", "custom:mock-model", "-o", "json", prompt},
			[]string{"FACTORY_API_KEY=fk-placeholder"}
	},
	edit: func(path, old, new string) ([]mock.Step, mock.Step) {
		return []mock.Step{{Tool: "Read", Args: map[string]any{"file_path": path}}},
			mock.Step{Tool: "Edit", Args: map[string]any{"file_path": path, "old_str": old, "new_str": new}}
	},
	// Not a bypass: Droid's other edit tool, Create, over the other held
	// file.
	bypass: func(r *e2eRun) ([]mock.Step, mock.Step, string) {
		return nil, mock.Step{Tool: "Create", Args: map[string]any{"file_path": filepath.Join(r.repo, "held2.txt"), "content": "overwritten\n"}},
			"Create of a held file"
	},
	stale: &staleCase{
		read: func(path string) mock.Step { return mock.Step{Tool: "Read", Args: map[string]any{"file_path": path}} },
		write: func(path, content string) mock.Step {
			return mock.Step{Tool: "Create", Args: map[string]any{"file_path": path, "content": content}}
		},
		toldEarly: true,
	},
}

// TestE2EDroid is TestE2E for Factory Droid: the direct run (a held file
// denied through Edit and through Create, a free edit locked by Droid's
// session, whoami through the droid process the session-start hook
// recorded, session start and end), the wrapper run, ApplyPatch, and the
// stale case.
func TestE2EDroid(t *testing.T) {
	e2eOnly(t)
	prog := droidCLI.install(t)
	t.Run("session", func(t *testing.T) { offline(t); e2eSession(t, droidAgent, prog) })
	t.Run("wrapper", func(t *testing.T) { offline(t); e2eWrapper(t, droidAgent, prog) })
	t.Run("ApplyPatch", func(t *testing.T) { offline(t); e2eDroidApplyPatch(t, droidAgent, prog) })
	t.Run("stale", func(t *testing.T) { offline(t); e2eStale(t, droidAgent, prog) })
}

// e2eDroidApplyPatch is Droid with a custom model of provider openai
// (the Responses API), to which Droid offers ApplyPatch, the edit tool of
// OpenAI models: a patch of a held file is denied whole and the file is
// byte-identical; a patch of a free file goes through under the session's
// lock.
func e2eDroidApplyPatch(t *testing.T, a agent, prog string) {
	r := newE2ERun(t, a)
	held, free := filepath.Join(r.repo, "held.txt"), filepath.Join(r.repo, "free.txt")
	r.start(t, []mock.Step{
		{Tool: "ApplyPatch", Input: patch(held, heldText, "changed\n") + "\n"},
		{Tool: "ApplyPatch", Input: patch(free, freeText, "edited\n") + "\n"},
		// The mock's Responses shell is Codex's exec_command: name Droid's.
		{Tool: "Execute", Args: map[string]any{"command": "agentlock status --json > status.json 2>&1", "summary": "status",
			"riskLevelReason": "reads the locks", "riskLevel": "low"}},
	})
	r.heldEdit, r.freeEdit = 0, 1
	args, env := a.configure(t, r, "do the scripted work")
	r.write(t, filepath.Join(r.home, ".factory", "settings.json"), mustJSON(map[string]any{
		"customModels": []any{map[string]any{"model": "gpt-5.5", "displayName": "Mock", "baseUrl": r.server.URL() + "/v1",
			"apiKey": "sk-mock", "provider": "openai", "maxOutputTokens": 4096}},
	}))
	for i, arg := range args {
		if arg == "custom:mock-model" {
			args[i] = "custom:gpt-5.5"
		}
	}
	r.patchToolRun(t, a, prog, args, env, "ApplyPatch")
	r.readInstructions(t, ".factory/AGENTS.md")
}

// readInstructions checks that a request to the model holds the
// instructions init wrote into file.
func (r *e2eRun) readInstructions(t *testing.T, file string) {
	t.Helper()
	for _, req := range r.server.Requests() {
		if strings.Contains(req.Body, "agentlock: coordinate with the other agents in this repository") {
			return
		}
	}
	t.Errorf("no request to the model holds the instructions of %s", file)
}
