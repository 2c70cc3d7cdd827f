//go:build linux

package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/agentlock/agentlock/e2e/mock"
	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// copilotModel is the model id of the runs with edit and create: an id that
// is not GPT-5's (GPT-5 ids get only apply_patch).
const copilotModel = "mock-model"

// copilotAgent drives Copilot CLI headless against the mock's Chat
// Completions, offline (COPILOT_OFFLINE=true: no GitHub login, telemetry
// or update check) and in a network namespace of its own, its repository
// trusted for the session with --trust-folder (else Copilot skips the
// repository's hooks without a word).
var copilotAgent = agent{
	cli:      copilotCLI,
	offline:  true,
	shellVar: "COPILOT_AGENT_SESSION_ID",
	configure: func(t *testing.T, r *e2eRun, prompt string) ([]string, []string) {
		model := copilotModel
		if r.model != "" {
			model = r.model
		}
		return []string{"-p", prompt, "--allow-all-tools", "--trust-folder"}, copilotEnv(t, r, model)
	},
	edit: func(path, old, new string) ([]mock.Step, mock.Step) {
		return nil, mock.Step{Tool: "edit", Args: map[string]any{"path": path, "old_str": old, "new_str": new}}
	},
	bypass: func(r *e2eRun) ([]mock.Step, mock.Step, string) {
		return nil, mock.Step{Tool: "create", Args: map[string]any{"path": filepath.Join(r.repo, "held2.txt"), "file_text": "overwritten\n"}},
			"create over a held file"
	},
	// view, then a whole-file rewrite with apply_patch's Delete File + Add
	// File, as Copilot's GPT-5 model ids do (create never overwrites).
	stale: &staleCase{
		read: func(path string) mock.Step { return mock.Step{Tool: "view", Args: map[string]any{"path": path}} },
		write: func(path, content string) mock.Step {
			return mock.Step{Tool: "apply_patch", Input: deleteAddFile(path, content)}
		},
		model: "gpt-5.5",
	},
}

// copilotEnv is the environment of a Copilot run with model against the
// mock. Copilot extracts its bundled package (about 200 MB) into
// $XDG_CACHE_HOME/copilot at its first start: one folder in the e2e cache
// serves every run.
func copilotEnv(t *testing.T, r *e2eRun, model string) []string {
	t.Helper()
	cache, err := cacheDir()
	if err != nil {
		t.Fatal(err)
	}
	return []string{"COPILOT_OFFLINE=true", "COPILOT_PROVIDER_BASE_URL=" + r.server.URL() + "/v1",
		"COPILOT_PROVIDER_TYPE=openai", "COPILOT_PROVIDER_API_KEY=sk-mock", "COPILOT_MODEL=" + model,
		"XDG_CACHE_HOME=" + filepath.Join(cache, copilotCLI.current(t).dir()+".xdg-cache")}
}

// e2eCopilotPatchTool is Copilot with a GPT-5 model id, which gets no edit
// or create, only apply_patch (the freeform tool: the patch is its raw
// input); see e2ePatchTool.
func e2eCopilotPatchTool(t *testing.T, a agent, prog string) {
	r := e2ePatchTool(t, a, prog, func(text string) mock.Step { return mock.Step{Tool: "apply_patch", Input: text} }, "edit", "create")
	copilotReadsInstructions(t, r)
}

// e2eCopilotSubagents is Copilot's task tool: each sub-agent's hooks carry
// a sessionId of its own, and no sessionStart or sessionEnd, yet its edits
// are its session's — they must neither refuse the session's own edits nor
// leave locks behind. The scripted model starts a sub-agent at every level
// (each new conversation begins at step 0) until Copilot's depth limit;
// every level then creates sub.txt and the main agent records the locks.
func e2eCopilotSubagents(t *testing.T, a agent, prog string) {
	r := newE2ERun(t, a)
	r.start(t, []mock.Step{
		{Tool: "task", Args: map[string]any{"name": "writer", "description": "write a file", "prompt": "create sub.txt",
			"agent_type": "general-purpose"}},
		{Tool: "create", Args: map[string]any{"path": filepath.Join(r.repo, "sub.txt"), "file_text": "from a sub-agent\n"}},
		shell("agentlock status --json > status.json 2>&1"),
	})
	r.runCLI(t, a, prog, false)
	conversations := 0
	for _, req := range r.server.Requests() {
		if req.Reply == "tool:0" {
			conversations++
		}
	}
	if conversations < 2 {
		t.Fatalf("no sub-agent ran (%d conversations began): the case tests nothing", conversations)
	}
	s := r.harnessSession(t, a)
	for i, text := range r.server.ToolResults() {
		if strings.Contains(text, "locked by session") {
			t.Errorf("tool result %d: a session's sub-agent and the session refused each other: %q", i, text)
		}
	}
	if l := r.locksIn(t, "status.json")["sub.txt"]; l.Session != s.ID || l.State != "locked" {
		t.Errorf("during the run, sub.txt's lock is %+v, want the session's %s (its sub-agents work for it)", l, s.ID)
	}
	r.finished(t, s.ID)
	for _, l := range decodeLines[lock](t, "agentlock status", r.agentlock(t, "status", "--json")) {
		if l.State == "locked" && l.Session != holder {
			t.Errorf("after the run, %s is still locked by %s", l.Path, l.Session)
		}
	}
}

