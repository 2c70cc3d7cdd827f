package main_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/proctest"
)

// Realistic hook payloads, in the shapes the harnesses document (see
// ../shared/research/harnesses.md): fields agentlock does not read are kept
// so that the decoder meets them.
func claudeEdit(session, cwd, file string) string {
	return fmt.Sprintf(`{"session_id":%q,"transcript_path":"/home/u/.claude/projects/x/%s.jsonl","cwd":%q,
"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Edit","tool_use_id":"toolu_01",
"tool_input":{"file_path":%q,"old_string":"a","new_string":"b","replace_all":false}}`, session, session, cwd, file)
}

func claudeNotebook(session, cwd, file string) string {
	return fmt.Sprintf(`{"session_id":%q,"cwd":%q,"hook_event_name":"PreToolUse","tool_name":"NotebookEdit",
"tool_input":{"notebook_path":%q,"new_source":"print(1)","cell_id":"c1"}}`, session, cwd, file)
}

func codexPatch(session, cwd string, patch string) string {
	return fmt.Sprintf(`{"session_id":%q,"transcript_path":null,"cwd":%q,"hook_event_name":"PreToolUse","model":"gpt-5-codex",
"turn_id":"t1","permission_mode":"default","tool_name":"apply_patch","tool_use_id":"call_1","tool_input":{"command":%s}}`,
		session, cwd, mustJSON(patch))
}

func geminiWrite(session, cwd, file string) string {
	return fmt.Sprintf(`{"session_id":%q,"transcript_path":"/tmp/t.json","cwd":%q,"hook_event_name":"BeforeTool",
"timestamp":"2026-11-29T10:00:00Z","tool_name":"write_file","tool_input":{"file_path":%q,"content":"x"},
"mcp_context":null,"original_request_name":"write_file"}`, session, cwd, file)
}

func kimiWrite(session, cwd, file string) string {
	return fmt.Sprintf(`{"hook_event_name":"PreToolUse","session_id":%q,"cwd":%q,"tool_name":"WriteFile",
"tool_input":{"path":%q,"content":"x","mode":"overwrite"},"tool_call_id":"c1"}`, session, cwd, file)
}

func mustJSON(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(data)
}

// hookProject is an initialised project with a source folder.
func hookProject(t *testing.T) *project {
	t.Helper()
	p := newProject(t)
	requireExit(t, 0, p.run("init"))
	for _, f := range []string{"src/a.go", "src/b.go", "src/c.go", "notes/n.ipynb"} {
		p.write(f, "x\n")
	}
	return p
}

func (p *project) hook(agent, event, payload string, env ...string) proctest.Result {
	p.t.Helper()
	return proctest.Run(p.t, harness(p.t).Bin, proctest.Cmd{Args: []string{"hook", agent, event}, Env: append(append([]string{}, p.env...), env...),
		Dir: p.dir, Stdin: payload})
}

// requireDenied checks the blocking contract every harness reads: exit 2,
// nothing on stdout, one line on stderr naming the holder.
func requireDenied(t *testing.T, r proctest.Result, holder string) {
	t.Helper()
	requireExit(t, 2, r)
	assert.Empty(t, r.Stdout, "a denial prints nothing on stdout")
	assert.Equal(t, 1, strings.Count(r.Stderr, "\n"), "one line on stderr: %q", r.Stderr)
	assert.Contains(t, r.Stderr, holder, "the holder is named")
	assert.Contains(t, r.Stderr, "Do not work around this", "the model is told what to do")
}

