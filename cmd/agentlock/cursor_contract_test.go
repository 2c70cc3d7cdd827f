package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/integrations/cursor"
	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// cursorHooks is .cursor/hooks.json as Cursor reads it.
type cursorHooks struct {
	Version int                                            `json:"version"`
	Hooks   map[string][]struct{ Command, Matcher string } `json:"hooks"`
}

// cursorPayload is a preToolUse payload in the shape of Cursor's
// documented hook input (conversation_id, generation_id, hook_event_name,
// workspace_roots, tool_name, tool_input).
func cursorPayload(conversation, root, tool string, input map[string]any) string {
	data, _ := json.Marshal(map[string]any{
		"conversation_id": conversation, "generation_id": "gen-1", "model": "auto", "hook_event_name": "preToolUse",
		"cursor_version": "2026.09.10", "workspace_roots": []string{root}, "user_email": "dev@example.invalid",
		"tool_name": tool, "tool_input": input, "tool_use_id": "tool-1",
	})
	return string(data)
}

// The hooks.json init writes holds only event names Cursor knows (one it
// does not know voids the whole file), keeps the user's own hooks beside
// agentlock's, and uninit leaves the user's file byte-identical.
func TestCursorHooksFileHoldsOnlyKnownEvents(t *testing.T) {
	p := hookProject(t)
	user := "{\n  \"version\": 1,\n  \"hooks\": {\n    \"afterFileEdit\": [\n      {\n        \"command\": \"./format.sh\"\n      }\n    ]\n  }\n}\n"
	p.write(".cursor/hooks.json", user)
	requireExit(t, 0, p.run("init", "--agent", "cursor"))
	var h cursorHooks
	require.NoError(t, json.Unmarshal([]byte(p.read(".cursor/hooks.json")), &h))
	assert.Equal(t, 1, h.Version)
	require.NotEmpty(t, h.Hooks)
	for event := range h.Hooks {
		assert.True(t, slices.Contains(cursor.KnownEvents, event), "event %q is not one of Cursor's: Cursor would ignore the whole file", event)
	}
	assert.Equal(t, "./format.sh", h.Hooks["afterFileEdit"][0].Command, "the user's hook stays")
	assert.Equal(t, "Write|StrReplace|Edit|MultiEdit|Delete", h.Hooks["preToolUse"][0].Matcher)
	requireExit(t, 0, p.run("init", "--agent", "cursor", "--check"))
	requireExit(t, 0, p.run("uninit", "--agent", "cursor"))
	assert.Equal(t, user, p.read(".cursor/hooks.json"), "uninit leaves the user's hooks file byte-identical")

	// A project without a hooks file gets one, and loses it again.
	q := hookProject(t)
	requireExit(t, 0, q.run("init", "--agent", "cursor"))
	requireExit(t, 0, q.run("uninit", "--agent", "cursor"))
	_, err := os.Stat(filepath.Join(q.dir, ".cursor", "hooks.json"))
	assert.True(t, os.IsNotExist(err), "uninit removes the hooks file it created: %v", err)
}

// Recorded-shape payloads through the installed hook command, run as
// Cursor runs it (sh -c <command>, the payload on stdin, in the
// workspace): a held file is denied with the deny JSON on stdout AND exit
// 2, naming the holder; a free file is locked by the conversation; every
// edit tool is gated; Shell and Read pass.
func TestCursorHookCommandAsCursorRunsIt(t *testing.T) {
	p := hookProject(t)
	requireExit(t, 0, p.run("init", "--agent", "cursor"))
	var h cursorHooks
	require.NoError(t, json.Unmarshal([]byte(p.read(".cursor/hooks.json")), &h))
	command := h.Hooks["preToolUse"][0].Command
	require.Contains(t, command, "agentlock hook cursor pre-edit")
	bin := t.TempDir()
	require.NoError(t, os.Symlink(harness(t).Bin, filepath.Join(bin, "agentlock")))
	run := func(payload string) proctest.Result {
		return proctest.Run(t, "sh", proctest.Cmd{Args: []string{"-c", command}, Env: append(append([]string{}, p.env...), "PATH="+bin+":/usr/bin:/bin"), Dir: p.dir, Stdin: payload})
	}

	// conversation c1 takes src/a.go with Write (an absolute path).
	r := run(cursorPayload("c1", p.dir, "Write", map[string]any{"file_path": filepath.Join(p.dir, "src/a.go"), "contents": "y\n"}))
	requireExit(t, 0, r)
	assert.Empty(t, r.Stdout, "an allowed edit prints nothing")
	assert.Equal(t, "cursor-c1", p.owner("src/a.go"))

	// c2 is refused it, by every edit tool, relative paths included.
	for _, tc := range []struct {
		tool  string
		input map[string]any
	}{
		{"Write", map[string]any{"file_path": "src/a.go", "contents": "z\n"}},
		{"StrReplace", map[string]any{"file_path": filepath.Join(p.dir, "src/a.go"), "old_string": "x", "new_string": "z"}},
		{"Edit", map[string]any{"file_path": "src/a.go"}},
		{"MultiEdit", map[string]any{"file_path": "src/a.go", "edits": []any{}}},
		{"Delete", map[string]any{"path": "src/a.go"}},
	} {
		r := run(cursorPayload("c2", p.dir, tc.tool, tc.input))
		require.Equal(t, 2, r.Code, "%s of a held file: Cursor denies only on exit 2 (other non-zero exits fail open): %s", tc.tool, r)
		var deny struct {
			Permission   string `json:"permission"`
			UserMessage  string `json:"user_message"`
			AgentMessage string `json:"agent_message"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.Stdout), &deny), "%s: the deny JSON on stdout: %s", tc.tool, r)
		assert.Equal(t, "deny", deny.Permission, tc.tool)
		assert.Contains(t, deny.AgentMessage, "cursor-c1", "%s: the model is told the holder", tc.tool)
		assert.Contains(t, deny.AgentMessage, "src/a.go", tc.tool)
		assert.NotContains(t, deny.AgentMessage, "\n", "one line")
		assert.Equal(t, deny.AgentMessage, deny.UserMessage, tc.tool)
	}
	assert.Equal(t, "x\n", p.read("src/a.go"), "the hook never touches the file")

	// Tools that edit nothing pass; an edit tool naming no file is refused.
	requireExit(t, 0, run(cursorPayload("c2", p.dir, "Shell", map[string]any{"command": "ls"})))
	requireExit(t, 0, run(cursorPayload("c2", p.dir, "Read", map[string]any{"file_path": "src/a.go"})))
	r = run(cursorPayload("c2", p.dir, "Write", map[string]any{"contents": "?"}))
	assert.Equal(t, 2, r.Code, "an edit tool whose file the hook cannot see is refused: %s", r)

	// Session start registers the conversation and tells the model its id.
	start := h.Hooks["sessionStart"][0].Command
	r = proctest.Run(t, "sh", proctest.Cmd{Args: []string{"-c", start}, Env: append(append([]string{}, p.env...), "PATH="+bin+":/usr/bin:/bin"), Dir: p.dir,
		Stdin: `{"conversation_id":"c3","hook_event_name":"sessionStart","workspace_roots":["` + p.dir + `"]}`})
	requireExit(t, 0, r)
	var ctx struct {
		AdditionalContext string `json:"additional_context"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &ctx), r.String())
	assert.Contains(t, ctx.AdditionalContext, "cursor-c3")
}
