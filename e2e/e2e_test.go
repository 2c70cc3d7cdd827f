//go:build linux

package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentlock/agentlock/e2e/mock"
	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// The end-to-end suite: each agent CLI, pinned and installed from npm,
// driven against the scripted mock model in a throwaway repository set up
// with the real `agentlock init --agent <name>`, with the agentlock built
// from this tree on PATH. Run it with
//
//	AGENTLOCK_E2E=1 go test -v ./e2e -run TestE2E
//
// A session that another agent ("other-1") already works in holds
// held.txt and held2.txt; the scripted model then
//
//   - runs `agentlock whoami` through its shell tool,
//   - edits held.txt (denied: the file stays byte-identical, and what the
//     model reads names other-1 and nothing misleading),
//   - edits free.txt (goes through, under a lock of the harness session),
//   - runs `agentlock status` and `agentlock acquire extra.txt` through its
//     shell (the locks of the session, seen during the run),
//   - and tries the CLI's known bypass of the edit gate on held2.txt, also
//     held by other-1.
//
// Afterwards the test checks that session start registered the harness
// session and told the model its id, that the shell resolved the same id
// as the hooks, and that session end finished the session and released its
// locks. A second run goes through scripts/agentlock-<agent>.

// holder is the session that holds held.txt and held2.txt.
const holder = "other-1"

// Contents of the files before the run.
const (
	heldText = "held by other-1: do not touch\n"
	freeText = "free to edit\n"
)

// misleading are texts a denial must not show the model: the fallback of
// a generated hook command, or the hook command itself.
var misleading = []string{"is not on PATH", "command -v", "sh -c", "agentlock hook "}

// agent is how the suite drives one CLI.
type agent struct {
	cli agentCLI
	// configure writes the user-level configuration of r (model server,
	// trust) and returns the CLI's arguments and extra environment for a
	// non-interactive run of prompt.
	configure func(t *testing.T, r *e2eRun, prompt string) (args, env []string)
	// edit is the step that replaces old by new in the file at path
	// (absolute); pre are the steps it needs first (Claude reads a file
	// before editing it).
	edit func(path, old, new string) (pre []mock.Step, edit mock.Step)
	// bypass is the step of the CLI's known bypass of the edit gate,
	// aimed at held2.txt, and what it is.
	bypass func(r *e2eRun) (pre []mock.Step, edit mock.Step, what string)
	// offline runs the CLI, and the mock, in a network namespace of their
	// own (see offline).
	offline bool
	// shellVar is the variable the model's shell has its session id from,
	// as whoami names it, when checked.
	shellVar string
	// initArgs are extra arguments of `agentlock init --agent <name>`
	// (Kimi's hooks are user-level: --global).
	initArgs []string
	// timeout bounds one run of the CLI; zero means proctest.Timeout.
	timeout time.Duration
	// stale is the CLI's stale case (issue 34: e2eStale), nil for none.
	stale *staleCase
}

// isolate gives the calling test the network of a's runs.
func (a agent) isolate(t *testing.T) {
	t.Helper()
	if a.offline {
		offline(t)
	}
}

func shell(cmd string) mock.Step { return mock.Step{Shell: cmd} }

// applyPatch is a shell-routed apply_patch: Codex applies it itself, and
// models outside its catalog edit only this way.
func applyPatch(path, old, new string) string {
	return "apply_patch <<'EOF'\n" + patch(path, old, new) + "\nEOF"
}

// patch is Codex's patch format for replacing the one line old by new.
func patch(path, old, new string) string {
	return "*** Begin Patch\n*** Update File: " + path + "\n@@\n-" +
		strings.TrimSuffix(old, "\n") + "\n+" + strings.TrimSuffix(new, "\n") + "\n*** End Patch"
}

