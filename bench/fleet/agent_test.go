package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// hookSettings is a CLI's settings file with one command hook per event
// (matcher "*": every tool).
func hookSettings(t *testing.T, c *cli, commands map[string]string) []byte {
	t.Helper()
	groups := map[string]any{}
	for event, command := range commands {
		groups[event] = []any{map[string]any{"matcher": "*", "hooks": []any{
			map[string]any{"type": "command", "command": command, "timeout": 30 * time.Second / c.timeoutUnit}}}}
	}
	data, err := json.Marshal(map[string]any{"hooks": groups})
	require.NoError(t, err)
	return data
}

// runOneAgent runs one agent in process against dir, with the hooks in
// settings, and returns its log.
func runOneAgent(t *testing.T, c *cli, dir string, settings []byte, k Knobs) []record {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, filepath.Dir(c.settings)), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, c.settings), settings, 0o644))
	var files []string
	for i := range k.Files {
		rel := filepath.Join("src", "f0"+string(rune('0'+i))+".txt")
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "src"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, rel), startContent(i, 100), 0o644))
		files = append(files, rel)
	}
	home := t.TempDir()
	spec, err := json.Marshal(agentSpec{CLI: c.name, Dir: dir, Home: home, Files: files, Knobs: k, Hooks: true,
		Env: []string{"PATH=/usr/bin:/bin", "HOME=" + home, "LANG=C"}})
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, runAgent(t.Context(), string(spec), strings.NewReader(""), &out))
	var log []record
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		var r record
		require.NoError(t, json.Unmarshal([]byte(line), &r), line)
		log = append(log, r)
	}
	return log
}

// The agent fires every event its CLI's settings configure, in the CLI's
// order, with the CLI's payload shapes, tool names and environment — turn
// starts and ends included, which init does not configure today.
func TestAgentFiresWhatTheSettingsConfigure(t *testing.T) {
	for _, c := range clis() {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			events := filepath.Join(dir, "events.log")
			record := `{ printf '{"env":"%s","payload":' "${CLAUDE_CODE_SESSION_ID:-}${GEMINI_SESSION_ID:-}"; tr -d '\n'; echo '}'; } >> ` + events
			commands := map[string]string{}
			for _, e := range []string{c.ev.sessionStart, c.ev.turnStart, c.ev.preTool, c.ev.postTool, c.ev.turnEnd, c.ev.sessionEnd} {
				commands[e] = record
			}
			k := small()
			k.Agents, k.Think, k.Step = 1, 0, 0
			log := runOneAgent(t, c, dir, hookSettings(t, c, commands), k)

			data, err := os.ReadFile(events)
			require.NoError(t, err)
			var got []string
			var session string
			for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
				var rec struct {
					Env     string
					Payload map[string]any
				}
				require.NoError(t, json.Unmarshal([]byte(line), &rec), line)
				p := rec.Payload
				name, _ := p["hook_event_name"].(string)
				if tool, ok := p["tool_name"].(string); ok {
					name += " " + tool
				}
				got = append(got, name)
				id, _ := p["session_id"].(string)
				if session == "" {
					session = id
				}
				assert.Equal(t, session, id, "one session id in every payload")
				assert.Equal(t, dir, p["cwd"])
				if c.name != "codex" {
					assert.Equal(t, session, rec.Env, "the CLI's session variable in the hook's environment")
				}
			}
			want := map[string][]string{
				"claude": {"SessionStart", "UserPromptSubmit", "PreToolUse Read", "PostToolUse Read", "PreToolUse Write", "PostToolUse Write", "Stop", "SessionEnd"},
				"gemini": {"SessionStart", "BeforeAgent", "BeforeTool read_file", "AfterTool read_file", "BeforeTool write_file", "AfterTool write_file", "AfterAgent", "SessionEnd"},
				"codex":  {"SessionStart", "UserPromptSubmit", "PreToolUse Bash", "PostToolUse Bash", "PreToolUse apply_patch", "PostToolUse apply_patch", "Stop", "SessionEnd"},
			}[c.name]
			assert.Equal(t, want, got)
			assert.Contains(t, string(data), "fleet-token a00 s00 t00 e00", "the write's payload carries the new line")
			if c.name == "codex" {
				assert.Contains(t, string(data), `*** Add File: src/f00.txt\n+# fleet file 00`, "Codex writes the whole file with Add File")
			}
			content, err := os.ReadFile(filepath.Join(dir, "src", "f00.txt"))
			require.NoError(t, err)
			assert.Contains(t, string(content), "fleet-token a00 s00 t00 e00")
			assert.Equal(t, 1, count(log, "write"))
		})
	}
}

