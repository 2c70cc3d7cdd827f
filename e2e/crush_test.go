//go:build linux

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlock/agentlock/e2e/mock"
)

// crushAgent drives Crush headless (crush run) against the mock's Chat
// Completions: an openai-compat provider in the user's crush.json, the
// default providers and their auto-update off, metrics off, and the tools
// the script uses allowed (no permission prompt in a run without a
// terminal; --yolo is not a flag of crush run).
var crushAgent = agent{
	cli:     crushCLI,
	offline: true,
	configure: func(t *testing.T, r *e2eRun, prompt string) ([]string, []string) {
		r.write(t, filepath.Join(r.home, ".config", "crush", "crush.json"), mustJSON(map[string]any{
			"options": map[string]any{"disable_default_providers": true, "disable_provider_auto_update": true,
				"disable_metrics": true},
			"permissions": map[string]any{"allowed_tools": []string{"view", "edit", "multiedit", "write", "bash", "download"}},
			"providers": map[string]any{"mock": map[string]any{"type": "openai-compat", "base_url": r.server.URL() + "/v1",
				"api_key": "sk-mock", "models": []any{map[string]any{"id": "mock-model", "name": "Mock",
					"context_window": 128000, "default_max_tokens": 4096}}}},
			"models": map[string]any{"large": map[string]any{"provider": "mock", "model": "mock-model"},
				"small": map[string]any{"provider": "mock", "model": "mock-model"}},
		}))
		return []string{"run", "--quiet", prompt},
			[]string{"CRUSH_DISABLE_METRICS=1", "DO_NOT_TRACK=1", "CRUSH_DISABLE_PROVIDER_AUTO_UPDATE=1"}
	},
	// edit refuses a file not viewed in the session.
	edit: func(path, old, new string) ([]mock.Step, mock.Step) {
		return []mock.Step{{Tool: "view", Args: map[string]any{"file_path": path}}},
			mock.Step{Tool: "edit", Args: map[string]any{"file_path": path, "old_string": old, "new_string": new}}
	},
	// Not a bypass: Crush's other edit tools, write and multiedit, on the
	// other held file.
	bypass: func(r *e2eRun) ([]mock.Step, mock.Step, string) {
		return nil, mock.Step{Tool: "write", Args: map[string]any{"file_path": filepath.Join(r.repo, "held2.txt"), "content": "overwritten\n"}},
			"write of a held file"
	},
}

// TestE2ECrush is TestE2E for Crush. Crush has no session start or end
// event and gives its bash tool no session id, so the direct run proves
// the gate alone (edit, write and multiedit of held files denied, a free
// edit locked by crush-<its session>), and the wrapper run the session:
// registered, the shell's whoami equal to the hook's id, finished and
// released at the end.
func TestE2ECrush(t *testing.T) {
	e2eOnly(t)
	prog := crushCLI.install(t)
	t.Run("gate", func(t *testing.T) { offline(t); e2eCrushGate(t, crushAgent, prog) })
	t.Run("wrapper", func(t *testing.T) { offline(t); e2eWrapper(t, crushAgent, prog) })
}

// e2eCrushGate is the direct run: the hook alone.
func e2eCrushGate(t *testing.T, a agent, prog string) {
	r := newE2ERun(t, a)
	steps := r.edits(a, nil)
	steps = append(steps, shell("agentlock status --json > status.json 2>&1; agentlock whoami > whoami.txt 2>&1"))
	_, bypass, what := a.bypass(r)
	steps = append(steps, bypass)
	r.bypassEdit = len(steps) - 1
	steps = append(steps, mock.Step{Tool: "multiedit", Args: map[string]any{"file_path": filepath.Join(r.repo, "held2.txt"),
		"edits": []any{map[string]any{"old_string": heldText, "new_string": "changed\n"}}}})
	multi := len(steps) - 1
	r.start(t, steps)
	r.runCLI(t, a, prog, false)

	r.fileIs(t, "held.txt", heldText, "edit of a held file")
	r.deniedCleanly(t, r.heldEdit, "edit of a held file")
	r.fileIs(t, "held2.txt", heldText, what+" and multiedit of a held file")
	r.deniedCleanly(t, r.bypassEdit, what)
	r.deniedCleanly(t, multi, "multiedit of a held file")
	r.fileIs(t, "free.txt", "edited\n", "edit of a free file")
	l := r.locksIn(t, "status.json")["free.txt"]
	if !strings.HasPrefix(l.Session, "crush-") || l.State != "locked" {
		t.Errorf("during the run, free.txt's lock is %+v, want locked by a crush- session", l)
	}
	r.readInstructions(t, "CRUSH.md")
	// What Crush cannot give: the shell has no session id (documented in
	// docs/integrations/crush.md; the wrapper gives one).
	if data, _ := os.ReadFile(filepath.Join(r.repo, "whoami.txt")); !strings.Contains(string(data), "no session id") {
		t.Logf("whoami in Crush's shell without the wrapper: %q", data)
	}
}
