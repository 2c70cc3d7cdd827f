package main_test

// The "follow the instructions" test: every agentlock command that a
// generated text tells an agent to run is run exactly as written, in that
// agent's environment, under a stand-in harness process (fakeagent), and
// must succeed; the agent's own hook must then let it edit the path it
// locked, and another session must be refused that path.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/fakeagent"
	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// instructedAgent is how one agent's harness looks to agentlock.
type instructedAgent struct {
	name string
	// shellEnv is what the harness exports to the model's shell commands;
	// hookEnv what it exports to hooks.
	shellEnv, hookEnv []string
	// harnessID is the harness's own session id, in hook payloads.
	harnessID string
	// initArgs are extra arguments of init (Kimi's hooks are user-wide).
	initArgs []string
	// edit is the pre-edit payload's tool part for a project file.
	edit func(abs, rel string) map[string]any
	// camelCase: the payload's own members are sessionId and cwd
	// (Copilot CLI's), not session_id, cwd and hook_event_name.
	camelCase bool
	// wrapperOnly: the harness has no session-start hook and no session
	// variable in the model's shell (Crush), so nothing but the wrapper
	// gives the model's commands a session: its instructions say so, and
	// only the wrapped run can follow them.
	wrapperOnly bool
	// base, when set, is the payload's own members (Cline's taskId and
	// workspaceRoots, Cursor's conversation_id), in place of those.
	base func(id, project, event string) map[string]any
}

