//go:build linux

package e2e

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentlock/agentlock/e2e/mock"
)

// qwenAgent drives Qwen Code headless against the mock's Chat Completions:
// OPENAI_BASE_URL, --approval-mode yolo (without it Qwen offers the model
// no edit tool and no shell), usage statistics, telemetry, update checks
// and the background memory agents off (they would make requests of their
// own, with the edit tools).
//
// Qwen Code is slow to start and to stop, on the processor rather than
// on anything it waits for: about 10 s from start to its first request,
// and after its result a worker thread of node takes seconds to stop,
// which the process waits for (29 s of the 55 s of a run at a load
// average of 20, on two cores). So a run gets 3 minutes, as OpenCode's.
var qwenAgent = agent{
	cli:     qwenCLI,
	timeout: 3 * time.Minute,
	configure: func(t *testing.T, r *e2eRun, prompt string) ([]string, []string) {
		r.write(t, filepath.Join(r.home, ".qwen", "settings.json"), mustJSON(map[string]any{
			"privacy":   map[string]any{"usageStatisticsEnabled": false},
			"telemetry": map[string]any{"enabled": false},
			"general":   map[string]any{"enableAutoUpdate": false},
			"security":  map[string]any{"auth": map[string]any{"selectedType": "openai"}},
			"memory": map[string]any{"enableManagedAutoMemory": false, "enableManagedAutoDream": false,
				"enableAutoSkill": false},
		}))
		return []string{"-p", prompt, "--approval-mode", "yolo", "--output-format", "stream-json"},
			[]string{"OPENAI_BASE_URL=" + r.server.URL() + "/v1", "OPENAI_API_KEY=sk-mock", "OPENAI_MODEL=mock-model",
				"QWEN_TELEMETRY_ENABLED=0", "QWEN_USAGE_STATISTICS_ENABLED=0"}
	},
	// edit refuses a file not read in the session.
	edit: func(path, old, new string) ([]mock.Step, mock.Step) {
		return []mock.Step{{Tool: "read_file", Args: map[string]any{"file_path": path}}}, mock.Step{Tool: "edit", Args: map[string]any{"file_path": path, "old_string": old, "new_string": new}}
	},
	// Not a bypass: the second edit tool, write_file, on the other held file.
	bypass: func(r *e2eRun) ([]mock.Step, mock.Step, string) {
		return nil, mock.Step{Tool: "write_file", Args: map[string]any{"file_path": filepath.Join(r.repo, "held2.txt"), "content": "overwritten\n"}},
			"write_file of a held file"
	},
	// read_file, then write_file; Qwen's own check (by mtime or size) may
	// refuse it too.
	stale: &staleCase{
		read: func(path string) mock.Step {
			return mock.Step{Tool: "read_file", Args: map[string]any{"file_path": path}}
		},
		write: func(path, content string) mock.Step {
			return mock.Step{Tool: "write_file", Args: map[string]any{"file_path": path, "content": content}}
		},
		cliGuard:  "modified since you last read it",
		toldEarly: true,
	},
}

// qwenProgram is the program the test runs for Qwen Code: a script that
// puts a node >= 22 first in PATH (the system's may be older) and runs
// the installed CLI.
func qwenProgram(t *testing.T) string {
	t.Helper()
	return qwenCLI.onNode22(t)
}

// TestE2EQwen is TestE2E for Qwen Code: the direct run (hooks alone: a
// held file denied through edit and through write_file, a free edit
// locked by the CLI's session, whoami, session start; Qwen never runs
// SessionEnd in -p, so the session is finished once its agent process has
// exited), the wrapper run, notebook_edit, and the stale case.
func TestE2EQwen(t *testing.T) {
	e2eOnly(t)
	prog := qwenProgram(t)
	// stream-json: a run killed at its deadline shows how far it got.
	// Each run is offline: Qwen Code, the mock and every hook in a network
	// namespace of their own with only loopback up (offline, as
	// `unshare --net`).
	t.Run("session", func(t *testing.T) { offline(t); e2eSession(t, qwenAgent, prog) })
	t.Run("wrapper", func(t *testing.T) { offline(t); e2eWrapper(t, qwenAgent, prog) })
	t.Run("notebook_edit", func(t *testing.T) { offline(t); e2eQwenNotebook(t, qwenAgent, prog) })
	t.Run("stale", func(t *testing.T) { offline(t); e2eStale(t, qwenAgent, prog) })
}

// e2eQwenNotebook: notebook_edit, Qwen's third edit tool, of a notebook
// another session holds is denied and the notebook is byte-identical.
func e2eQwenNotebook(t *testing.T, a agent, prog string) {
	r := newE2ERun(t, a)
	const notebook = `{"cells":[{"cell_type":"code","id":"c1","metadata":{},"source":["print(1)\n"],"outputs":[],"execution_count":null}],"metadata":{},"nbformat":4,"nbformat_minor":5}` + "\n"
	path := filepath.Join(r.repo, "held.ipynb")
	r.write(t, path, notebook)
	r.agentlock(t, "acquire", "held.ipynb", "--session", holder)
	r.start(t, []mock.Step{{Tool: "notebook_edit", Args: map[string]any{"notebook_path": path, "cell_id": "c1",
		"new_source": "print(2)\n", "edit_mode": "replace"}}})
	r.heldEdit = 0
	r.runCLI(t, a, prog, false)
	r.fileIs(t, "held.ipynb", notebook, "notebook_edit of a held notebook")
	r.deniedCleanly(t, r.heldEdit, "notebook_edit of a held notebook")
	if text := r.told(t, 0); !strings.Contains(text, "held.ipynb") {
		t.Errorf("the denial does not name the notebook: %q", text)
	}
}
