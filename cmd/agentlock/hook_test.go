package main_test

// Hook scenarios that a script cannot say: hooks of every harness racing
// for one file behind a barrier, and the hook command written into a
// harness's settings run by a shell with and without agentlock on PATH. The
// others are the scripts in testdata/script/hook.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// Realistic hook payloads, in the shapes the harnesses document (see
// ../shared/research/harnesses.md): fields agentlock does not read are kept
// so that the decoder meets them.
func claudeEdit(session, cwd, file string) string {
	return fmt.Sprintf(`{"session_id":%q,"transcript_path":"/home/u/.claude/projects/x/%s.jsonl","cwd":%q,
"permission_mode":"default","hook_event_name":"PreToolUse","tool_name":"Edit","tool_use_id":"toolu_01",
"tool_input":{"file_path":%q,"old_string":"a","new_string":"b","replace_all":false}}`, session, session, cwd, file)
}

// qwenEdit is Qwen Code's PreToolUse payload of its edit tool.
func qwenEdit(session, cwd, file string) string {
	return fmt.Sprintf(`{"session_id":%q,"transcript_path":"/home/u/.qwen/projects/x/chats/%s.jsonl","cwd":%q,
"hook_event_name":"PreToolUse","timestamp":"2026-12-01T00:00:00Z","permission_mode":"yolo","prompt_id":"p1",
"tool_name":"edit","tool_use_id":"call_1","tool_call_id":"call_1",
"tool_input":{"file_path":%q,"old_string":"a","new_string":"b"}}`, session, session, cwd, file)
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

// copilotEdit is a camelCase preToolUse payload of Copilot CLI: toolArgs
// parsed (edit, create) or the raw patch text (apply_patch).
func copilotEdit(session, cwd, tool string, args any) string {
	return fmt.Sprintf(`{"sessionId":%q,"timestamp":1764626400000,"cwd":%q,"toolName":%q,"toolArgs":%s}`,
		session, cwd, tool, mustJSON(args))
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
	p.env = append(p.env, teamStore(t)...)
	requireExit(t, 0, p.run("init"))
	for _, f := range []string{"src/a.go", "src/b.go", "src/c.go", "notes/n.ipynb"} {
		p.write(f, "x\n")
	}
	return p
}

// requireDenied checks the denial contract of agent's harness: for
// claude, codex, gemini and copilot, exit 0 and their structured deny as
// the one line on stdout (the model reads only its reason); for kimi, exit 2,
// nothing on stdout, one line on stderr. The reason names the holder.
func requireDenied(t *testing.T, agent string, r proctest.Result, holder string) {
	t.Helper()
	reason := deniedReason(t, agent, r)
	require.NotEmpty(t, reason, "not a denial: %s", r)
	assert.NotContains(t, reason, "\n", "one line")
	assert.True(t, strings.HasPrefix(reason, "agentlock: "), "agentlock's line and nothing else: %q", reason)
	assert.Contains(t, reason, holder, "the holder is named")
	assert.Contains(t, reason, "Do not work around this", "the model is told what to do")
}

// deniedReason returns the reason of agent's denial in r, or "" when r
// is not a denial (an allowed edit: exit 0, nothing on stdout).
func deniedReason(t *testing.T, agent string, r proctest.Result) string {
	t.Helper()
	if agent == "kimi" || agent == "crush" {
		if r.Code == 0 {
			return ""
		}
		requireExit(t, 2, r)
		assert.Empty(t, r.Stdout, "a denial prints nothing on stdout")
		assert.Equal(t, 1, strings.Count(r.Stderr, "\n"), "one line on stderr: %q", r.Stderr)
		return strings.TrimSuffix(r.Stderr, "\n")
	}
	requireExit(t, 0, r)
	if r.Stdout == "" {
		return ""
	}
	require.Equal(t, 1, strings.Count(r.Stdout, "\n"), "one line of JSON on stdout: %q", r.Stdout)
	var out struct {
		Specific map[string]string `json:"hookSpecificOutput"`
		Decision string            `json:"decision"`
		Reason   string            `json:"reason"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &out), r.Stdout)
	if agent == "gemini" {
		require.Equal(t, "deny", out.Decision, r.Stdout)
		return out.Reason
	}
	if agent == "copilot" {
		var flat map[string]string
		require.NoError(t, json.Unmarshal([]byte(r.Stdout), &flat), r.Stdout)
		require.Equal(t, "deny", flat["permissionDecision"], r.Stdout)
		return flat["permissionDecisionReason"]
	}
	require.Equal(t, "PreToolUse", out.Specific["hookEventName"], r.Stdout)
	require.Equal(t, "deny", out.Specific["permissionDecision"], r.Stdout)
	return out.Specific["permissionDecisionReason"]
}

// Hooks of different harnesses and sessions race for one file: exactly one
// wins, every other is denied.
func TestHookRaceOneWinner(t *testing.T) {
	p := hookProject(t)
	a := filepath.Join(p.dir, "src/a.go")
	for round := range raceRounds() {
		var cmds []proctest.Cmd
		for i := range 18 {
			var payload, agent string
			switch i % 6 {
			case 0:
				agent, payload = "claude", claudeEdit(fmt.Sprintf("r%d-%d", round, i), p.dir, a)
			case 1:
				agent, payload = "codex", codexPatch(fmt.Sprintf("r%d-%d", round, i), p.dir, "*** Update File: src/a.go\n")
			case 2:
				agent, payload = "gemini", geminiWrite(fmt.Sprintf("r%d-%d", round, i), p.dir, "src/a.go")
			case 3:
				agent, payload = "copilot", copilotEdit(fmt.Sprintf("r%d-%d", round, i), p.dir, "apply_patch",
					"*** Begin Patch\n*** Update File: src/a.go\n@@\n-x\n+y\n*** End Patch\n")
			case 4:
				agent, payload = "qwen", qwenEdit(fmt.Sprintf("r%d-%d", round, i), p.dir, a)
			default:
				agent, payload = "kimi", kimiWrite(fmt.Sprintf("r%d-%d", round, i), p.dir, "src/a.go")
			}
			cmds = append(cmds, proctest.Cmd{Args: []string{"hook", agent, "pre-edit"}, Env: p.env, Dir: p.dir, Stdin: payload})
		}
		winners := 0
		for i, r := range harness(t).Race(t, cmds) {
			agent := cmds[i].Args[1]
			if reason := deniedReason(t, agent, r); reason == "" {
				winners++
			} else {
				assert.Contains(t, reason, "Do not work around this", "%s denied for the holder", agent)
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
	command := p.hookCommand(".gemini/settings.json", "BeforeTool")
	require.Contains(t, command, "agentlock hook gemini pre-edit")

	bin := t.TempDir()
	require.NoError(t, os.Symlink(harness(t).Bin, filepath.Join(bin, "agentlock")))
	run := func(path, payload string) proctest.Result {
		return proctest.Run(t, "sh", proctest.Cmd{Args: []string{"-c", command}, Env: append(append([]string{}, p.env...), "PATH="+path), Dir: p.dir, Stdin: payload})
	}
	requireExit(t, 0, run(bin+":/usr/bin:/bin", geminiWrite("g1", p.dir, "src/a.go")))
	requireDenied(t, "gemini", run(bin+":/usr/bin:/bin", geminiWrite("g2", p.dir, "src/a.go")), "gemini-g1")
	r := run("/usr/bin:/bin", geminiWrite("g2", p.dir, "src/a.go"))
	requireExit(t, 0, r)
	assert.Empty(t, r.Stdout+r.Stderr, "without agentlock the hook does nothing, silently (init warns)")
}

// No text of the hook command can reach the model as if it were a denial:
// Claude Code shows the whole command line of a hook that exits 2, so the
// command holds no sentence (the not-on-PATH fallback is silent), and a
// denial is the structured one, exit 0. A hook of every harness written by
// init is checked.
func TestGeneratedHookCommandsLeakNoFallbackText(t *testing.T) {
	p := hookProject(t)
	requireExit(t, 0, p.run("init", "--agent", "claude", "--agent", "codex", "--agent", "gemini"))
	for _, file := range []string{".claude/settings.json", ".codex/hooks.json", ".gemini/settings.json"} {
		var settings struct {
			Hooks map[string][]struct {
				Hooks []struct{ Command string } `json:"hooks"`
			} `json:"hooks"`
		}
		require.NoError(t, json.Unmarshal([]byte(p.read(file)), &settings), file)
		require.NotEmpty(t, settings.Hooks, file)
		for event, groups := range settings.Hooks {
			for _, g := range groups {
				for _, h := range g.Hooks {
					assert.NotContains(t, h.Command, "echo", "%s %s: a message in the command line reaches the model on exit 2", file, event)
					assert.NotContains(t, h.Command, "PATH", "%s %s", file, event)
				}
			}
		}
	}

	// Claude's own command line, run by a shell as Claude runs it.
	command := p.hookCommand(".claude/settings.json", "PreToolUse")
	bin := t.TempDir()
	require.NoError(t, os.Symlink(harness(t).Bin, filepath.Join(bin, "agentlock")))
	run := func(payload string) proctest.Result {
		return proctest.Run(t, "sh", proctest.Cmd{Args: []string{"-c", command}, Env: append(append([]string{}, p.env...), "PATH="+bin+":/usr/bin:/bin"), Dir: p.dir, Stdin: payload})
	}
	a := filepath.Join(p.dir, "src/a.go")
	require.Empty(t, deniedReason(t, "claude", run(claudeEdit("c1", p.dir, a))))
	r := run(claudeEdit("c2", p.dir, a))
	requireDenied(t, "claude", r, "claude-c1")
	assert.Empty(t, r.Stderr, "nothing but the structured denial")
}

// Whatever the limit on file descriptors, a pre-edit hook never lets an
// edit through without holding the lock: with too few it denies (or, when
// even the Go runtime cannot start, fails with exit 2, which every harness
// takes as a denial); with enough it allows and holds the lock.
func TestHookWithFewFileDescriptorsNeverAllowsUnlocked(t *testing.T) {
	p := hookProject(t)
	file := filepath.Join(p.dir, "src", "a.go")
	allowed, denied := 0, 0
	for limit := 4; limit <= 16; limit++ {
		r := proctest.Run(t, "/bin/sh", proctest.Cmd{
			Env: p.env, Dir: p.dir, Stdin: claudeEdit("s1", p.dir, file),
			Args: []string{"-c", fmt.Sprintf("ulimit -n %d; exec agentlock hook claude pre-edit", limit)},
		})
		owner := p.owner("src/a.go")
		switch {
		case r.Code == 0 && r.Stdout == "":
			allowed++
			assert.Equal(t, "claude-s1", owner, "ulimit -n %d: the edit was allowed without the lock: %s", limit, r)
		case r.Code == 0:
			denied++
			assert.Contains(t, r.Stdout, `"permissionDecision":"deny"`, "ulimit -n %d: %s", limit, r)
		default:
			denied++
			assert.Equal(t, 2, r.Code, "ulimit -n %d: a failure is exit 2, a denial for every harness: %s", limit, r)
		}
		requireExit(t, 0, p.run("release", "src/a.go", "--session", "claude-s1"))
	}
	assert.NotZero(t, denied, "some limit is too low to check the edit")
	assert.NotZero(t, allowed, "some limit is enough")
}

// An edit inside another session's area is denied by the hook of every
// harness, naming the area and its holder; inside the session's own area
// it goes through.
func TestHookDeniesAnEditInsideAnotherSessionsArea(t *testing.T) {
	p := hookProject(t)
	requireExit(t, 0, p.run("acquire", "--session", "area-holder", "src/"))
	a := filepath.Join(p.dir, "src/a.go")
	payloads := map[string]string{
		"claude": claudeEdit("c1", p.dir, a),
		"codex":  codexPatch("x1", p.dir, "*** Update File: src/a.go\n"),
		"gemini": geminiWrite("g1", p.dir, "src/a.go"),
		"kimi":   kimiWrite("k1", p.dir, "src/a.go"),
	}
	for _, agent := range []string{"claude", "codex", "gemini", "kimi"} {
		t.Run(agent, func(t *testing.T) {
			r := harness(t).Run(t, proctest.Cmd{Args: []string{"hook", agent, "pre-edit"}, Env: p.env, Dir: p.dir, Stdin: payloads[agent]})
			requireDenied(t, agent, r, "area-holder")
			assert.Contains(t, deniedReason(t, agent, r), "inside area "+filepath.Join(p.dir, "src")+"/", "the area is named")
			assert.Empty(t, p.owner("src/a.go"), "nothing taken")
		})
	}
	// The holder's own edit inside its area goes through, and locks the file.
	r := harness(t).Run(t, proctest.Cmd{Args: []string{"hook", "claude", "pre-edit"}, Env: append(slices.Clone(p.env), "AGENTLOCK_SESSION=area-holder"), Dir: p.dir, Stdin: claudeEdit("c1", p.dir, a)})
	require.Empty(t, deniedReason(t, "claude", r), "%s", r)
	require.Equal(t, "area-holder", p.owner("src/a.go"))
}