func TestHookClaudePreEdit(t *testing.T) {
	p := hookProject(t)
	a := filepath.Join(p.dir, "src/a.go")
	r := p.hook("claude", "pre-edit", claudeEdit("aaa", p.dir, a))
	requireExit(t, 0, r)
	assert.Empty(t, r.Stdout)
	assert.Equal(t, "claude-aaa", p.owner("src/a.go"), "free path: acquired for the session")

	requireExit(t, 0, p.hook("claude", "pre-edit", claudeEdit("aaa", p.dir, a))) // own lock: allowed
	requireDenied(t, p.hook("claude", "pre-edit", claudeEdit("bbb", p.dir, a)), "claude-aaa")
	assert.Equal(t, "claude-aaa", p.owner("src/a.go"))

	requireExit(t, 0, p.hook("claude", "pre-edit", claudeNotebook("bbb", p.dir, filepath.Join(p.dir, "notes/n.ipynb"))))
	assert.Equal(t, "claude-bbb", p.owner("notes/n.ipynb"), "NotebookEdit's notebook_path")

	// The model's own command in the same session (CLAUDE_CODE_SESSION_ID in
	// its Bash) holds the same identity as the hook.
	r = p.runEnv([]string{"CLAUDE_CODE_SESSION_ID=aaa"}, "acquire", "src/a.go")
	requireExit(t, 0, r)
	assert.Contains(t, r.Stdout, "claude-aaa")
	r = p.runEnv([]string{"CLAUDE_CODE_SESSION_ID=bbb"}, "acquire", "src/a.go")
	requireExit(t, 1, r)
}

func TestHookCodexMultiFilePatchIsAllOrNothing(t *testing.T) {
	p := hookProject(t)
	patch := "*** Begin Patch\n*** Update File: a.go\n@@\n-x\n+y\n*** Add File: new.go\n+package src\n" +
		"*** Delete File: c.go\n*** Update File: b.go\n*** Move to: moved/b.go\n@@\n-x\n+z\n*** End Patch\n"
	src := filepath.Join(p.dir, "src")
	requireExit(t, 0, p.hook("claude", "pre-edit", claudeEdit("other", p.dir, filepath.Join(p.dir, "src/c.go"))))

	requireDenied(t, p.hook("codex", "pre-edit", codexPatch("thread-1", src, patch)), "claude-other")
	for _, f := range []string{"src/a.go", "src/new.go", "src/b.go", "src/moved/b.go"} {
		assert.Empty(t, p.owner(f), "%s: nothing taken when one path is held", f)
	}

	requireExit(t, 0, p.hook("claude", "session-end", `{"session_id":"other","cwd":"`+p.dir+`","hook_event_name":"SessionEnd","reason":"exit"}`))
	requireExit(t, 0, p.hook("codex", "pre-edit", codexPatch("thread-1", src, patch)))
	for _, f := range []string{"src/a.go", "src/new.go", "src/c.go", "src/b.go", "src/moved/b.go"} {
		assert.Equal(t, "codex-thread-1", p.owner(f), "%s: relative to the payload's cwd", f)
	}
	// The model's shell in the same Codex thread has CODEX_THREAD_ID.
	r := p.runEnv([]string{"CODEX_THREAD_ID=thread-1"}, "whoami")
	requireExit(t, 0, r)
	assert.Equal(t, "codex-thread-1 (from CODEX_THREAD_ID)\n", r.Stdout)
}

func TestHookGeminiAndKimiRelativePaths(t *testing.T) {
	p := hookProject(t)
	src := filepath.Join(p.dir, "src")
	requireExit(t, 0, p.hook("gemini", "pre-edit", geminiWrite("g1", src, "a.go")))
	assert.Equal(t, "gemini-g1", p.owner("src/a.go"))
	requireDenied(t, p.hook("kimi", "pre-edit", kimiWrite("k1", p.dir, "src/a.go")), "gemini-g1")
	requireExit(t, 0, p.hook("kimi", "pre-edit", kimiWrite("k1", p.dir, "src/b.go")))
	assert.Equal(t, "kimi-k1", p.owner("src/b.go"))
	requireDenied(t, p.hook("gemini", "pre-edit", geminiWrite("g2", p.dir, "src/b.go")), "kimi-k1")

	// A wrapper's AGENTLOCK_SESSION wins over the payload's id, so that the
	// hook and the model's commands (which see only AGENTLOCK_SESSION) agree.
	requireExit(t, 0, p.hook("kimi", "pre-edit", kimiWrite("k2", p.dir, "src/c.go"), "AGENTLOCK_SESSION=kimi-wrapped"))
	assert.Equal(t, "kimi-wrapped", p.owner("src/c.go"))
}

