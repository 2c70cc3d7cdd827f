//go:build linux

package e2e

import (
	"fmt"
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
		model:     "gpt-5.5",
		toldEarly: true,
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

// copilotDepth is how deep e2eCopilotSubagents nests sub-agents: below
// Copilot 1.0.102's own limit (its model, told to start a sub-agent at
// every level, got four levels deep).
const copilotDepth = 3

// e2eCopilotSubagents is Copilot's task tool nested: each sub-agent's hooks
// carry a sessionId of its own (its agentId) and no sessionStart or
// sessionEnd, and each is a child session of the session, at every depth
// (`copilot-<id>/<agentId>`, parent the session). The scripted session
// starts a sub-agent (level 1), which starts one (level 2), and so on to
// copilotDepth; each level, once its own sub-agent returned, creates a
// file of its own (sub-<level>.txt) and records `agentlock status`, and
// the session then creates main.txt. A session's own edits and its
// sub-agents' edits of different files are not refused, each file is
// locked during the run by the one who created it, and afterwards every
// sub-agent is Finished with the session and nothing stays locked.
func e2eCopilotSubagents(t *testing.T, a agent, prog string) {
	r := newE2ERun(t, a)
	level := func(n int) string { return fmt.Sprintf("e2e-nested-level-%d", n) }
	create := func(name string) mock.Step {
		return mock.Step{Tool: "create", Args: map[string]any{"path": filepath.Join(r.repo, name), "file_text": "from " + name + "\n"}}
	}
	steps := func(n int) []mock.Step {
		var steps []mock.Step
		if n < copilotDepth {
			steps = append(steps, copilotSpawn(level(n+1)))
		}
		name := "main"
		if n > 0 {
			name = fmt.Sprintf("sub-%d", n)
		}
		return append(steps, create(name+".txt"), shell("agentlock status --json > status-"+name+".json 2>&1"))
	}
	var branches []mock.Branch
	for n := 1; n <= copilotDepth; n++ {
		branches = append(branches, mock.Branch{Marker: level(n), Steps: steps(n), Final: level(n) + " done."})
	}
	r.startScript(t, mock.Script{Steps: steps(0), Final: "Done.", Branches: branches})
	r.runCLI(t, a, prog, false)

	results := map[string][]string{"the session": r.server.ToolResults()}
	for n := 1; n <= copilotDepth; n++ {
		if results[level(n)] = r.server.BranchToolResults(level(n)); len(results[level(n)]) == 0 {
			t.Fatalf("the sub-agent of level %d ran no step (Copilot's depth limit?); requests: %d", n, len(r.server.Requests()))
		}
	}
	top, children := r.family(t, a)
	if len(children) != copilotDepth {
		t.Errorf("the run registered %d sub-agent sessions under %s, want %d (one per level): %+v", len(children), top.ID, copilotDepth, children)
	}
	for who, texts := range results {
		for i, text := range texts {
			if strings.Contains(text, "locked by") {
				t.Errorf("%s's tool result %d: a session and its sub-agents refused each other: %q", who, i, text)
			}
		}
	}
	r.fileIs(t, "main.txt", "from main.txt\n", "the session's create")
	if l := r.locksIn(t, "status-main.json")["main.txt"]; l.Session != top.ID || l.State != "locked" {
		t.Errorf("during the run, main.txt's lock is %+v, want the session's %s", l, top.ID)
	}
	owners := map[string]bool{}
	for n := 1; n <= copilotDepth; n++ {
		name := fmt.Sprintf("sub-%d", n)
		r.fileIs(t, name+".txt", "from "+name+".txt\n", "the create of the sub-agent of level "+fmt.Sprint(n))
		l := r.locksIn(t, "status-"+name+".json")[name+".txt"]
		if l.State != "locked" || !strings.HasPrefix(l.Session, top.ID+"/") || owners[l.Session] {
			t.Errorf("during the run, %s.txt's lock is %+v, want held by the sub-agent of level %d, a child of %s of its own", name, l, n, top.ID)
		}
		owners[l.Session] = true
	}
	r.familyFinished(t, top, children)
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