var agents = []agent{
	{
		cli:     claudeCLI,
		offline: true,
		configure: func(t *testing.T, r *e2eRun, prompt string) ([]string, []string) {
			// Project settings and permissions apply in a trusted folder.
			r.write(t, filepath.Join(r.home, ".claude.json"), mustJSON(map[string]any{
				"hasCompletedOnboarding": true,
				"projects":               map[string]any{r.repo: map[string]any{"hasTrustDialogAccepted": true}}}))
			return []string{"-p", prompt, "--output-format", "json",
					"--permission-mode", "acceptEdits", "--allowedTools", "Bash"},
				[]string{"ANTHROPIC_BASE_URL=" + r.server.URL(), "ANTHROPIC_API_KEY=sk-mock",
					"DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1"}
		},
		edit: func(path, old, new string) ([]mock.Step, mock.Step) {
			return []mock.Step{{Tool: "Read", Args: map[string]any{"file_path": path}}},
				mock.Step{Tool: "Edit", Args: map[string]any{"file_path": path, "old_string": old, "new_string": new}}
		},
		// Claude's bypass is not of the gate but of the denial: its text
		// (checked for every denial) must not show the hook's command.
		bypass: func(r *e2eRun) ([]mock.Step, mock.Step, string) {
			path := filepath.Join(r.repo, "held2.txt")
			return []mock.Step{{Tool: "Read", Args: map[string]any{"file_path": path}}},
				mock.Step{Tool: "Write", Args: map[string]any{"file_path": path, "content": "overwritten\n"}},
				"Write of a held file"
		},
		// Claude Code refuses a Write of a file changed since its Read
		// itself, before any hook.
		stale: &staleCase{
			read: func(path string) mock.Step { return mock.Step{Tool: "Read", Args: map[string]any{"file_path": path}} },
			write: func(path, content string) mock.Step {
				return mock.Step{Tool: "Write", Args: map[string]any{"file_path": path, "content": content}}
			},
			cliGuard:  "modified since read",
			toldEarly: true,
		},
	},
	{
		cli:     codexCLI,
		offline: true,
		configure: func(t *testing.T, r *e2eRun, prompt string) ([]string, []string) {
			codexHome := filepath.Join(r.home, ".codex")
			// "mock-model" is outside Codex's model catalog: Codex offers it
			// no apply_patch tool, only exec_command, and tells it to patch
			// through the shell. The project is trusted; its hooks run only
			// with --dangerously-bypass-hook-trust (codex exec skips
			// untrusted hooks silently).
			r.write(t, filepath.Join(codexHome, "config.toml"), codexConfig(r.server.URL()+"/v1", r.repo))
			// The model's commands run in a login shell, whose /etc/profile
			// resets PATH (for root): put agentlock back as a user would.
			r.write(t, filepath.Join(r.home, ".bash_profile"), "export PATH="+r.bin+":$PATH\n")
			return []string{"exec", "--json", "--skip-git-repo-check", "--sandbox", "workspace-write",
					"--dangerously-bypass-hook-trust", prompt},
				[]string{"CODEX_HOME=" + codexHome, "MOCK_API_KEY=sk-mock"}
		},
		edit: func(path, old, new string) ([]mock.Step, mock.Step) {
			return nil, shell(applyPatch(path, old, new))
		},
		bypass: func(r *e2eRun) ([]mock.Step, mock.Step, string) {
			return nil, shell(applyPatch("held2.txt", heldText, "overwritten\n")), "shell-routed apply_patch heredoc (relative path)"
		},
		// Codex reads through its shell, and writes a whole file with
		// apply_patch's Add File over the existing one.
		stale: &staleCase{
			read: func(path string) mock.Step { return shell("cat " + path) },
			write: func(path, content string) mock.Step {
				return shell("apply_patch <<'EOF'\n" + addFile(path, content) + "\nEOF")
			},
		},
	},
	{
		cli:     geminiCLI,
		offline: true,
		configure: func(t *testing.T, r *e2eRun, prompt string) ([]string, []string) {
			r.write(t, filepath.Join(r.home, ".gemini", "settings.json"), `{"security":{"auth":{"selectedType":"gemini-api-key"}}}`)
			// Folder trust: in an untrusted folder Gemini exits 55; in a
			// trusted one it runs the project's hooks.
			r.write(t, filepath.Join(r.home, ".gemini", "trustedFolders.json"), mustJSON(map[string]string{r.repo: "TRUST_FOLDER"}))
			return []string{"-m", "gemini-2.5-flash", "-p", prompt, "--yolo", "--output-format", "json"},
				[]string{"GOOGLE_GEMINI_BASE_URL=" + r.server.URL(), "GEMINI_API_KEY=mock-key"}
		},
		edit: func(path, old, new string) ([]mock.Step, mock.Step) {
			return nil, mock.Step{Tool: "replace", Args: map[string]any{"file_path": path, "old_string": old, "new_string": new,
				"instruction": "apply the scripted edit"}}
		},
		bypass: func(r *e2eRun) ([]mock.Step, mock.Step, string) {
			return nil, mock.Step{Tool: "write_file", Args: map[string]any{"file_path": "@held2.txt", "content": "overwritten\n"}},
				"write_file of @held2.txt (Gemini strips the @)"
		},
		stale: &staleCase{
			read: func(path string) mock.Step {
				return mock.Step{Tool: "read_file", Args: map[string]any{"file_path": path}}
			},
			write: func(path, content string) mock.Step {
				return mock.Step{Tool: "write_file", Args: map[string]any{"file_path": path, "content": content}}
			},
			toldEarly: true,
		},
	},
	copilotAgent,
}

