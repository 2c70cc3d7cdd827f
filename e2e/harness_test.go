//go:build linux

package e2e

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentlock/agentlock/e2e/ancestry"
	"github.com/agentlock/agentlock/e2e/mock"
	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

var (
	dumpBin      string // the ancestry-dump program
	agentlockDir string // a folder holding the agentlock and agentlock-mcp built from this tree (e2e runs only)
)

func TestMain(m *testing.M) {
	ancestry.MainIfDump()
	flag.Parse()
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "e2e-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	defer os.RemoveAll(dir)
	dumpBin, err = ancestry.Install(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	if os.Getenv("AGENTLOCK_E2E") == "1" && !testing.Short() {
		if latestMode() {
			latest = newLatestRun(allCLIs(), viewWithNPM)
			defer latest.report()
		}
		agentlockDir = dir
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		// agentlock, and agentlock-mcp beside it, which the MCP server
		// entry init writes runs (agentlock mcp hands over to it).
		err := proctest.GoBuildAll(ctx, dir, proctest.Programs())
		cancel()
		if err != nil {
			fmt.Fprintf(os.Stderr, "build agentlock for the end-to-end tests: %v\n", err)
			return 2
		}
	}
	return m.Run()
}

// run is one scripted session of a CLI: the folders, the model, and what
// the hooks and the shell commands recorded.
type run struct {
	home, tmp, repo string
	hooks           string // records of the hooks (written outside any sandbox)
	shells          string // records of the model's commands (inside the repo: writable in a sandbox)
	server          *mock.Server
}

func newRun(t *testing.T) *run {
	t.Helper()
	root := caseRoot(t)
	r := &run{home: filepath.Join(root, "home"), tmp: filepath.Join(root, "tmp"), repo: filepath.Join(root, "repo"),
		hooks: filepath.Join(root, "hooks.jsonl")}
	r.shells = filepath.Join(r.repo, "shell.jsonl")
	for _, d := range []string{r.home, r.tmp, r.repo} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// Two commands, so that two tool calls must share the harness. The
	// first keeps its shell alive ("; true"); bash exec's the second.
	var err error
	r.server, err = mock.Start(mock.Script{Commands: []string{
		dumpBin + " " + r.shells + " shell-1; true",
		dumpBin + " " + r.shells + " shell-2",
	}, Final: "Done."})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.server.Close() })
	return r
}

// hook is the command a hook runs for event; "; true" keeps the hook's
// shell visible in the chain.
func (r *run) hook(event string) string {
	return dumpBin + " -stdin " + r.hooks + " " + event + "; true"
}

