package integrations_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/integrations"
)

// A member of the wrong type is as if absent, the others are decoded; a
// payload that is not a JSON object is an error.
func TestUnmarshalPayloadKeepsWhatItCanRead(t *testing.T) {
	var in integrations.HookInput
	require.NoError(t, integrations.UnmarshalPayload([]byte(`{"session_id":7,"cwd":5,"tool_name":"Edit","tool_input":{"file_path":"/p"}}`), &in))
	assert.Empty(t, in.SessionID)
	assert.Empty(t, in.Cwd)
	assert.Equal(t, "Edit", in.ToolName, "a member after the bad ones is decoded")
	assert.Equal(t, "/p", integrations.StringField(in.ToolInput, "file_path"))

	for _, data := range []string{`[1]`, `"x"`, `{"cwd":`, `nope`} {
		assert.Error(t, integrations.UnmarshalPayload([]byte(data), &in), data)
	}
}

// A call that names no tool counts as an edit; a named one only when it is
// an edit tool.
func TestEditCall(t *testing.T) {
	assert.True(t, integrations.EditCall("", "Edit"))
	assert.True(t, integrations.EditCall("Edit", "Write", "Edit"))
	assert.False(t, integrations.EditCall("Read", "Write", "Edit"))
}
