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