// A model told its file changed since it read it reads it again and redoes
// its change; told that someone holds it, it makes its other edit first
// and comes back.
func TestAgentActsOnTheReason(t *testing.T) {
	c := claudeCode()
	deny := func(marker, reason string) string {
		answer, _ := json.Marshal(map[string]any{"hookSpecificOutput": map[string]any{
			"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": reason}})
		// Deny the first write of src/f00.txt only.
		return `p=$(cat); case "$p" in *'"tool_name":"Write"'*) ;; *) exit 0;; esac; case "$p" in *f00.txt*) ;; *) exit 0;; esac; ` +
			`[ -e ` + marker + ` ] && exit 0; : > ` + marker + `; printf '%s' '` + string(answer) + `'`
	}
	t.Run("stale", func(t *testing.T) {
		dir := t.TempDir()
		k := small()
		k.Agents, k.Think, k.Step = 1, 0, 0
		log := runOneAgent(t, c, dir, hookSettings(t, c, map[string]string{
			"PreToolUse": deny(filepath.Join(dir, "denied"), "agentlock: src/f00.txt changed since you read it (by session x): read it again, then redo your change."),
		}), k)
		assert.Equal(t, []string{"read f00", "refusal stale", "redo", "read f00", "write f00"}, story(log))
	})
	t.Run("held", func(t *testing.T) {
		dir := t.TempDir()
		k := small()
		k.Agents, k.Files, k.Edits, k.Think, k.Step = 1, 2, 2, 0, 0
		log := runOneAgent(t, c, dir, hookSettings(t, c, map[string]string{
			"PreToolUse": deny(filepath.Join(dir, "denied"), "agentlock: src/f00.txt is locked by session claude-x (renewed 0s ago), so you (claude-y) must not edit it now. "+
				"Do not work around this: work on another file, wait with `agentlock acquire --wait 90s src/f00.txt`, or ask claude-x."),
			"PostToolUse": "true",
		}), k)
		s := story(log)
		require.Contains(t, s, "refusal held")
		// The refused write comes back after the other file's, unread.
		i := indexOf(s, "refusal held")
		assert.Equal(t, []string{"read f01", "write f01", "write f00"}, s[i+1:])
	})
}

// story is an agent's log as a list of what the model did: reads,
// writes, refusals and redos.
func story(log []record) []string {
	var s []string
	for _, r := range log {
		switch r.Kind {
		case "read", "write":
			s = append(s, r.Kind+" "+strings.TrimSuffix(filepath.Base(r.File), ".txt"))
		case "refusal":
			s = append(s, "refusal "+r.Class)
		case "redo":
			s = append(s, "redo")
		}
	}
	return s
}

func count(log []record, kind string) int {
	n := 0
	for _, r := range log {
		if r.Kind == kind {
			n++
		}
	}
	return n
}

func indexOf(s []string, v string) int {
	for i, x := range s {
		if x == v {
			return i
		}
	}
	return -1
}

func TestClassifyRefusals(t *testing.T) {
	for reason, want := range map[string]string{
		"agentlock: /r/a.txt is locked by session claude-s1 (renewed 0s ago), so you (claude-s2) must not edit it now. Do not work around this: work on another file, wait with `agentlock acquire --wait 90s /r/a.txt`, or ask claude-s1.": "held",
		"File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.":                                                                                                                "stale",
		"agentlock: a.txt changed since you read it (session claude-s1 wrote it 3s ago): read it again, then redo your change; the file is now reserved for you.":                                                                           "stale",
		"agentlock: could not check the lock": "other",
	} {
		assert.Equal(t, want, classify(reason), reason)
	}
	assert.Equal(t, "agentlock acquire --wait 90s /r/a.txt", waitCommand("… wait with `agentlock acquire --wait 90s /r/a.txt`, or ask x."))
	assert.Empty(t, waitCommand("held by x: work on another file"))
	assert.Equal(t, "agentlock acquire --wait 3s /r/a.txt", capWait("agentlock acquire --wait 90s /r/a.txt", 3*time.Second))
	assert.Equal(t, "agentlock acquire --wait 3s 'a b'", capWait("agentlock acquire --wait 90 'a b'", 3*time.Second))
	assert.Equal(t, "agentlock acquire --wait 2s a", capWait("agentlock acquire --wait 2s a", 3*time.Second))
}

// A hook's matcher is a regular expression over the whole tool name; an
// empty or "*" matcher, or an event without a tool, matches everything.
func TestHookMatchers(t *testing.T) {
	dir := t.TempDir()
	c := geminiCLI()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".gemini"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, c.settings), []byte(`{"hooks":{
"BeforeTool":[{"matcher":"write_file|replace","hooks":[{"type":"command","command":"a","timeout":1500}]}],
"AfterTool":[{"matcher":".*","hooks":[{"type":"command","command":"b"}]}],
"AfterAgent":[{"hooks":[{"type":"command","command":"c"}]}]}}`), 0o644))
	cfg, err := loadHooks(c, dir)
	require.NoError(t, err)
	assert.Len(t, cfg.matching("BeforeTool", "write_file"), 1)
	assert.Empty(t, cfg.matching("BeforeTool", "write_files"))
	assert.Empty(t, cfg.matching("BeforeTool", "read_file"))
	assert.Len(t, cfg.matching("AfterTool", "read_file"), 1)
	assert.Len(t, cfg.matching("AfterAgent", ""), 1)
	assert.Equal(t, 1500*time.Millisecond, cfg["BeforeTool"][0].timeout, "Gemini's timeouts are in milliseconds")
	assert.Equal(t, defaultHookTimeout, cfg["AfterTool"][0].timeout)
	none, err := loadHooks(claudeCode(), dir)
	require.NoError(t, err)
	assert.Empty(t, none, "no settings file: no hooks")
}

func TestHoldTimesAndPercentiles(t *testing.T) {
	t0 := time.Unix(1000, 0)
	at := func(ms int, held ...string) sample {
		s := sample{at: t0.Add(time.Duration(ms) * time.Millisecond), held: map[string]bool{}}
		for _, h := range held {
			s.held[h] = true
		}
		return s
	}
	holds := holdTimes([]sample{at(0), at(100, "a"), at(200, "a", "b"), at(300, "b"), at(400), at(500, "a")})
	assert.ElementsMatch(t, []float64{200, 200, 0}, holds, "a: 100→300; b: 200→400; a again, still held at the end")
	assert.Equal(t, 0.0, percentile(nil, 50))
	v := []float64{5, 1, 4, 2, 3}
	assert.Equal(t, 3.0, percentile(v, 50))
	assert.Equal(t, 5.0, percentile(v, 99))
	assert.Equal(t, 1.0, percentile(v, 1))
}