func TestHookOutsideAnAgentlockProjectDoesNothing(t *testing.T) {
	p := newProject(t) // no init: no .agent-registry
	p.write("src/a.go", "x\n")
	r := p.hook("kimi", "pre-edit", kimiWrite("k1", p.dir, "src/a.go"))
	requireExit(t, 0, r)
	assert.Empty(t, r.Stdout+r.Stderr)
	assert.NoDirExists(t, filepath.Join(p.dir, ".agent-registry"), "nothing created")

	// From an agentlock project, an edit outside any such project (the
	// user's own settings, a temporary file) is not gated either.
	q := hookProject(t)
	elsewhere := filepath.Join(t.TempDir(), "scratch.txt")
	r = q.hook("claude", "pre-edit", claudeEdit("c1", q.dir, elsewhere))
	requireExit(t, 0, r)
	assert.Empty(t, r.Stderr)
	assert.NoDirExists(t, filepath.Join(q.home, ".agent-registry"), "no lock folder in the home")
	// The same under a wrapper, which exports the project's folders.
	wrapped := []string{"AGENT_REGISTRY_LOCK_DIR=" + filepath.Join(q.dir, ".agent-registry", "locks"),
		"AGENT_REGISTRY_PATH=" + filepath.Join(q.dir, ".agent-registry", "registry.md")}
	requireExit(t, 0, q.hook("claude", "pre-edit", claudeEdit("c1", q.dir, elsewhere), wrapped...))
	requireExit(t, 0, q.hook("claude", "pre-edit", claudeEdit("c2", q.dir, elsewhere), wrapped...))
	requireExit(t, 0, q.hook("claude", "pre-edit", claudeEdit("c1", q.dir, filepath.Join(q.dir, "src/a.go")), wrapped...))
	requireDenied(t, q.hook("claude", "pre-edit", claudeEdit("c2", q.dir, filepath.Join(q.dir, "src/a.go")), wrapped...), "claude-c1")
}

