package cline

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/integrations"
)

// A PreToolUse payload in Cline 3.0.65's shape: the tool in tool_call
// (input an object) and in preToolUse (every parameter a string).
func TestDecodePayloadReadsTheTaskAndTheTool(t *testing.T) {
	data := `{"clineVersion":"3.0.65","hookName":"tool_call","taskId":"conv_1","workspaceRoots":["/repo"],` +
		`"tool_call":{"id":"c1","name":"editor","input":{"path":"a.txt","new_text":"x"}},` +
		`"preToolUse":{"toolName":"editor","parameters":{"path":"a.txt","new_text":"x"}}}`
	in, err := Agent().DecodePayload([]byte(data))
	require.NoError(t, err)
	assert.Equal(t, "conv_1", in.SessionID)
	assert.Equal(t, "/repo", in.Cwd)
	assert.Equal(t, "editor", in.ToolName)
	paths, err := Agent().EditedPaths(in)
	require.NoError(t, err)
	assert.Equal(t, []string{"a.txt"}, paths)

	// Only preToolUse (an older payload): its string parameters.
	in, err = Agent().DecodePayload([]byte(`{"taskId":"t","workspaceRoots":["/r"],"preToolUse":{"toolName":"write_to_file","parameters":{"path":"/r/b.txt"}}}`))
	require.NoError(t, err)
	paths, err = Agent().EditedPaths(in)
	require.NoError(t, err)
	assert.Equal(t, []string{"/r/b.txt"}, paths)
}

// A PostToolUse payload in Cline 3.0.65's shape (as the real CLI sent it
// in the end-to-end run): the tool in tool_result, with its output; a
// read_files call's files are what the session read.
func TestDecodePayloadReadsThePostToolUseTool(t *testing.T) {
	data := `{"clineVersion":"","hookName":"tool_result","taskId":"conv_1","workspaceRoots":["/repo"],"iteration":1,` +
		`"tool_result":{"id":"call_0","name":"read_files","input":{"files":[{"path":"/repo/a.txt"}]},` +
		`"output":[{"query":"/repo/a.txt","result":"1 | C0","success":true}],"durationMs":23},` +
		`"postToolUse":{"toolName":"read_files","parameters":{"files":"[{\"path\":\"/repo/a.txt\"}]"},"result":"[]","success":true}}`
	in, err := Agent().DecodePayload([]byte(data))
	require.NoError(t, err)
	assert.Equal(t, "conv_1", in.SessionID)
	assert.Equal(t, "read_files", in.ToolName)
	paths, err := Agent().ReadPaths(in)
	require.NoError(t, err)
	assert.Equal(t, []string{"/repo/a.txt"}, paths)
}

func TestEditedPaths(t *testing.T) {
	patch := "*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n*** Add File: b/c.txt\n+z\n*** End Patch"
	input := func(v any) json.RawMessage { data, _ := json.Marshal(v); return data }
	paths, err := Agent().EditedPaths(integrations.HookInput{ToolName: "apply_patch", ToolInput: input(map[string]any{"input": patch})})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"a.txt", "b/c.txt"}, paths, "every file of the patch")
	paths, err = Agent().EditedPaths(integrations.HookInput{ToolName: "apply_patch", ToolInput: input(patch)})
	require.NoError(t, err)
	assert.Len(t, paths, 2, "a patch given as the whole input")

	for _, tool := range []string{"run_commands", "read_files", "search_codebase"} {
		paths, err := Agent().EditedPaths(integrations.HookInput{ToolName: tool, ToolInput: input(map[string]any{"path": "a.txt"})})
		require.NoError(t, err)
		assert.Empty(t, paths, "%s edits nothing", tool)
	}
	_, err = Agent().EditedPaths(integrations.HookInput{ToolName: "editor", ToolInput: input(map[string]any{"new_text": "x"})})
	assert.True(t, errors.Is(err, integrations.ErrUncheckable), "an editor call with no path cannot be checked: %v", err)
}

func TestDenyOutputIsTheCancelReply(t *testing.T) {
	out, err := Agent().DenyOutput("agentlock: a.txt is locked by session other-1")
	require.NoError(t, err)
	assert.JSONEq(t, `{"cancel":true,"errorMessage":"agentlock: a.txt is locked by session other-1"}`, string(out))
}
