//go:build linux

package e2e

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlock/agentlock/e2e/mock"
	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// piAgent drives Pi in print mode against the mock's Chat Completions: a
// provider "mock" of api openai-completions in ~/.pi/agent/models.json,
// --approve (print mode never asks for project trust, and loads no
// project extension without it), PI_OFFLINE and the version check and
// telemetry off.
var piAgent = agent{
	cli: piCLI,
	configure: func(t *testing.T, r *e2eRun, prompt string) ([]string, []string) {
		r.write(t, filepath.Join(r.home, ".pi", "agent", "models.json"), mustJSON(map[string]any{
			"providers": map[string]any{"mock": map[string]any{
				"baseUrl": r.server.URL() + "/v1", "api": "openai-completions", "apiKey": "sk-mock",
				"models": []any{map[string]any{"id": "mock-model"}},
			}},
		}))
		return []string{"--print", "--approve", "--provider", "mock", "--model", "mock-model", prompt},
			[]string{"PI_OFFLINE=1", "PI_SKIP_VERSION_CHECK=1", "PI_TELEMETRY=0"}
	},
	edit: func(path, old, new string) ([]mock.Step, mock.Step) {
		return nil, mock.Step{Tool: "edit", Args: map[string]any{"path": path, "edits": []any{map[string]any{"oldText": old, "newText": new}}}}
	},
	// Not a bypass: Pi's second edit tool, write, on the other held file.
	bypass: func(r *e2eRun) ([]mock.Step, mock.Step, string) {
		return nil, mock.Step{Tool: "write", Args: map[string]any{"path": filepath.Join(r.repo, "held2.txt"), "content": "overwritten\n"}},
			"write of a held file"
	},
	shellVar: "PI_SESSION_ID",
	// The extension adds the renew hook's notice to the tool's result.
	stale: &staleCase{
		read: func(path string) mock.Step { return mock.Step{Tool: "read", Args: map[string]any{"path": path}} },
		write: func(path, content string) mock.Step {
			return mock.Step{Tool: "write", Args: map[string]any{"path": path, "content": content}}
		},
		toldEarly: true,
	},
}

// piProgram is the program the test runs for Pi: a script that puts a
// node >= 22.19 first in PATH and runs the installed CLI.
func piProgram(t *testing.T) string {
	t.Helper()
	return piCLI.onNode22(t)
}

// TestE2EPi is TestE2E for Pi: the direct run (the extension alone: a held
// file denied through edit and through write, a free edit locked by Pi's
// session, whoami from PI_SESSION_ID, session start, session_shutdown),
// the wrapper run, agentlock missing, and the stale case, each offline.
func TestE2EPi(t *testing.T) {
	e2eOnly(t)
	prog := piProgram(t)
	t.Run("session", func(t *testing.T) { offline(t); e2eSession(t, piAgent, prog) })
	t.Run("wrapper", func(t *testing.T) { offline(t); e2eWrapper(t, piAgent, prog) })
	t.Run("no-agentlock", func(t *testing.T) { offline(t); e2ePiNoAgentlock(t, piAgent, prog) })
	t.Run("stale", func(t *testing.T) { offline(t); e2eStale(t, piAgent, prog) })
}

// e2ePiNoAgentlock: with no agentlock on Pi's PATH the extension cannot
// check an edit, so it blocks it (fails closed) and says why; the file is
// byte-identical.
func e2ePiNoAgentlock(t *testing.T, a agent, prog string) {
	r := newE2ERun(t, a)
	_, edit := a.edit(filepath.Join(r.repo, "free.txt"), freeText, "edited\n")
	r.start(t, []mock.Step{edit})
	args, env := a.configure(t, r, "do the scripted work")
	res := proctest.Run(t, prog, proctest.Cmd{Args: args, Env: proctest.Env(r.home, r.tmp, append(env, "PATH="+systemPath)...), Dir: r.repo})
	if res.Code != 0 {
		t.Fatalf("pi failed: %v", res)
	}
	r.fileIs(t, "free.txt", freeText, "edit with agentlock missing")
	if text := r.told(t, 0); !strings.Contains(text, "agentlock could not check this edit") {
		t.Errorf("the model read %q, want the edit blocked because agentlock could not run", text)
	}
}