func (r *run) write(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// hooksJSON is the Claude/Codex/Gemini shape of a hooks section: each event
// runs r.hook(event) under a matcher when one is given.
func (r *run) hooksJSON(events map[string]string, extra map[string]any) map[string]any {
	hooks := map[string]any{}
	for event, matcher := range events {
		h := map[string]any{"type": "command", "command": r.hook(event), "name": "dump-" + event}
		for k, v := range extra {
			h[k] = v
		}
		entry := map[string]any{"hooks": []any{h}}
		if matcher != "" {
			entry["matcher"] = matcher
		}
		hooks[event] = []any{entry}
	}
	return map[string]any{"hooks": hooks}
}

// sessionFacts is what one session showed.
type sessionFacts struct {
	sessionID string            // from the SessionStart payload
	harness   ancestry.Proc     // the SessionStart hook's nearest non-shell ancestor
	hooks     []ancestry.Record // every hook record
	shells    []ancestry.Record // the model's commands, in order
}

// collect reads the records after the CLI exited and checks property (a):
// exactly one SessionStart, whose nearest non-shell ancestor exists; and
// (c): every later hook, SessionEnd included, has that same process (pid
// and start time) as nearest non-shell ancestor, so it lived all session.
func (r *run) collect(t *testing.T, res proctest.Result) sessionFacts {
	t.Helper()
	if res.Code != 0 {
		t.Fatalf("CLI failed: %v\nrequests: %v", res, r.server.Requests())
	}
	hooks, err := ancestry.ReadRecords(r.hooks)
	if err != nil {
		t.Fatalf("no hook ran: %v\n%v", err, res)
	}
	shells, err := ancestry.ReadRecords(r.shells)
	if err != nil {
		t.Fatalf("no scripted command ran: %v\n%v", err, res)
	}
	var f sessionFacts
	f.hooks, f.shells = hooks, shells
	starts, ends := 0, 0
	for _, h := range hooks {
		switch h.Label {
		case "SessionStart":
			starts++
			var payload struct {
				SessionID string `json:"session_id"`
				CamelID   string `json:"sessionId"` // Copilot CLI's
			}
			if err := json.Unmarshal([]byte(h.Stdin), &payload); err != nil || payload.SessionID+payload.CamelID == "" {
				t.Fatalf("SessionStart payload without session_id: %q (%v)", h.Stdin, err)
			}
			f.sessionID = payload.SessionID + payload.CamelID
			p, ok := ancestry.Harness(h.Chain)
			if !ok {
				t.Fatalf("(a) SessionStart hook has no non-shell ancestor: %+v", h.Chain)
			}
			f.harness = p
		case "SessionEnd":
			ends++
		}
	}
	if starts != 1 || ends != 1 {
		t.Fatalf("%d SessionStart and %d SessionEnd hooks ran, want 1 each", starts, ends)
	}
	for _, h := range hooks {
		p, ok := ancestry.Harness(h.Chain)
		if !ok || !ancestry.Same(p, f.harness) {
			t.Errorf("(c) %s hook's nearest non-shell ancestor is %+v, not the SessionStart's %+v", h.Label, p, f.harness)
		}
	}
	if len(shells) != 2 || shells[0].Label != "shell-1" || shells[1].Label != "shell-2" {
		t.Fatalf("scripted commands recorded: %d, want shell-1 and shell-2", len(shells))
	}
	return f
}

// shellsReachHarness checks property (b): each of the model's commands has
// the session's harness as its own nearest non-shell ancestor.
func (f sessionFacts) shellsReachHarness(t *testing.T) {
	t.Helper()
	for _, s := range f.shells {
		p, ok := ancestry.Harness(s.Chain)
		if !ok || !ancestry.Same(p, f.harness) {
			t.Errorf("(b) %s: nearest non-shell ancestor %+v (found %v), want the harness %+v; chain %+v", s.Label, p, ok, f.harness, s.Chain)
		}
	}
}

// envIs checks that every record has variable name set to want ("" for
// unset).
func envIs(t *testing.T, what string, recs []ancestry.Record, name, want string) {
	t.Helper()
	for _, r := range recs {
		if got := r.Env[name]; got != want {
			t.Errorf("%s %s: %s=%q, want %q", what, r.Label, name, got, want)
		}
	}
}

func TestClaudeHarnessAncestry(t *testing.T) {
	bin := claudeCLI.install(t)
	offline(t)
	r := newRun(t)
	// A repository of its own: Claude Code takes the nearest folder with a
	// .git as the workspace whose trust and settings apply, and a Codex
	// sandbox that counts /tmp among its writable roots (not this suite's:
	// codexConfig) leaves an empty /tmp/.git behind at times (its mount
	// point for the read-only .git of a writable root), which would make
	// that /tmp, an untrusted workspace.
	if out, err := exec.Command("git", "-C", r.repo, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	settings := r.hooksJSON(map[string]string{"SessionStart": "", "PreToolUse": "*", "PostToolUse": "*", "SessionEnd": ""}, nil)
	settings["permissions"] = map[string]any{"allow": []string{"Bash"}}
	r.write(t, filepath.Join(r.repo, ".claude", "settings.json"), mustJSON(settings))
	// Project permissions apply only in a trusted folder.
	r.write(t, filepath.Join(r.home, ".claude.json"), mustJSON(map[string]any{
		"projects": map[string]any{r.repo: map[string]any{"hasTrustDialogAccepted": true}}}))
	res := proctest.Run(t, bin, proctest.Cmd{
		Args: []string{"-p", "run the scripted commands", "--output-format", "json"},
		Env: proctest.Env(r.home, r.tmp, "ANTHROPIC_BASE_URL="+r.server.URL(), "ANTHROPIC_API_KEY=sk-mock",
			"DISABLE_TELEMETRY=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1"),
		Dir: r.repo,
	})
	f := r.collect(t, res)
	f.shellsReachHarness(t)
	envIs(t, "hook", f.hooks, "CLAUDE_CODE_SESSION_ID", f.sessionID)
	envIs(t, "command", f.shells, "CLAUDE_CODE_SESSION_ID", f.sessionID)
}

func TestGeminiHarnessAncestry(t *testing.T) {
	bin := geminiCLI.install(t)
	offline(t)
	r := newRun(t)
	r.write(t, filepath.Join(r.repo, ".gemini", "settings.json"), mustJSON(r.hooksJSON(
		map[string]string{"SessionStart": "", "BeforeTool": ".*", "AfterTool": ".*", "SessionEnd": ""},
		map[string]any{"timeout": 30000})))
	r.write(t, filepath.Join(r.home, ".gemini", "settings.json"), `{"security":{"auth":{"selectedType":"gemini-api-key"}}}`)
	r.write(t, filepath.Join(r.home, ".gemini", "trustedFolders.json"), mustJSON(map[string]string{r.repo: "TRUST_FOLDER"}))
	res := proctest.Run(t, bin, proctest.Cmd{
		Args: []string{"-m", "gemini-2.5-flash", "-p", "run the scripted commands", "--yolo", "--output-format", "json"},
		Env:  proctest.Env(r.home, r.tmp, "GOOGLE_GEMINI_BASE_URL="+r.server.URL(), "GEMINI_API_KEY=mock-key"),
		Dir:  r.repo,
	})
	f := r.collect(t, res)
	f.shellsReachHarness(t)
	envIs(t, "hook", f.hooks, "GEMINI_SESSION_ID", f.sessionID)
	envIs(t, "command", f.shells, "GEMINI_SESSION_ID", "")
	envIs(t, "command", f.shells, "GEMINI_CLI", "1")
}

// runCodex runs codex exec in sandbox mode and returns what it showed.
func runCodex(t *testing.T, bin, sandbox string) sessionFacts {
	t.Helper()
	offline(t)
	r := newRun(t)
	r.write(t, filepath.Join(r.repo, ".codex", "hooks.json"), mustJSON(r.hooksJSON(
		map[string]string{"SessionStart": "", "PreToolUse": "", "PostToolUse": "", "SessionEnd": ""},
		map[string]any{"timeout": 30})))
	codexHome := filepath.Join(r.home, ".codex")
	r.write(t, filepath.Join(codexHome, "config.toml"), codexConfig(r.server.URL()+"/v1", r.repo))
	res := proctest.Run(t, bin, proctest.Cmd{
		Args: []string{"exec", "--json", "--skip-git-repo-check", "--sandbox", sandbox,
			"--dangerously-bypass-hook-trust", "run the scripted commands"},
		Env: proctest.Env(r.home, r.tmp, "CODEX_HOME="+codexHome, "MOCK_API_KEY=sk-mock"),
		Dir: r.repo,
	})
	f := r.collect(t, res)
	envIs(t, "hook", f.hooks, "CODEX_THREAD_ID", "")
	envIs(t, "command", f.shells, "CODEX_THREAD_ID", f.sessionID)
	return f
}

func TestCodexHarnessAncestryWithoutSandbox(t *testing.T) {
	bin := codexCLI.install(t)
	f := runCodex(t, bin, "danger-full-access")
	f.shellsReachHarness(t)
}

// Under workspace-write, Codex runs each command in a PID namespace of its
// own: the harness is out of sight, and only CODEX_THREAD_ID (checked by
// runCodex) names the session. If this test fails, Codex changed: the
// ancestry may have become usable, or the sandbox different.
func TestCodexSandboxHidesTheHarness(t *testing.T) {
	bin := codexCLI.install(t)
	f := runCodex(t, bin, "workspace-write")
	for _, s := range f.shells {
		for _, p := range s.Chain {
			if ancestry.Same(p, f.harness) {
				t.Errorf("%s: the harness %+v is visible inside the sandbox", s.Label, f.harness)
			}
		}
		if p, ok := ancestry.Harness(s.Chain); ok {
			t.Errorf("%s: a non-shell ancestor %+v is visible inside the sandbox; chain %+v", s.Label, p, s.Chain)
		}
		last := s.Chain[len(s.Chain)-1]
		if last.PID != 1 || last.PPID != 0 {
			t.Errorf("%s: chain ends at %+v, want the namespace's pid 1", s.Label, last)
		}
	}
}

// codexConfig is Codex's config.toml for a run against the mock: the model
// "mock-model" (outside Codex's catalog) served at baseURL through the
// Responses API, no approvals, repo trusted, and /tmp out of the sandbox.
//
// Codex 0.171.0's workspace-write sandbox makes every writable root
// writable except its protected names (.git, .agents, .codex, .aws), which
// it mounts read-only, creating an empty mount point for each one missing.
// By default the writable roots are the working folder, $TMPDIR and /tmp:
// the mount points land directly in /tmp, shared by every process of the
// machine, and are at times left there, where they make /tmp the project
// (git toplevel, settings) of every folder made under it later.
// exclude_slash_tmp takes /tmp out of the writable roots. $TMPDIR stays
// one (exclude_tmpdir_env_var = false): a run's TMPDIR is a folder of its
// own (proctest.Env), removed with the test, and the model's shell keeps a
// writable temporary folder there.
func codexConfig(baseURL, repo string) string {
	return fmt.Sprintf(`model = "mock-model"
model_provider = "mock"
approval_policy = "never"
[model_providers.mock]
name = "mock"
base_url = %q
wire_api = "responses"
env_key = "MOCK_API_KEY"
[projects.%q]
trust_level = "trusted"
[sandbox_workspace_write]
exclude_slash_tmp = true
exclude_tmpdir_env_var = false
`, baseURL, repo)
}
