//go:build linux

package e2e

import (
	"path/filepath"
	"testing"

	"github.com/agentlock/agentlock/e2e/mock"
)

// droidCLI is Factory Droid, pinned: @factory/cli 0.225.1 (the launcher,
// the registry's only version), whose linux-x64 binary package the
// registry has as 0.225.2 only; the CLI reports 0.225.2. The facts of
// docs/integrations/droid.md were observed on it.
var droidCLI = agentCLI{"droid", "@factory/cli", "0.225.1", "droid"}

// droidPlatform is the binary package npm would install beside the
// launcher (an optional dependency pinned to 0.225.1, which the registry
// does not have).
const droidPlatform = "@factory/cli-linux-x64@0.225.2"

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
}

// droidProgram installs the pinned launcher and its binary package.
func droidProgram(t *testing.T) string {
	t.Helper()
	return droidCLI.installWith(t, droidPlatform)
}

// TestE2EDroid is TestE2E for Factory Droid: the direct run (a held file
// denied through Edit and through Create, a free edit locked by Droid's
// session, whoami through the droid process the session-start hook
// recorded, session start and end), the wrapper run, and ApplyPatch.
func TestE2EDroid(t *testing.T) {
	e2eOnly(t)
	prog := droidProgram(t)
	t.Run("session", func(t *testing.T) { offline(t); e2eSession(t, droidAgent, prog) })
	t.Run("wrapper", func(t *testing.T) { offline(t); e2eWrapper(t, droidAgent, prog) })
}