var instructedAgents = []instructedAgent{
	{
		name: "claude", harnessID: "5f0c6d1e-claude",
		shellEnv: []string{"CLAUDE_CODE_SESSION_ID=5f0c6d1e-claude"},
		edit: func(abs, _ string) map[string]any {
			return map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"file_path": abs, "old_string": "a", "new_string": "b"}}
		},
	},
	{
		// Codex exports CODEX_THREAD_ID to the model's shell but not to
		// its hooks (research/harnesses-verified.md).
		name: "codex", harnessID: "019a-codex-thread",
		shellEnv: []string{"CODEX_THREAD_ID=019a-codex-thread"},
		edit: func(_, rel string) map[string]any {
			patch := "*** Begin Patch\n*** Update File: " + rel + "\n@@\n-a\n+b\n*** End Patch\n"
			return map[string]any{"tool_name": "apply_patch", "tool_input": map[string]any{"command": patch}}
		},
	},
	{
		// Gemini's and Kimi's shells see no session id at all.
		name: "gemini", harnessID: "gemini-uuid-7",
		edit: func(abs, _ string) map[string]any {
			return map[string]any{"tool_name": "write_file", "tool_input": map[string]any{"file_path": abs, "content": "b"}}
		},
	},
	{
		// Copilot exports its sessionId to the model's shell; GPT-5 models
		// edit only with apply_patch, whose toolArgs is the patch text.
		name: "copilot", harnessID: "a7dfe04a-copilot", camelCase: true,
		shellEnv: []string{"COPILOT_AGENT_SESSION_ID=a7dfe04a-copilot"},
		edit: func(_, rel string) map[string]any {
			patch := "*** Begin Patch\n*** Update File: " + rel + "\n@@\n-a\n+b\n*** End Patch\n"
			return map[string]any{"toolName": "apply_patch", "toolArgs": patch}
		},
	},
	{
		// Kimi Code: hooks only in the user-level config.toml (init
		// --global), payload session_id "session_<uuid>" and
		// tool_input.path, relative to the payload's cwd; no session
		// variable in its Bash tool (research/harnesses-verified.md).
		name: "kimi", harnessID: "session_7c0e5b8a-kimi", initArgs: []string{"--global"},
		edit: func(_, rel string) map[string]any {
			return map[string]any{"tool_name": "Edit", "tool_input": map[string]any{"path": rel, "old_string": "a", "new_string": "b"}}
		},
	},
	{
		// Qwen Code exports its id to hooks and to run_shell_command
		// (research/harnesses-verified.md).
		name: "qwen", harnessID: "0c5e-qwen-uuid",
		shellEnv: []string{"QWEN_CODE_SESSION_ID=0c5e-qwen-uuid"},
		hookEnv:  []string{"QWEN_CODE_SESSION_ID=0c5e-qwen-uuid"},
		edit: func(abs, _ string) map[string]any {
			return map[string]any{"tool_name": "edit", "tool_input": map[string]any{"file_path": abs, "old_string": "a", "new_string": "b"}}
		},
	},
	{
		// OpenCode runs no shell hooks: agentlock's plugin spawns
		// `agentlock hook opencode <event>` itself, with the session id
		// from OpenCode and no session variable, and sets
		// OPENCODE_SESSION_ID in the model's shell (shell.env).
		name: "opencode", harnessID: "ses_1f0c6d1effe-opencode",
		shellEnv: []string{"OPENCODE_SESSION_ID=ses_1f0c6d1effe-opencode"},
		edit: func(abs, _ string) map[string]any {
			return map[string]any{"tool_name": "edit", "tool_input": map[string]any{"filePath": abs, "oldString": "a", "newString": "b"}}
		},
	},
	{
		// Kilo Code CLI, OpenCode's fork, the same way; apply_patch (a
		// model id with "gpt-") with a path relative to the project.
		name: "kilo", harnessID: "ses_2a7dfe04ffe-kilo",
		shellEnv: []string{"KILO_SESSION_ID=ses_2a7dfe04ffe-kilo"},
		edit: func(_, rel string) map[string]any {
			patch := "*** Begin Patch\n*** Update File: " + rel + "\n@@\n-a\n+b\n*** End Patch"
			return map[string]any{"tool_name": "apply_patch", "tool_input": map[string]any{"patchText": patch}}
		},
	},
	{
		// Crush: one PreToolUse hook, CRUSH_SESSION_ID in hooks only, no
		// session variable in its bash tool, no session start or end
		// (docs/integrations/crush.md).
		name: "crush", harnessID: "3139-crush-session", wrapperOnly: true,
		hookEnv: []string{"CRUSH_SESSION_ID=3139-crush-session"},
		edit: func(abs, _ string) map[string]any {
			return map[string]any{"tool_name": "multiedit", "tool_input": map[string]any{"file_path": abs,
				"edits": []any{map[string]any{"old_string": "a", "new_string": "b"}}}}
		},
	},
	{
		// Factory Droid: Claude Code's payload; no session variable in its
		// Execute tool (found through the droid process the session-start
		// hook recorded).
		name: "droid", harnessID: "8280a752-droid-session",
		edit: func(abs, _ string) map[string]any {
			return map[string]any{"tool_name": "Create", "tool_input": map[string]any{"file_path": abs, "content": "b"}}
		},
	},
	{
		// Cursor CLI: conversation_id and workspace_roots (its documented
		// payload); no session variable in its shell.
		name: "cursor", harnessID: "2c9e-cursor-conversation",
		base: func(id, project, event string) map[string]any {
			return map[string]any{"conversation_id": id, "generation_id": "g1", "hook_event_name": event, "workspace_roots": []string{project}}
		},
		edit: func(abs, _ string) map[string]any {
			return map[string]any{"tool_name": "Write", "tool_input": map[string]any{"file_path": abs, "contents": "b"}}
		},
	},
	{
		// Cline CLI 3.x: taskId and workspaceRoots, the tool in
		// tool_call; no session variable in its shell (docs/integrations/cline.md).
		name: "cline", harnessID: "conv_1796168877483_mlo32s3",
		base: func(id, project, event string) map[string]any {
			return map[string]any{"taskId": id, "hookName": event, "workspaceRoots": []string{project}, "clineVersion": "3.0.65"}
		},
		edit: func(abs, _ string) map[string]any {
			return map[string]any{"tool_call": map[string]any{"id": "c1", "name": "editor", "input": map[string]any{"path": abs, "old_text": "a", "new_text": "b"}}}
		},
	},
	{
		// Pi: what its extension hands agentlock; Pi sets PI_SESSION_ID in
		// its bash tool, and the extension in the hook's environment.
		name: "pi", harnessID: "01a23400-ffff-7436-91f0-9f93e2b53a8e",
		shellEnv: []string{"PI_SESSION_ID=01a23400-ffff-7436-91f0-9f93e2b53a8e"},
		hookEnv:  []string{"PI_SESSION_ID=01a23400-ffff-7436-91f0-9f93e2b53a8e"},
		edit: func(abs, _ string) map[string]any {
			return map[string]any{"tool_name": "edit", "tool_input": map[string]any{"path": abs, "edits": []any{}}}
		},
	},
}

