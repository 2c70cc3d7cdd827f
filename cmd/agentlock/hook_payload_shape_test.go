package main_test

// The hook policy for payloads that are odd but still name the edited
// path: a cwd that does not exist or is not a string, a call that names no
// tool. Every agent's payload shape takes the same path — once the edited
// path is absolute and held by another session, the edit is denied.

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/integrations/all"
	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// editPayload builds an agent's pre-edit payload in its harness's shape:
// session id, cwd (any JSON value, nil to leave it out), tool name ("" to
// leave it out) and the one edited file.
type editPayload func(session string, cwd any, tool, file string) string

// payloadObject is a JSON object whose nil members are left out.
func payloadObject(members map[string]any) string {
	for k, v := range members {
		if v == nil || v == "" {
			delete(members, k)
		}
	}
	return mustJSON(members)
}

// editShapes are the payloads of every built-in agent's edit tool, and the
// tool's name.
var editShapes = map[string]struct {
	tool  string
	build editPayload
}{
	"claude":   {"Edit", claudeLike("file_path")},
	"qwen":     {"write_file", claudeLike("file_path")},
	"droid":    {"Create", claudeLike("file_path")},
	"crush":    {"edit", claudeLike("file_path")},
	"gemini":   {"write_file", claudeLike("file_path")},
	"kimi":     {"WriteFile", claudeLike("path")},
	"pi":       {"write", claudeLike("path")},
	"opencode": {"write", claudeLike("filePath")},
	"kilo":     {"write", claudeLike("filePath")},
	"codex": {"apply_patch", func(session string, cwd any, tool, file string) string {
		patch := "*** Begin Patch\n*** Update File: " + file + "\n@@\n-x\n+y\n*** End Patch\n"
		return payloadObject(map[string]any{"session_id": session, "cwd": cwd, "hook_event_name": "PreToolUse",
			"tool_name": tool, "tool_input": map[string]any{"command": patch}})
	}},
	"copilot": {"edit", func(session string, cwd any, tool, file string) string {
		return payloadObject(map[string]any{"sessionId": session, "cwd": cwd, "timestamp": 1764626400002,
			"toolName": tool, "toolArgs": map[string]any{"path": file, "old_str": "x", "new_str": "y"}})
	}},
	"cursor": {"Write", func(session string, cwd any, tool, file string) string {
		return payloadObject(map[string]any{"conversation_id": session, "cwd": cwd, "hook_event_name": "preToolUse",
			"tool_name": tool, "tool_input": map[string]any{"file_path": file, "content": "y"}})
	}},
	"cline": {"editor", func(session string, cwd any, tool, file string) string {
		call := map[string]any{"input": map[string]any{"command": "create", "path": file, "file_text": "y"}}
		if tool != "" {
			call["name"] = tool
		}
		var roots any
		if cwd != nil {
			roots = []any{cwd}
		}
		return payloadObject(map[string]any{"taskId": session, "hookName": "PreToolUse", "workspaceRoots": roots, "tool_call": call})
	}},
}

// claudeLike is Claude Code's payload shape, the edited file in
// tool_input's member field.
func claudeLike(field string) editPayload {
	return func(session string, cwd any, tool, file string) string {
		return payloadObject(map[string]any{"session_id": session, "cwd": cwd, "hook_event_name": "PreToolUse",
			"tool_name": tool, "tool_input": map[string]any{field: file, "content": "y"}})
	}
}

// The payload (docs/integrations/README.md's hook policy): a cwd
// that does not exist, or that is no string, and a call that names no tool
// leave the absolute path of the edit known, so the pre-edit hook of every
// agent checks it and denies it when another session holds it. The hook
// runs from a folder outside the project, as a user-level hook may.
func TestHookDeniesAHeldPathWhateverTheCwd(t *testing.T) {
	p := hookProject(t)
	held := filepath.Join(p.dir, "src/a.go")
	requireExit(t, 0, p.run("acquire", "--session", "claude-aaa", held))
	elsewhere := realTempDir(t)

	// Every built-in agent has a shape here: a new agent must be added.
	for _, name := range all.Names() {
		require.Contains(t, editShapes, name, "the payload shape of agent %s", name)
	}
	cwds := map[string]any{
		"the project":    p.dir,
		"missing folder": "/nonexistent/dir",
		"number":         5,
		"object":         map[string]any{"path": p.dir},
		"absent":         nil,
	}
	for _, name := range all.Names() {
		shape := editShapes[name]
		for cwdName, cwd := range cwds {
			for _, tool := range []string{shape.tool, ""} {
				t.Run(fmt.Sprintf("%s/cwd %s/tool %q", name, cwdName, tool), func(t *testing.T) {
					payload := shape.build("abc", cwd, tool, held)
					r := harness(t).Run(t, proctest.Cmd{Args: []string{"hook", name, "pre-edit"}, Env: p.env, Dir: elsewhere, Stdin: payload})
					requireHeldDenial(t, r, "claude-aaa", payload)
				})
			}
		}
	}

	// The payload exactly as the issue gives it.
	payload := fmt.Sprintf(`{"session_id":"abc","cwd":"/nonexistent/dir","tool_input":{"file_path":%q}}`, held)
	r := harness(t).Run(t, proctest.Cmd{Args: []string{"hook", "claude", "pre-edit"}, Env: p.env, Dir: elsewhere, Stdin: payload})
	requireHeldDenial(t, r, "claude-aaa", payload)
	assert.Equal(t, "claude-aaa", p.owner("src/a.go"), "the holder keeps its lock")
}

// requireHeldDenial checks that r is a pre-edit denial, in any harness's
// form, naming holder: exit 2, or exit 0 with the denial on stdout (a
// reason on stderr with exit 0 would be only a warning: the edit runs).
func requireHeldDenial(t *testing.T, r proctest.Result, holder, payload string) {
	t.Helper()
	phrase := "locked by session " + holder
	switch r.Code {
	case 0:
		require.Contains(t, r.Stdout, phrase, "exit 0 lets the edit run unless stdout denies it; payload %s: %s", payload, r)
		var out any
		require.NoError(t, json.Unmarshal([]byte(r.Stdout), &out), "a structured denial: %s", r)
	case 2:
		require.Contains(t, r.Stdout+r.Stderr, phrase, "payload %s: %s", payload, r)
	default:
		t.Fatalf("neither allowed nor denied (exit %d); payload %s: %s", r.Code, payload, r)
	}
	assert.False(t, strings.Contains(r.Stderr, "doing nothing"), "no warning that the hook did nothing: %s", r)
}