func TestHookSessionLifecycle(t *testing.T) {
	p := hookProject(t)
	requireExit(t, 0, p.hook("codex", "pre-edit", codexPatch("c9", p.dir, "*** Update File: src/b.go\n")))

	r := p.hook("claude", "session-start", `{"session_id":"s1","cwd":"`+p.dir+`","hook_event_name":"SessionStart","source":"startup","model":"claude-opus-4"}`)
	requireExit(t, 0, r)
	var out struct {
		HookSpecificOutput struct {
			HookEventName     string `json:"hookEventName"`
			AdditionalContext string `json:"additionalContext"`
		} `json:"hookSpecificOutput"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &out), "stdout is pure JSON: %q", r.Stdout)
	assert.Equal(t, "SessionStart", out.HookSpecificOutput.HookEventName)
	assert.Contains(t, out.HookSpecificOutput.AdditionalContext, "your session id is claude-s1")
	assert.Contains(t, out.HookSpecificOutput.AdditionalContext, filepath.Join(p.dir, "src/b.go")+" (held by codex-c9)")
	show := p.run("show", "--json")
	requireExit(t, 0, show)
	assert.Contains(t, show.Stdout, `"session_id":"claude-s1"`)
	assert.Contains(t, show.Stdout, `"ai_version":"claude-opus-4"`)
	assert.Contains(t, show.Stdout, `"todo":{"past":[],"present":[],"future":[]}`, "the 0.2 keys in JSON too")

	r = p.hook("kimi", "session-start", `{"hook_event_name":"SessionStart","session_id":"k5","cwd":"`+p.dir+`"}`)
	requireExit(t, 0, r)
	assert.True(t, strings.HasPrefix(r.Stdout, "agentlock: your session id is kimi-k5."), "Kimi gets plain text: %q", r.Stdout)

	a := filepath.Join(p.dir, "src/a.go")
	requireExit(t, 0, p.hook("claude", "pre-edit", claudeEdit("s1", p.dir, a)))
	lockFile := filepath.Join(p.dir, ".agent-registry", "locks", lockName(a))
	before, err := os.ReadFile(lockFile)
	require.NoError(t, err)
	requireExit(t, 0, p.hook("claude", "renew", `{"session_id":"s1","cwd":"`+p.dir+`","hook_event_name":"PostToolUse","tool_name":"Bash"}`))
	after, err := os.ReadFile(lockFile)
	require.NoError(t, err)
	assert.NotEqual(t, string(before), string(after), "renew rewrote the timestamp")
	assert.True(t, strings.HasPrefix(string(after), "claude-s1|"))

	requireExit(t, 0, p.hook("claude", "session-end", `{"session_id":"s1","cwd":"`+p.dir+`","hook_event_name":"SessionEnd","reason":"prompt_input_exit"}`))
	assert.Empty(t, p.owner("src/a.go"), "session end releases the session's locks")
	assert.Equal(t, "codex-c9", p.owner("src/b.go"), "and no other session's")
	show = p.run("show", "--json")
	assert.Contains(t, show.Stdout, `"session_id":"claude-s1"`)
	assert.Regexp(t, `"session_id":"claude-s1".*"status":"Finished"`, show.Stdout)
}

// Hooks of different harnesses and sessions race for one file: exactly one
// wins, every other is denied.
func TestHookRaceOneWinner(t *testing.T) {
	p := hookProject(t)
	a := filepath.Join(p.dir, "src/a.go")
	for round := range raceRounds() {
		var cmds []proctest.Cmd
		for i := range 12 {
			var payload, agent string
			switch i % 4 {
			case 0:
				agent, payload = "claude", claudeEdit(fmt.Sprintf("r%d-%d", round, i), p.dir, a)
			case 1:
				agent, payload = "codex", codexPatch(fmt.Sprintf("r%d-%d", round, i), p.dir, "*** Update File: src/a.go\n")
			case 2:
				agent, payload = "gemini", geminiWrite(fmt.Sprintf("r%d-%d", round, i), p.dir, "src/a.go")
			default:
				agent, payload = "kimi", kimiWrite(fmt.Sprintf("r%d-%d", round, i), p.dir, "src/a.go")
			}
			cmds = append(cmds, proctest.Cmd{Args: []string{"hook", agent, "pre-edit"}, Env: p.env, Dir: p.dir, Stdin: payload})
		}
		winners := 0
		for _, r := range harness(t).Race(t, cmds) {
			switch r.Code {
			case 0:
				winners++
			case 2:
				assert.Empty(t, r.Stdout)
			default:
				t.Fatalf("unexpected: %s", r)
			}
		}
		require.Equal(t, 1, winners, "round %d", round)
		owner := p.owner("src/a.go")
		require.NotEmpty(t, owner)
		requireExit(t, 0, p.run("release", "src/a.go", owner))
	}
}

// The command written into the harness settings guards against a missing
// agentlock (Gemini blocks every edit on exit 127) and passes a denial on.
func TestGeneratedHookCommandGuardsAMissingBinary(t *testing.T) {
	p := hookProject(t)
	requireExit(t, 0, p.run("init", "--agent", "gemini"))
	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string } `json:"hooks"`
		} `json:"hooks"`
	}
	require.NoError(t, json.Unmarshal([]byte(p.read(".gemini/settings.json")), &settings))
	command := settings.Hooks["BeforeTool"][0].Hooks[0].Command
	require.Contains(t, command, "agentlock hook gemini pre-edit")

	bin := t.TempDir()
	require.NoError(t, os.Symlink(harness(t).Bin, filepath.Join(bin, "agentlock")))
	run := func(path, payload string) proctest.Result {
		return proctest.Run(t, "sh", proctest.Cmd{Args: []string{"-c", command}, Env: append(append([]string{}, p.env...), "PATH="+path), Dir: p.dir, Stdin: payload})
	}
	requireExit(t, 0, run(bin+":/usr/bin:/bin", geminiWrite("g1", p.dir, "src/a.go")))
	requireDenied(t, run(bin+":/usr/bin:/bin", geminiWrite("g2", p.dir, "src/a.go")), "gemini-g1")
	r := run("/usr/bin:/bin", geminiWrite("g2", p.dir, "src/a.go"))
	requireExit(t, 0, r)
	assert.Contains(t, r.Stderr, "agentlock is not on PATH")
}