// e2eCopilotTrust is Copilot's folder trust, run by run, as doctor tells
// it: without trust Copilot skips the repository's hooks without a word
// (the edit of a held file goes through: if that stops, Copilot changed and
// docs/integrations/copilot.md and doctor must follow) and doctor warns;
// once trustedFolders of ~/.copilot/config.json names the repository,
// doctor is satisfied and the same kind of edit is refused.
func e2eCopilotTrust(t *testing.T, a agent, prog string) {
	r := newE2ERun(t, a)
	untrusted := a
	untrusted.configure = func(t *testing.T, r *e2eRun, prompt string) ([]string, []string) {
		args, env := a.configure(t, r, prompt)
		return slices.DeleteFunc(args, func(s string) bool { return s == "--trust-folder" }), env
	}
	editOf := func(name string) []mock.Step {
		pre, edit := a.edit(filepath.Join(r.repo, name), heldText, "changed\n")
		return append(pre, edit)
	}
	trust := func() string {
		res := proctest.Run(t, filepath.Join(r.bin, "agentlock"), proctest.Cmd{Args: []string{"doctor", "--json"}, Env: r.env(), Dir: r.repo})
		for _, c := range decodeLines[struct{ Name, Status, Detail string }](t, "agentlock doctor", res.Stdout) {
			if c.Name == "copilot-folder-trust" {
				t.Logf("doctor: %s: %s", c.Status, c.Detail)
				return c.Status
			}
		}
		t.Fatalf("agentlock doctor has no copilot-folder-trust check: %v", res)
		return ""
	}

	r.start(t, editOf("held.txt"))
	r.runCLI(t, untrusted, prog, false)
	r.fileIs(t, "held.txt", "changed\n", "untrusted folder: Copilot "+copilotCLI.current(t).version+" skips the hooks, so the edit of a held file goes through")
	if got := trust(); got != "warn" {
		t.Errorf("doctor in an untrusted folder: copilot-folder-trust is %q, want warn", got)
	}

	r.write(t, filepath.Join(r.home, ".copilot", "config.json"), mustJSON(map[string]any{"trustedFolders": []string{r.repo}}))
	if got := trust(); got != "ok" {
		t.Errorf("doctor with the repository in trustedFolders: copilot-folder-trust is %q, want ok", got)
	}
	r.start(t, editOf("held2.txt"))
	r.runCLI(t, untrusted, prog, false)
	r.fileIs(t, "held2.txt", heldText, "trusted folder: edit of a held file")
	r.deniedCleanly(t, 0, "trusted folder: edit of a held file")
}

// copilotReadsInstructions checks that the instructions init wrote reach the model:
// Copilot reads .github/copilot-instructions.md into its prompt.
func copilotReadsInstructions(t *testing.T, r *e2eRun) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(r.repo, ".github", "copilot-instructions.md")); err != nil {
		t.Fatalf("init wrote no .github/copilot-instructions.md: %v", err)
	}
	for _, req := range r.server.Requests() {
		if strings.Contains(req.Body, "agentlock: coordinate with the other agents in this repository") {
			return
		}
	}
	t.Errorf("no request to the model holds the instructions of .github/copilot-instructions.md")
}

// Copilot CLI runs its hooks and the model's commands under its own
// process; it exports COPILOT_AGENT_SESSION_ID (the payload's sessionId) to
// the model's commands, and no session variable to its hooks.
func TestCopilotHarnessAncestry(t *testing.T) {
	bin := copilotCLI.install(t)
	offline(t)
	r := newRun(t)
	hooks := map[string]any{}
	for event, label := range map[string]string{"sessionStart": "SessionStart", "preToolUse": "PreToolUse",
		"postToolUse": "PostToolUse", "sessionEnd": "SessionEnd"} {
		hooks[event] = []any{map[string]any{"type": "command", "bash": r.hook(label), "timeoutSec": 30}}
	}
	r.write(t, filepath.Join(r.repo, ".github", "hooks", "dump.json"), mustJSON(map[string]any{"version": 1, "hooks": hooks}))
	e := &e2eRun{server: r.server}
	res := proctest.Run(t, bin, proctest.Cmd{
		// The recording program lives outside the repository: Copilot asks
		// before a command touches a path outside it, unless told not to.
		Args: []string{"-p", "run the scripted commands", "--allow-all-tools", "--allow-all-paths", "--trust-folder"},
		Env:  proctest.Env(r.home, r.tmp, copilotEnv(t, e, copilotModel)...),
		Dir:  r.repo,
	})
	f := r.collect(t, res)
	f.shellsReachHarness(t)
	envIs(t, "hook", f.hooks, "COPILOT_AGENT_SESSION_ID", "")
	envIs(t, "command", f.shells, "COPILOT_AGENT_SESSION_ID", f.sessionID)
	envIs(t, "hook", f.hooks, "COPILOT_CLI", "1")
}
