package copilot

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/integrations"
)

const patch = "*** Begin Patch\n*** Update File: src/a.go\n@@\n-x\n+y\n*** Add File: src/new.go\n+z\n*** Delete File: src/old.go\n*** End Patch\n"

// Copilot's camelCase payloads decode into what the hooks read, over the
// snake_case members of its PascalCase hooks; toolArgs is kept as it came.
func TestDecodePayload(t *testing.T) {
	in, err := Agent().DecodePayload([]byte(`{"sessionId":"s1","timestamp":1764626400000,"cwd":"/repo",
"toolName":"edit","toolArgs":{"path":"/repo/a.go","old_str":"x","new_str":"y"}}`))
	require.NoError(t, err)
	assert.Equal(t, "s1", in.SessionID)
	assert.Equal(t, "/repo", in.Cwd)
	assert.Equal(t, "edit", in.ToolName)
	assert.JSONEq(t, `{"path":"/repo/a.go","old_str":"x","new_str":"y"}`, string(in.ToolInput))

	in, err = Agent().DecodePayload([]byte(`{"session_id":"s2","cwd":"/repo","hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":"/repo/b.go"}}`))
	require.NoError(t, err)
	assert.Equal(t, "s2", in.SessionID)
	assert.Equal(t, "Edit", in.ToolName)
	assert.Equal(t, "PreToolUse", in.Event)

	in, err = Agent().DecodePayload([]byte(`{"sessionId":"s3","workingDirectory":"/work","toolName":"view","toolArgs":null}`))
	require.NoError(t, err)
	assert.Equal(t, "/work", in.Cwd, "the SDK's workingDirectory when there is no cwd")
	assert.Empty(t, in.ToolInput)

	// A sub-agent's call (1.0.102): its own sessionId is not the
	// session's, but the sub-agent's id: the hook acts for the child
	// session, and finds the session another way.
	in, err = Agent().DecodePayload([]byte(`{"sessionId":"sub-1","cwd":"/repo","toolName":"create","toolArgs":{"path":"/repo/c.go"},
"agentId":"sub-1","agentType":"general-purpose","parentAgentId":"s1"}`))
	require.NoError(t, err)
	assert.Empty(t, in.SessionID, "a sub-agent's sessionId is dropped: the hook finds the session another way")
	assert.Equal(t, "sub-1", in.SubAgent)
	assert.Equal(t, "create", in.ToolName)
	// subagentStart and subagentStop: the sub-agent is agentId, the
	// sessionId yet another id.
	in, err = Agent().DecodePayload([]byte(`{"sessionId":"88b0","cwd":"/repo","agentName":"general-purpose","agentId":"sub-2","agentType":"general-purpose","parentAgentId":"sub-1"}`))
	require.NoError(t, err)
	assert.Empty(t, in.SessionID)
	assert.Equal(t, "sub-2", in.SubAgent, "a sub-agent of a sub-agent is one more child of the session")

	_, err = Agent().DecodePayload([]byte(`{"sessionId":`))
	assert.ErrorContains(t, err, "not JSON")
	// A member of the wrong type is as if absent, not a reason to read
	// nothing of the payload: its path is still gated (and with no session
	// id the hook finds the session another way, or denies).
	in, err = Agent().DecodePayload([]byte(`{"sessionId":7,"cwd":5,"toolName":"edit","toolArgs":{"path":"/repo/a.go"}}`))
	require.NoError(t, err)
	assert.Empty(t, in.SessionID, "a sessionId that is not a string")
	assert.Empty(t, in.Cwd, "a cwd that is not a string")
	assert.Equal(t, "edit", in.ToolName)
	paths, err := Agent().EditedPaths(in)
	require.NoError(t, err)
	assert.Equal(t, []string{"/repo/a.go"}, paths)
}

func hookInput(t *testing.T, tool string, args any) integrations.HookInput {
	t.Helper()
	data, err := json.Marshal(args)
	require.NoError(t, err)
	return integrations.HookInput{ToolName: tool, ToolInput: data}
}

// edit and create name their file in toolArgs.path, parsed or as a JSON
// string; apply_patch counts every file of its patch; other tools none.
func TestEditedPaths(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   integrations.HookInput
		want []string
	}{
		{"edit", hookInput(t, "edit", map[string]any{"path": "/repo/a.go", "old_str": "x", "new_str": "y"}), []string{"/repo/a.go"}},
		{"create", hookInput(t, "create", map[string]any{"path": "/repo/n.go", "file_text": "z"}), []string{"/repo/n.go"}},
		{"create as a JSON string", hookInput(t, "create", `{"path":"/repo/n.go","file_text":"z"}`), []string{"/repo/n.go"}},
		{"apply_patch", hookInput(t, "apply_patch", patch), []string{"src/a.go", "src/new.go", "src/old.go"}},
		{"apply_patch in an input member", hookInput(t, "apply_patch", map[string]any{"input": patch}), []string{"src/a.go", "src/new.go", "src/old.go"}},
		{"PascalCase Edit (apply_patch renamed)", hookInput(t, "Edit", patch), []string{"src/a.go", "src/new.go", "src/old.go"}},
		{"PascalCase Write", hookInput(t, "Write", map[string]any{"file_path": "/repo/w.go"}), []string{"/repo/w.go"}},
		{"view edits nothing", hookInput(t, "view", map[string]any{"path": "/repo/a.go"}), nil},
		{"bash edits nothing the hook sees", hookInput(t, "bash", map[string]any{"command": "echo x > a.go"}), nil},
		{"edit without a path", hookInput(t, "edit", map[string]any{"old_str": "x"}), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Agent().EditedPaths(tc.in)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

// An apply_patch whose patch the hook cannot read is uncheckable: the
// pre-edit hook refuses it where agentlock is set up.
func TestApplyPatchWithoutPatchIsUncheckable(t *testing.T) {
	for _, args := range []any{"", map[string]any{}, nil, 7} {
		_, err := Agent().EditedPaths(hookInput(t, "apply_patch", args))
		assert.ErrorIs(t, err, integrations.ErrUncheckable, "toolArgs %v", args)
	}
}

// The denial and the session context are Copilot's top-level members:
// camelCase hooks ignore hookSpecificOutput.
func TestOutputs(t *testing.T) {
	out, err := Agent().DenyOutput("agentlock: a.go <held> by x & y")
	require.NoError(t, err)
	assert.Equal(t, `{"permissionDecision":"deny","permissionDecisionReason":"agentlock: a.go <held> by x & y"}`+"\n", string(out))
	out, err = Agent().SessionContext("you are session copilot-s1")
	require.NoError(t, err)
	assert.Equal(t, `{"additionalContext":"you are session copilot-s1"}`+"\n", string(out))
}