// e2eRun is one session of a CLI in a throwaway repository.
type e2eRun struct {
	home, tmp, repo, bin string
	// model is the model id a case asks for, where the agent's configure
	// reads it; empty for the agent's usual one.
	model  string
	server *mock.Server
	steps  []mock.Step
	// indexes into steps of the interesting calls
	heldEdit, freeEdit, bypassEdit int
}

func (r *e2eRun) write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// agentlockEnv is the environment of agentlock run by the test itself.
func (r *e2eRun) env(extra ...string) []string {
	return proctest.Env(r.home, r.tmp, append([]string{"PATH=" + r.bin + ":" + systemPath}, extra...)...)
}

// systemPath is the PATH of the CLIs after agentlock's folder: node and
// the usual tools.
const systemPath = "/usr/local/bin:/usr/bin:/bin"

// agentlock runs agentlock in the repository and fails the test unless it
// exits 0.
func (r *e2eRun) agentlock(t *testing.T, args ...string) string {
	t.Helper()
	res := proctest.Run(t, filepath.Join(r.bin, "agentlock"), proctest.Cmd{Args: args, Env: r.env(), Dir: r.repo})
	if res.Code != 0 {
		t.Fatalf("agentlock %v: %v", args, res)
	}
	return res.Stdout
}

// newE2ERun sets up the repository: git, `agentlock init --agent <name>`,
// the files, and other-1's locks on held.txt and held2.txt.
func newE2ERun(t *testing.T, a agent) *e2eRun {
	t.Helper()
	root := caseRoot(t)
	r := &e2eRun{home: filepath.Join(root, "home"), tmp: filepath.Join(root, "tmp"), repo: filepath.Join(root, "repo"), bin: agentlockDir}
	for _, d := range []string{r.home, r.tmp, r.repo} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "-C", r.repo, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	r.agentlock(t, append([]string{"init", "--agent", a.cli.name}, a.initArgs...)...)
	for name, text := range map[string]string{"held.txt": heldText, "held2.txt": heldText, "free.txt": freeText} {
		r.write(t, filepath.Join(r.repo, name), text)
	}
	r.agentlock(t, "register", holder, "test", "none", "holds held.txt")
	r.agentlock(t, "acquire", "held.txt", "held2.txt", "--session", holder)
	return r
}

// start serves steps (and records where the edits are).
func (r *e2eRun) start(t *testing.T, steps []mock.Step) {
	t.Helper()
	r.startScript(t, mock.Script{Steps: steps, Final: "Done."})
}

// startScript serves script (a script with branches: sub-agents).
func (r *e2eRun) startScript(t *testing.T, script mock.Script) {
	t.Helper()
	var err error
	r.steps = script.Steps
	r.server, err = mock.Start(script)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.server.Close() })
}

// runCLI runs the CLI (or, with wrapper, scripts/agentlock-<agent> around
// it) once in the repository.
func (r *e2eRun) runCLI(t *testing.T, a agent, prog string, wrapper bool) proctest.Result {
	t.Helper()
	args, env := a.configure(t, r, "do the scripted work")
	env = append(env, "PATH="+r.bin+":"+systemPath)
	bin := prog
	if wrapper {
		bin = filepath.Join(r.repo, "scripts", "agentlock-"+a.cli.name)
		env = append(env, "AGENTLOCK_AGENT_COMMAND="+prog)
	}
	if a.timeout > proctest.Timeout {
		// A CLI this slow outlives the lock timeout (120 s) before its
		// first model call: the holder is alive and renews, as a real one
		// would, or its locks would expire under the test.
		defer r.holderRenews(t)()
	}
	res := proctest.Run(t, bin, proctest.Cmd{Args: args, Env: proctest.Env(r.home, r.tmp, env...), Dir: r.repo, Limit: a.timeout})
	if res.Code != 0 {
		t.Fatalf("%s failed: %v\nmodel was told: %q", a.cli.name, res, r.server.ToolResults())
	}
	return res
}