// Placeholders of the generated texts, and what the test writes for them.
var placeholders = map[string]string{
	"<path>":             "src/mine.txt",
	"path/to/file":       "src/mine.txt", // the session context's: Gemini HTML-escapes <path>
	"<file>":             "notes/handoff.md",
	"<what you work on>": "following the instructions",
}

func TestFollowTheInstructions(t *testing.T) {
	h := harness(t)
	fake, err := exec.LookPath("fakeagent")
	require.NoError(t, err, "TestMain installs fakeagent on PATH")
	for _, a := range instructedAgents {
		for _, wrapped := range []bool{false, true} {
			if a.wrapperOnly && !wrapped {
				continue
			}
			name := a.name
			if wrapped {
				name += "/wrapper"
			}
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				followInstructions(t, h, fake, a, wrapped)
			})
		}
	}
}

func followInstructions(t *testing.T, h *proctest.Harness, fake string, a instructedAgent, wrapped bool) {
	root := realTempDir(t)
	project := filepath.Join(root, "project")
	for _, dir := range []string{".git", "src/auth", "notes", "docs/notes"} {
		require.NoError(t, os.MkdirAll(filepath.Join(project, dir), 0o755))
	}
	// The files the texts name: their placeholders, and the README's examples.
	for _, f := range []string{"src/mine.txt", "notes/handoff.md", "src/auth.py", "src/auth/login.py", "docs/notes/auth.md"} {
		require.NoError(t, os.WriteFile(filepath.Join(project, f), []byte("a\n"), 0o644))
	}
	env := append(hermeticEnv(t, root), teamStore(t)...)
	home := filepath.Join(root, "home")
	run := func(args ...string) proctest.Result {
		t.Helper()
		return h.Run(t, proctest.Cmd{Args: args, Env: env, Dir: project})
	}
	r := run(append([]string{"init", "--agent", a.name}, a.initArgs...)...)
	require.Equal(t, 0, r.Code, "%s", r)
	if a.name == "codex" {
		// The user trusted the project's hooks in Codex's /hooks, as init
		// tells them to: Codex records it in its config (the hash is
		// Codex's own; doctor can only see that trust was given).
		hooks := filepath.Join(project, ".codex", "hooks.json")
		config := fmt.Sprintf("[hooks.state.%q]\ntrusted_hash = \"sha256:given-in-hooks-screen\"\n", hooks+":pre_tool_use:0:0")
		require.NoError(t, os.MkdirAll(filepath.Join(home, ".codex"), 0o700))
		require.NoError(t, os.WriteFile(filepath.Join(home, ".codex", "config.toml"), []byte(config), 0o600))
	}

	texts := generatedTexts(t, project, home)
	hooks := hookCommands(t, a.name, project, home)
	events := []string{"session-start", "pre-edit"}
	if a.wrapperOnly {
		events = events[1:]
	}
	for _, event := range events {
		require.Contains(t, hooks, event, "init --agent %s installs a %s hook", a.name, event)
	}

	abs := filepath.Join(project, "src", "mine.txt")
	payload := func(event string, extra map[string]any) json.RawMessage {
		p := map[string]any{"session_id": a.harnessID, "cwd": project, "hook_event_name": event}
		if a.camelCase {
			p = map[string]any{"sessionId": a.harnessID, "cwd": project, "timestamp": 1764626400000}
		}
		if a.base != nil {
			p = a.base(a.harnessID, project, event)
		}
		for k, v := range extra {
			p[k] = v
		}
		data, err := json.Marshal(p)
		require.NoError(t, err)
		return data
	}

	// The session starts: the harness runs its session-start hook, whose
	// output (the session context) is one more generated text.
	var start []fakeagent.Step
	if _, ok := hooks["session-start"]; ok {
		start = []fakeagent.Step{{Hook: hooks["session-start"], Payload: payload("SessionStart", nil), Env: a.hookEnv}}
		first := runFakeAgent(t, h, fake, project, env, wrapped, start)
		require.Len(t, first, 1)
		require.Equal(t, 0, first[0].Code, "session-start hook: %+v", first[0])
		texts["SessionStart context"] = contextText(first[0].Stdout)
	}

	commands := instructedCommands(t, texts)
	// Ending commands go last, after the checks that need the lock held,
	// and the set-up commands the generated files name for people (init,
	// uninit) after them.
	var work, ending, setup []string
	for _, c := range commands {
		switch {
		case strings.HasPrefix(c, "agentlock finish"), strings.HasPrefix(c, "agentlock release"):
			ending = append(ending, c)
		case strings.HasPrefix(c, "agentlock init"), strings.HasPrefix(c, "agentlock uninit"):
			setup = append(setup, c)
		default:
			work = append(work, c)
		}
	}
	ending = append(ending, setup...)
	require.Contains(t, work, "agentlock whoami")
	require.Contains(t, work, "agentlock acquire src/mine.txt")
	require.Contains(t, ending, "agentlock finish")
	t.Logf("%d commands from %d texts: %q", len(commands), len(texts), commands)

	steps := slices.Clone(start)
	for _, c := range work {
		steps = append(steps, fakeagent.Step{Shell: c, Env: a.shellEnv})
	}
	// The agent edits the file it locked: its own hook lets it.
	steps = append(steps, fakeagent.Step{Hook: hooks["pre-edit"], Payload: payload("PreToolUse", a.edit(abs, "src/mine.txt")), Env: a.hookEnv})
	// Another session may not take it.
	steps = append(steps, fakeagent.Step{Shell: "agentlock acquire src/mine.txt", Env: []string{"AGENTLOCK_SESSION=intruder-1"}})
	steps = append(steps, fakeagent.Step{Shell: "agentlock status --json"})
	for _, c := range ending {
		steps = append(steps, fakeagent.Step{Shell: c, Env: a.shellEnv})
	}
	results := runFakeAgent(t, h, fake, project, env, wrapped, steps)
	require.Len(t, results, len(steps), "every step ran")

	n := len(start)
	var whoami string
	for _, c := range work {
		res := results[n]
		n++
		if !assert.Equal(t, 0, res.Code, "%s, as written in the instructions:\nstdout: %s\nstderr: %s", c, res.Stdout, res.Stderr) {
			continue
		}
		if c == "agentlock whoami" {
			whoami = strings.Fields(res.Stdout)[0]
		}
	}
	edit := results[n]
	n++
	assert.Equal(t, 0, edit.Code, "the pre-edit hook lets the agent edit the file it locked:\nstdout: %s\nstderr: %s", edit.Stdout, edit.Stderr)
	assert.NotContains(t, edit.Stdout, "deny", "the pre-edit hook does not deny the agent its own file")
	intruder := results[n]
	n++
	assert.Equal(t, 1, intruder.Code, "another session is refused the agent's file: %+v", intruder)
	status := results[n]
	n++
	require.Equal(t, 0, status.Code, "%+v", status)
	owners := map[string]string{} // path -> holder
	for _, line := range strings.Split(strings.TrimSpace(status.Stdout), "\n") {
		var rec struct {
			Path      string `json:"path"`
			SessionID string `json:"session_id"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &rec), "status --json line %q", line)
		if rec.SessionID != "" {
			owners[rec.Path] = rec.SessionID
		}
	}
	require.NotEmpty(t, whoami)
	assert.Equal(t, whoami, owners[abs], "the file is held by the id whoami printed, which the hook used too")
	for path, owner := range owners {
		assert.Equal(t, whoami, owner, "%s is held by the agent's one session", path)
	}
	if !wrapped {
		// The id the harness gave its hooks, with nothing typed, in
		// Gemini's and Kimi's shells too (found through the agent process
		// the session-start hook recorded).
		assert.Equal(t, a.name+"-"+a.harnessID, whoami)
	}
	if wrapped {
		assert.True(t, strings.HasPrefix(whoami, a.name+"-"), "under the wrapper the wrapper's id wins: %s", whoami)
		assert.NotContains(t, whoami, a.harnessID, "under the wrapper the wrapper's id wins: %s", whoami)
	}
	for _, c := range ending {
		res := results[n]
		n++
		assert.Equal(t, 0, res.Code, "%s, as written in the instructions:\nstdout: %s\nstderr: %s", c, res.Stdout, res.Stderr)
	}
}

// contextText is the text of a session-start hook's output: the strings of
// its JSON (Claude's and Codex's additionalContext, say), or the output
// itself when it is plain text.
func contextText(out string) string {
	var v any
	if json.Unmarshal([]byte(out), &v) != nil {
		return out
	}
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			b.WriteString(x)
			b.WriteByte('\n')
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return b.String()
}

// runFakeAgent runs the steps under a stand-in harness process started in
// project — through the agent's wrapper script when wrapped — and returns
// what each step did.
func runFakeAgent(t *testing.T, h *proctest.Harness, fake, project string, env []string, wrapped bool, steps []fakeagent.Step) []fakeagent.Result {
	t.Helper()
	var in strings.Builder
	for _, s := range steps {
		data, err := json.Marshal(s)
		require.NoError(t, err)
		in.Write(data)
		in.WriteByte('\n')
	}
	c := proctest.Cmd{Env: env, Dir: project, Stdin: in.String()}
	bin := fake
	if wrapped {
		wrappers, err := filepath.Glob(filepath.Join(project, "scripts", "agentlock-*"))
		require.NoError(t, err)
		require.Len(t, wrappers, 1, "init writes one wrapper script")
		bin = wrappers[0]
		c.Env = append(append([]string{}, env...), "AGENTLOCK_AGENT_COMMAND="+fake)
	}
	r := proctest.Run(t, bin, c)
	require.Equal(t, 0, r.Code, "the fake agent: %s", r)
	var out []fakeagent.Result
	for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		if line == "" {
			continue
		}
		var res fakeagent.Result
		require.NoError(t, json.Unmarshal([]byte(line), &res), "fake agent output %q", line)
		require.Empty(t, res.Error, "step %+v", res.Step)
		out = append(out, res)
	}
	return out
}

// generatedTexts reads every text an agent may follow: the files init
// wrote (instructions, rules, skills), the protocol block of registry.md,
// and, user-wide, Kimi's instructions.
func generatedTexts(t *testing.T, project, home string) map[string]string {
	t.Helper()
	texts := map[string]string{}
	for _, root := range []string{project, home} {
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == ".git" {
				return filepath.SkipDir
			}
			if d.IsDir() || !strings.HasSuffix(p, ".md") {
				return nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			texts[p] = string(data)
			return nil
		})
		require.NoError(t, err)
	}
	root, err := os.ReadFile(filepath.Join("..", "..", "SKILL.md"))
	require.NoError(t, err)
	texts["SKILL.md"] = string(root)
	// The README's examples, which agents read too: its command blocks
	// (its prose names commands for people, placeholders included).
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	require.NoError(t, err)
	texts["README.md"] = "```" + strings.Join(fencedBlocks(string(readme)), "```\n```") + "```"
	require.Contains(t, texts, filepath.Join(project, ".agent-registry", "registry.md"))
	return texts
}

var (
	codeSpan  = regexp.MustCompile("`(agentlock [^`]+)`")
	fenceLine = regexp.MustCompile(`(?m)^\s*(agentlock [^#\n]+?)\s*(#.*)?$`)
	leftover  = regexp.MustCompile(`<[^>]+>`)
)

// instructedCommands extracts, in a stable order and once each, every
// agentlock command of the texts, with their placeholders filled in. A
// placeholder the test does not know fails the test: a text must not ask
// an agent for something it cannot know.
func instructedCommands(t *testing.T, texts map[string]string) []string {
	t.Helper()
	seen := map[string]bool{}
	var out []string
	keys := make([]string, 0, len(texts))
	for k := range texts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	// Longest placeholders first.
	names := make([]string, 0, len(placeholders))
	for k := range placeholders {
		names = append(names, k)
	}
	sort.Slice(names, func(i, j int) bool { return len(names[i]) > len(names[j]) })
	for _, k := range keys {
		var found []string
		for _, m := range codeSpan.FindAllStringSubmatch(texts[k], -1) {
			found = append(found, m[1])
		}
		for _, block := range fencedBlocks(texts[k]) {
			for _, m := range fenceLine.FindAllStringSubmatch(block, -1) {
				found = append(found, m[1])
			}
		}
		for _, c := range found {
			c = strings.TrimSpace(c)
			for _, p := range names {
				c = strings.ReplaceAll(c, p, placeholders[p])
			}
			if l := leftover.FindString(c); l != "" {
				t.Errorf("%s: the command %q asks for %s, which an agent cannot fill in", k, c, l)
				continue
			}
			if !seen[c] {
				seen[c] = true
				out = append(out, c)
			}
		}
	}
	return out
}

// fencedBlocks returns the contents of the ``` blocks of a Markdown text.
func fencedBlocks(text string) []string {
	var blocks []string
	parts := strings.Split(text, "```")
	for i := 1; i < len(parts); i += 2 {
		blocks = append(blocks, parts[i])
	}
	return blocks
}

// hookCommands returns, by event, the command line that the agent's
// installed hook configuration runs, read from the files init wrote.
func hookCommands(t *testing.T, agent, project, home string) map[string]string {
	t.Helper()
	cmds := map[string]string{}
	collect := func(v any) {
		var walk func(any)
		walk = func(v any) {
			switch x := v.(type) {
			case map[string]any:
				for k, e := range x {
					if s, ok := e.(string); ok && (k == "command" || k == "bash") { // bash: Copilot's
						for _, ev := range []string{"session-start", "pre-edit", "renew", "session-end"} {
							if strings.Contains(s, "hook "+agent+" "+ev) {
								cmds[ev] = s
							}
						}
					}
					walk(e)
				}
			case []any:
				for _, e := range x {
					walk(e)
				}
			}
		}
		walk(v)
	}
	for _, root := range []string{project, home} {
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			var v any
			switch filepath.Ext(p) {
			case ".js":
				// A plugin (OpenCode's): the command it spawns for each event it names.
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				bin := regexp.MustCompile(`const bin = "([^"]+)";`).FindSubmatch(data)
				if bin == nil || !strings.Contains(string(data), `["hook", "`+agent+`", event]`) {
					return nil
				}
				for _, ev := range []string{"session-start", "pre-edit", "renew", "session-end"} {
					if strings.Contains(string(data), `hook("`+ev+`"`) {
						cmds[ev] = string(bin[1]) + " hook " + agent + " " + ev
					}
				}
				return nil
			case "":
				// Cline: one executable per event, run as it is.
				if filepath.Base(filepath.Dir(p)) == "hooks" && filepath.Base(filepath.Dir(filepath.Dir(p))) == ".clinerules" {
					data, err := os.ReadFile(p)
					if err != nil {
						return err
					}
					for _, ev := range []string{"session-start", "pre-edit", "renew", "session-end"} {
						if strings.Contains(string(data), "hook "+agent+" "+ev+"\n") {
							cmds[ev] = p
						}
					}
				}
				return nil
			case ".ts":
				// Pi's extension spawns agentlock hook <agent> <event>, the
				// payload on stdin: the command it runs.
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				if strings.Contains(string(data), `spawnSync("agentlock", ["hook", "`+agent+`", event]`) {
					for _, ev := range []string{"session-start", "pre-edit", "renew", "session-end"} {
						if strings.Contains(string(data), `hook("`+ev+`"`) {
							cmds[ev] = "agentlock hook " + agent + " " + ev
						}
					}
				}
				return nil
			case ".json":
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				if json.Unmarshal(data, &v) != nil {
					return nil
				}
			case ".toml":
				data, err := os.ReadFile(p)
				if err != nil {
					return err
				}
				if toml.Unmarshal(data, &v) != nil {
					return nil
				}
			default:
				return nil
			}
			collect(v)
			return nil
		})
		require.NoError(t, err)
	}
	return cmds
}
