//go:build linux

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlock/agentlock/e2e/mock"
)

// kimiConfig is the part of Kimi Code's config.toml that points it at the
// mock's Chat Completions (an "openai" provider), telemetry off. Its keys
// go before the tables `agentlock init --global` appended.
func kimiConfig(baseURL string) string {
	return `default_model = "mock"
telemetry = false

[providers.mock]
type = "openai"
api_key = "sk-mock"
base_url = "` + baseURL + `"

[models.mock]
provider = "mock"
model = "mock-model"
max_context_size = 128000

`
}

// kimiAgent drives Kimi Code headless (kimi -p, which never runs
// SessionEnd: the session is finished once its agent process has
// exited), its hooks in the user-level config.toml that `agentlock init
// --agent kimi --global` wrote, update checks and telemetry off.
var kimiAgent = agent{
	cli:      kimiCLI,
	initArgs: []string{"--global"},
	offline:  true,
	configure: func(t *testing.T, r *e2eRun, prompt string) ([]string, []string) {
		config := filepath.Join(r.home, ".kimi-code", "config.toml")
		data, err := os.ReadFile(config)
		if err != nil {
			t.Fatalf("init --agent kimi --global wrote no %s: %v", config, err)
		}
		if !strings.Contains(string(data), "agentlock hook kimi pre-edit") {
			t.Fatalf("%s has no agentlock hooks:\n%s", config, data)
		}
		if !strings.Contains(string(data), "[providers.mock]") {
			r.write(t, config, kimiConfig(r.server.URL()+"/v1")+string(data))
		}
		return []string{"-p", prompt, "--output-format", "stream-json"},
			[]string{"KIMI_DISABLE_TELEMETRY=1", "KIMI_CODE_NO_AUTO_UPDATE=1"}
	},
	edit: func(path, old, new string) ([]mock.Step, mock.Step) {
		return []mock.Step{{Tool: "Read", Args: map[string]any{"path": path}}},
			mock.Step{Tool: "Edit", Args: map[string]any{"path": path, "old_string": old, "new_string": new}}
	},
	// Not a bypass: the other edit tool, Write, with a path relative to
	// the session's folder, on the other held file.
	bypass: func(r *e2eRun) ([]mock.Step, mock.Step, string) {
		return nil, mock.Step{Tool: "Write", Args: map[string]any{"path": "held2.txt", "content": "overwritten\n"}},
			"Write of a held file (relative path)"
	},
	stale: &staleCase{
		read: func(path string) mock.Step { return mock.Step{Tool: "Read", Args: map[string]any{"path": path}} },
		write: func(path, content string) mock.Step {
			return mock.Step{Tool: "Write", Args: map[string]any{"path": path, "content": content}}
		},
	},
}

// kimiProgram is the program the test runs for Kimi Code: a script that
// puts a node >= 22.19 first in PATH (the system's may be older) and runs
// the installed CLI.
func kimiProgram(t *testing.T) string {
	t.Helper()
	return kimiCLI.onNode22(t)
}

// TestE2EKimi is TestE2E for Kimi Code, each run offline (loopback only):
// the direct run (hooks alone: a held file denied through Edit and through
// Write, a free edit locked by the CLI's session, whoami, session start
// and, since kimi -p never runs SessionEnd, the session finished once its
// agent process exited), the wrapper run, the git guard for writes
// through Bash, which no edit hook sees, the missing SessionEnd, and the
// stale case.
func TestE2EKimi(t *testing.T) {
	e2eOnly(t)
	prog := kimiProgram(t)
	t.Run("session", func(t *testing.T) { kimiAgent.isolate(t); e2eSession(t, kimiAgent, prog) })
	t.Run("wrapper", func(t *testing.T) { kimiAgent.isolate(t); e2eWrapper(t, kimiAgent, prog) })
	t.Run("git-guard", func(t *testing.T) { kimiAgent.isolate(t); e2eGitGuard(t, kimiAgent, prog) })
	t.Run("no-session-end", func(t *testing.T) { kimiAgent.isolate(t); e2eKimiNoSessionEnd(t, kimiAgent, prog) })
	t.Run("stale", func(t *testing.T) { kimiAgent.isolate(t); e2eStale(t, kimiAgent, prog) })
}

// e2eKimiNoSessionEnd shows the gap and what closes it: kimi -p exits
// without running SessionEnd, so right after the run the registry file
// still lists its session as working (no agentlock command ran since);
// the first agentlock command then finds its recorded agent process gone,
// and shows it Finished with its lock released.
func e2eKimiNoSessionEnd(t *testing.T, a agent, prog string) {
	r := newE2ERun(t, a)
	pre, edit := a.edit(filepath.Join(r.repo, "free.txt"), freeText, "edited\n")
	r.start(t, append(pre, edit))
	r.runCLI(t, a, prog, false)
	data, err := os.ReadFile(filepath.Join(r.repo, ".agent-registry", "registry.md"))
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for _, line := range strings.Split(string(data), "\n") {
		if strings.Contains(line, "kimi-session_") && strings.HasPrefix(line, "|") {
			row = line
		}
	}
	if !strings.Contains(row, "OnWorking") {
		t.Fatalf("right after kimi -p, the registry does not list its session as working (did SessionEnd run?): %q\n%s", row, data)
	}
	s := r.harnessSession(t, a) // the first command: agentlock show
	if s.Status != "Finished" {
		t.Errorf("the first command after kimi -p exited shows its session %s as %q, want Finished", s.ID, s.Status)
	}
	for _, l := range decodeLines[lock](t, "agentlock status", r.agentlock(t, "status", "--json")) {
		if l.Session == s.ID && l.State == "locked" {
			t.Errorf("the session of the exited kimi still holds %s", l.Path)
		}
	}
}