// holderRenews renews the holder's locks every 20 s until the returned
// function is called.
func (r *e2eRun) holderRenews(t *testing.T) (stop func()) {
	t.Helper()
	done, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Second):
			}
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			cmd := exec.CommandContext(ctx, filepath.Join(r.bin, "agentlock"), "heartbeat", "held.txt", "held2.txt", "--session", holder)
			cmd.Env, cmd.Dir = r.env(), r.repo
			out, err := cmd.CombinedOutput()
			cancel()
			if err != nil {
				t.Errorf("%s's heartbeat during the run: %v: %s", holder, err, out)
			}
		}
	}()
	return func() { close(done); <-stopped }
}

// session is one registry entry of `agentlock show --json`.
type session struct {
	ID     string `json:"session_id"`
	Status string `json:"status"`
	// Parent is a sub-agent's session (a child session's).
	Parent string `json:"parent"`
}

// lock is one lock of `agentlock status --json`.
type lock struct {
	Path    string `json:"path"`
	State   string `json:"state"`
	Session string `json:"session_id"`
}

func decodeLines[T any](t *testing.T, what, out string) []T {
	t.Helper()
	var all []T
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var v T
		if err := dec.Decode(&v); err != nil {
			t.Fatalf("%s: not JSON lines: %v\n%s", what, err, out)
		}
		all = append(all, v)
	}
	return all
}

// harnessSession is the one session, other than the holder's, that the run
// registered: one identity for hooks and shell, and no sub-agent.
func (r *e2eRun) harnessSession(t *testing.T, a agent) session {
	t.Helper()
	top, children := r.family(t, a)
	if len(children) > 0 {
		t.Fatalf("the run registered sub-agent sessions %+v under %s, want none (one identity for hooks and shell)", children, top.ID)
	}
	return top
}

// family is the one top-level session, other than the holder's, that the
// run registered (one identity for hooks and shell), and the sessions of
// its sub-agents: every other session the run registered, each a child of
// it (`<top>/<sub-agent id>`, parent the top one).
func (r *e2eRun) family(t *testing.T, a agent) (top session, children []session) {
	t.Helper()
	var tops []session
	all := decodeLines[session](t, "agentlock show", r.agentlock(t, "show", "--json"))
	for _, s := range all {
		if s.ID != holder && s.Parent == "" {
			tops = append(tops, s)
		}
	}
	if len(tops) != 1 {
		t.Fatalf("the run registered %d top-level sessions, want 1 (one identity for hooks and shell): %+v", len(tops), all)
	}
	top = tops[0]
	if !strings.HasPrefix(top.ID, a.cli.name+"-") {
		t.Errorf("session id %q does not name the agent %s", top.ID, a.cli.name)
	}
	for _, s := range all {
		if s.ID == holder || s.ID == top.ID {
			continue
		}
		if s.Parent != top.ID || !strings.HasPrefix(s.ID, top.ID+"/") {
			t.Errorf("session %s (parent %q) is not a sub-agent of the run's session %s", s.ID, s.Parent, top.ID)
		}
		children = append(children, s)
	}
	return top, children
}

// locksIn reads a file the model wrote with `agentlock status --json`.
func (r *e2eRun) locksIn(t *testing.T, name string) map[string]lock {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(r.repo, name))
	if err != nil {
		t.Fatalf("the model's agentlock status left no %s: %v", name, err)
	}
	locks := map[string]lock{}
	for _, l := range decodeLines[lock](t, name, string(data)) {
		locks[filepath.Base(l.Path)] = l
	}
	return locks
}

// whoamiIn reads a file the model wrote with `agentlock whoami --json`:
// the session id.
func (r *e2eRun) whoamiIn(t *testing.T, name string) string {
	t.Helper()
	id, _ := r.whoamiSource(t, name)
	return id
}

// whoamiSource reads a file the model wrote with `agentlock whoami
// --json`: the session id and where it came from.
func (r *e2eRun) whoamiSource(t *testing.T, name string) (id, source string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(r.repo, name))
	if err != nil {
		t.Fatalf("the model's agentlock whoami left no %s: %v", name, err)
	}
	var w struct {
		Session string `json:"session_id"`
		Source  string `json:"source"`
	}
	if err := json.Unmarshal(bytes.TrimSpace(data), &w); err != nil || w.Session == "" {
		t.Fatalf("the model's agentlock whoami printed %q (%v)", data, err)
	}
	return w.Session, w.Source
}

// fileIs checks a file's bytes.
func (r *e2eRun) fileIs(t *testing.T, name, want, why string) {
	t.Helper()
	got, err := os.ReadFile(filepath.Join(r.repo, name))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s: %s is %q, want %q", why, name, got, want)
	}
}

// told returns what the model read after step i.
func (r *e2eRun) told(t *testing.T, i int) string {
	t.Helper()
	res := r.server.ToolResults()
	if i >= len(res) {
		t.Fatalf("the model got %d tool results, none for step %d (%+v): %q", len(res), i, r.steps[i], res)
	}
	return res[i]
}

// deniedCleanly checks that what the model read after step i is a denial
// naming the holder and nothing misleading.
func (r *e2eRun) deniedCleanly(t *testing.T, i int, what string) {
	t.Helper()
	text := r.told(t, i)
	t.Logf("%s: the model read %q", what, text)
	if !strings.Contains(text, holder) {
		t.Errorf("%s: the model was not told the holder %s: %q", what, holder, text)
	}
	var found []string
	for _, m := range misleading {
		if strings.Contains(text, m) {
			found = append(found, m)
		}
	}
	if len(found) > 0 {
		t.Errorf("%s: the model read %q: %q", what, found, text)
	}
}

// finished waits (a few seconds at most: some CLIs do not await their
// session-end hook) until session id is Finished and owns no lock.
func (r *e2eRun) finished(t *testing.T, id string) {
	t.Helper()
	var sessions, locks string
	for range 50 {
		sessions, locks = r.agentlock(t, "show", "--json"), r.agentlock(t, "status", "--json")
		done := false
		for _, s := range decodeLines[session](t, "agentlock show", sessions) {
			if s.ID == id && s.Status == "Finished" {
				done = true
			}
		}
		for _, l := range decodeLines[lock](t, "agentlock status", locks) {
			if l.Session == id && l.State == "locked" {
				done = false
			}
		}
		if done {
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Errorf("session end: %s is not Finished without locks:\n%s\n%s", id, sessions, locks)
}

func TestE2E(t *testing.T) {
	e2eOnly(t)
	for _, a := range agents {
		t.Run(a.cli.name, func(t *testing.T) {
			prog := a.cli.install(t)
			t.Run("session", func(t *testing.T) { a.isolate(t); e2eSession(t, a, prog) })
			t.Run("wrapper", func(t *testing.T) { a.isolate(t); e2eWrapper(t, a, prog) })
			if a.cli.name == "codex" {
				t.Run("apply_patch-tool", func(t *testing.T) { a.isolate(t); e2eCodexPatchTool(t, a, prog) })
				t.Run("subagents", func(t *testing.T) { a.isolate(t); e2eSubagentRace(t, codexMultiAgent(a), prog, codexSubagents) })
			}
			if a.cli.name == "copilot" {
				t.Run("apply_patch-tool", func(t *testing.T) { a.isolate(t); e2eCopilotPatchTool(t, a, prog) })
				t.Run("subagents", func(t *testing.T) { a.isolate(t); e2eCopilotSubagents(t, a, prog) })
				t.Run("subagent-race", func(t *testing.T) { a.isolate(t); e2eSubagentRace(t, a, prog, copilotSubagents) })
				t.Run("trust", func(t *testing.T) { a.isolate(t); e2eCopilotTrust(t, a, prog) })
			}
			if a.cli.name == "claude" {
				t.Run("git-guard", func(t *testing.T) { a.isolate(t); e2eGitGuard(t, a, prog) })
				t.Run("subagents", func(t *testing.T) { a.isolate(t); e2eSubagentRace(t, a, prog, claudeSubagents) })
			}
			if a.stale != nil {
				t.Run("stale", func(t *testing.T) { a.isolate(t); e2eStale(t, a, prog) })
			}
		})
	}
}

// e2eSession is the direct run: hooks alone.
func e2eSession(t *testing.T, a agent, prog string) {
	r := newE2ERun(t, a)
	steps := r.edits(a, []mock.Step{shell("agentlock whoami --json > whoami.json 2>&1")})
	steps = append(steps, shell("agentlock status --json > status.json 2>&1; agentlock acquire extra.txt > acquire.txt 2>&1"))
	pre, bypass, bypassWhat := a.bypass(r)
	steps = append(append(steps, pre...), bypass)
	r.bypassEdit = len(steps) - 1
	r.start(t, steps)

	r.runCLI(t, a, prog, false)
	s := r.harnessSession(t, a)

	// The edit of a held file: denied, file untouched, a clean reason.
	r.fileIs(t, "held.txt", heldText, "edit of a held file")
	r.deniedCleanly(t, r.heldEdit, "edit of a held file")
	// The bypass.
	r.fileIs(t, "held2.txt", heldText, bypassWhat)
	r.deniedCleanly(t, r.bypassEdit, bypassWhat)

	// The free file: edited, under the session's lock during the run.
	r.fileIs(t, "free.txt", "edited\n", "edit of a free file")
	if text := r.told(t, r.freeEdit); strings.Contains(text, "locked by") {
		t.Errorf("edit of a free file: the model read %q", text)
	}
	locks := r.locksIn(t, "status.json")
	if l := locks["free.txt"]; l.Session != s.ID || l.State != "locked" {
		t.Errorf("during the run, free.txt's lock is %+v, want locked by the session %s", l, s.ID)
	}
	if l := locks["held.txt"]; l.Session != holder {
		t.Errorf("during the run, held.txt's lock is %+v, want %s's", l, holder)
	}

	// The shell resolves the hooks' identity (from the harness's variable,
	// where it exports one to the shell).
	if got, source := r.whoamiSource(t, "whoami.json"); got != s.ID {
		t.Errorf("agentlock whoami in the model's shell: %q, the hooks' session: %q", got, s.ID)
	} else if a.shellVar != "" && source != a.shellVar {
		t.Errorf("agentlock whoami in the model's shell found %s from %q, want from %s", got, source, a.shellVar)
	}
	if data, err := os.ReadFile(filepath.Join(r.repo, "acquire.txt")); err != nil || !strings.Contains(string(data), "session "+s.ID) {
		t.Errorf("agentlock acquire in the model's shell printed %q (%v), want the lock taken for %s", data, err, s.ID)
	}

	// Session start told the model its id before its first step.
	told := false
	for _, req := range r.server.Requests() {
		if i := strings.Index(req.Body, s.ID); req.Reply == "tool:0" && i >= 0 {
			told = true
			t.Logf("session start: the model read %q", req.Body[max(0, i-200):min(len(req.Body), i+len(s.ID)+50)])
			break
		}
	}
	if !told {
		t.Errorf("session start: no request before the first step tells the model its id %s", s.ID)
	}
	// Gemini HTML-escapes '<' and '>' in a hook's context: the model would
	// read "&lt;path&gt;".
	if ctx, ok := escapedContext(r.server.Requests()); ok {
		t.Errorf("session start: the model read an HTML-escaped context: %q", ctx)
	}

	// Session end: Finished, every lock released; the holder's stay.
	r.finished(t, s.ID)
	after := decodeLines[lock](t, "agentlock status", r.agentlock(t, "status", "--json"))
	held2 := slices.IndexFunc(after, func(l lock) bool { return filepath.Base(l.Path) == "held.txt" && l.Session == holder })
	if held2 < 0 {
		t.Errorf("after the run, %s no longer holds held.txt: %+v", holder, after)
	}
}

// edits appends to steps the CLI's edit of held.txt and then of free.txt
// (with the steps each needs first), and records where they are.
func (r *e2eRun) edits(a agent, steps []mock.Step) []mock.Step {
	pre, edit := a.edit(filepath.Join(r.repo, "held.txt"), heldText, "changed\n")
	steps = append(append(steps, pre...), edit)
	r.heldEdit = len(steps) - 1
	pre, edit = a.edit(filepath.Join(r.repo, "free.txt"), freeText, "edited\n")
	steps = append(append(steps, pre...), edit)
	r.freeEdit = len(steps) - 1
	return steps
}

// e2eWrapper is the run through scripts/agentlock-<agent>: the wrapper's
// session is the one the hooks and the shell use.
func e2eWrapper(t *testing.T, a agent, prog string) {
	r := newE2ERun(t, a)
	free := filepath.Join(r.repo, "free.txt")
	steps := []mock.Step{shell("agentlock whoami --json > whoami.json 2>&1")}
	pre, edit := a.edit(free, freeText, "edited\n")
	steps = append(append(steps, pre...), edit)
	steps = append(steps, shell("agentlock status --json > status.json 2>&1"))
	r.start(t, steps)

	r.runCLI(t, a, prog, true)
	s := r.harnessSession(t, a)
	if got := r.whoamiIn(t, "whoami.json"); got != s.ID {
		t.Errorf("agentlock whoami in the model's shell: %q, the wrapper's session: %q", got, s.ID)
	}
	r.fileIs(t, "free.txt", "edited\n", "edit of a free file")
	r.freeLockedThenFinished(t, s.ID)
}

// codexMultiAgent is a with Codex's sub-agent tools on: [features]
// multi_agent in config.toml (the multi_agent_v1 namespace: spawn_agent,
// wait_agent, ...).
func codexMultiAgent(a agent) agent {
	configure := a.configure
	a.configure = func(t *testing.T, r *e2eRun, prompt string) ([]string, []string) {
		args, env := configure(t, r, prompt)
		config := filepath.Join(r.home, ".codex", "config.toml")
		data, err := os.ReadFile(config)
		if err != nil {
			t.Fatal(err)
		}
		r.write(t, config, string(data)+"[features]\nmulti_agent = true\n")
		return args, env
	}
	return a
}

// e2eCodexPatchTool is Codex with a model of its catalog, which gets the
// freeform apply_patch tool (the edit tool the hook has always gated).
func e2eCodexPatchTool(t *testing.T, a agent, prog string) {
	r := newE2ERun(t, a)
	held, free := filepath.Join(r.repo, "held.txt"), filepath.Join(r.repo, "free.txt")
	r.start(t, []mock.Step{
		{Tool: "apply_patch", Input: patch(held, heldText, "changed\n")},
		{Tool: "apply_patch", Input: patch(free, freeText, "edited\n")},
		shell("agentlock status --json > status.json 2>&1"),
	})
	r.heldEdit, r.freeEdit = 0, 1
	args, env := a.configure(t, r, "do the scripted work")
	config := filepath.Join(r.home, ".codex", "config.toml")
	data, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	// gpt-5.5 is in Codex 0.171's bundled catalog.
	r.write(t, config, strings.Replace(string(data), `model = "mock-model"`, `model = "gpt-5.5"`, 1))
	r.patchToolRun(t, a, prog, args, env, "apply_patch")
}

// patchToolRun runs the CLI once with args and env (a patch tool's
// model), after steps 0 and 1 patched held.txt and free.txt with tool: the
// patch of the held file is denied, the file byte-identical; the free one
// is patched under the session's lock, which ends Finished.
func (r *e2eRun) patchToolRun(t *testing.T, a agent, prog string, args, env []string, tool string) {
	t.Helper()
	res := proctest.Run(t, prog, proctest.Cmd{Args: args, Env: proctest.Env(r.home, r.tmp, append(env, "PATH="+r.bin+":"+systemPath)...), Dir: r.repo})
	if res.Code != 0 {
		t.Fatalf("%s failed: %v\nmodel was told: %q", a.cli.name, res, r.server.ToolResults())
	}
	if !r.offered(tool) {
		t.Fatalf("%s offered the model no %s tool: the case tests nothing; requests: %d", a.cli.name, tool, len(r.server.Requests()))
	}
	s := r.harnessSession(t, a)
	r.fileIs(t, "held.txt", heldText, tool+" of a held file")
	r.deniedCleanly(t, r.heldEdit, tool+" of a held file")
	r.fileIs(t, "free.txt", "edited\n", tool+" of a free file")
	r.freeLockedThenFinished(t, s.ID)
}

// e2ePatchTool is a CLI with the model id gpt-5.5, which gets apply_patch
// (step makes its call of a patch text) and none of the tools others: a
// patch of a free and a held file (relative paths) is refused whole
// (neither changes), a patch of the free file alone goes through under
// the session's lock.
func e2ePatchTool(t *testing.T, a agent, prog string, step func(patch string) mock.Step, others ...string) *e2eRun {
	t.Helper()
	r := newE2ERun(t, a)
	r.start(t, []mock.Step{
		step(strings.TrimSuffix(patch("free.txt", freeText, "edited\n"), "\n*** End Patch") + "\n" +
			strings.TrimPrefix(patch("held.txt", heldText, "changed\n"), "*** Begin Patch\n")),
		shell("cat free.txt > after-refusal.txt"),
		step(patch("free.txt", freeText, "edited\n")),
		shell("agentlock status --json > status.json 2>&1"),
	})
	r.heldEdit, r.freeEdit = 0, 2
	r.model = "gpt-5.5"
	r.runCLI(t, a, prog, false)
	for _, tool := range others {
		if r.offered(tool) {
			t.Errorf("%s offered gpt-5.5 %s: the apply_patch case is not the only edit tool any more", a.cli.name, tool)
		}
	}
	if !r.offered("apply_patch") {
		t.Fatalf("%s offered gpt-5.5 no apply_patch tool: the case tests nothing; requests: %d", a.cli.name, len(r.server.Requests()))
	}
	s := r.harnessSession(t, a)
	r.fileIs(t, "held.txt", heldText, "apply_patch of a free and a held file")
	r.fileIs(t, "after-refusal.txt", freeText, "apply_patch of a free and a held file: free.txt after the refusal")
	r.deniedCleanly(t, r.heldEdit, "apply_patch of a free and a held file")
	r.fileIs(t, "free.txt", "edited\n", "apply_patch of a free file")
	r.freeLockedThenFinished(t, s.ID)
	return r
}

// freeLockedThenFinished checks that free.txt was locked by session id
// during the run (status.json, written by the model) and that id is
// Finished without locks after it.
func (r *e2eRun) freeLockedThenFinished(t *testing.T, id string) {
	t.Helper()
	if l := r.locksIn(t, "status.json")["free.txt"]; l.Session != id || l.State != "locked" {
		t.Errorf("during the run, free.txt's lock is %+v, want locked by the session %s", l, id)
	}
	r.finished(t, id)
}

// offered reports whether a request to the model declared the tool name.
func (r *e2eRun) offered(name string) bool {
	for _, req := range r.server.Requests() {
		if strings.Contains(req.Body, `"name":"`+name+`"`) {
			return true
		}
	}
	return false
}

// escapedContext returns the first hook context (Gemini's <hook_context>)
// of the requests that holds an HTML-escaped '<' or '>'.
func escapedContext(reqs []mock.Request) (string, bool) {
	for _, req := range reqs {
		for rest := req.Body; ; {
			i := strings.Index(rest, "<hook_context>")
			if i < 0 {
				break
			}
			rest = rest[i:]
			end := strings.Index(rest, "</hook_context>")
			if end < 0 {
				end = len(rest)
			}
			if ctx := rest[:end]; strings.Contains(ctx, "&lt;") || strings.Contains(ctx, "&gt;") {
				return ctx, true
			}
			rest = rest[end:]
		}
	}
	return "", false
}

// e2eGitGuard is the last line of defence, with Claude Code (whose shell
// has no sandbox: git can write .git): `agentlock init --git-hook`, then
// the model commits a file of its own (allowed), and then a held file it
// overwrote through the shell, which no edit hook sees (refused by the
// pre-commit guard, naming the holder).
func e2eGitGuard(t *testing.T, a agent, prog string) {
	r := newE2ERun(t, a)
	r.agentlock(t, "init", "--git-hook")
	r.write(t, filepath.Join(r.home, ".gitconfig"), "[user]\n\tname = e2e\n\temail = e2e@example.invalid\n")
	r.start(t, []mock.Step{
		shell(`agentlock acquire free.txt && printf 'mine\n' > free.txt && git add free.txt && git commit -qm own > own.txt 2>&1; echo "exit $?" >> own.txt`),
		shell(`printf 'overwritten\n' > held.txt; git add held.txt && git commit -qm bypass > bypass.txt 2>&1; echo "exit $?" >> bypass.txt`),
	})
	r.runCLI(t, a, prog, false)
	read := func(name string) string {
		data, err := os.ReadFile(filepath.Join(r.repo, name))
		if err != nil {
			t.Fatalf("the model's commit left no %s: %v", name, err)
		}
		return string(data)
	}
	if own := read("own.txt"); !strings.HasSuffix(own, "exit 0\n") {
		t.Errorf("the guard refused a commit of the session's own file: %q", own)
	}
	bypass := read("bypass.txt")
	if strings.HasSuffix(bypass, "exit 0\n") || !strings.Contains(bypass, holder) {
		t.Errorf("a commit of a file %s holds, overwritten through the shell: %q, want refused naming %s", holder, bypass, holder)
	}
	out, err := exec.Command("git", "-C", r.repo, "log", "--format=%s", "--name-only").CombinedOutput()
	if err != nil {
		t.Fatalf("git log: %v: %s", err, out)
	}
	if strings.Contains(string(out), "held.txt") {
		t.Errorf("held.txt was committed:\n%s", out)
	}
}
