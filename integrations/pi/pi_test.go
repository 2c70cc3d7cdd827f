package pi

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/integrations"
)

func TestEditedPaths(t *testing.T) {
	for _, tool := range []string{"edit", "write"} {
		paths, err := Agent().EditedPaths(integrations.HookInput{ToolName: tool, ToolInput: []byte(`{"path":"src/a.go"}`)})
		require.NoError(t, err)
		assert.Equal(t, []string{"src/a.go"}, paths, tool)
	}
	paths, err := Agent().EditedPaths(integrations.HookInput{ToolName: "bash", ToolInput: []byte(`{"command":"ls"}`)})
	require.NoError(t, err)
	assert.Empty(t, paths)
	_, err = Agent().EditedPaths(integrations.HookInput{ToolName: "write", ToolInput: []byte(`{}`)})
	assert.True(t, errors.Is(err, integrations.ErrUncheckable))
}

// The extension holds no lock logic: it only runs agentlock's hooks, and
// blocks an edit tool when agentlock cannot run.
func TestExtensionOnlyRunsAgentlock(t *testing.T) {
	arts, _, err := Agent().Plan(integrations.Env{Bin: "agentlock"})
	require.NoError(t, err)
	var ext string
	for _, a := range arts {
		if a.Path == ".pi/extensions/agentlock.ts" {
			ext = string(a.Content)
		}
	}
	require.NotEmpty(t, ext)
	assert.Contains(t, ext, `spawnSync("agentlock", ["hook", "pi", event]`)
	for _, ev := range []string{"session-start", "pre-edit", "renew", "session-end"} {
		assert.Contains(t, ext, `hook("`+ev+`"`)
	}
	assert.Contains(t, ext, `if (r.status === 2) return { block: true, reason: why };`)
	assert.Contains(t, ext, `EDIT_TOOLS = new Set(["edit", "write"])`)
	for _, lockLogic := range []string{"readFile", "writeFile", ".agent-registry", "locks/"} {
		assert.False(t, strings.Contains(ext, lockLogic), "the extension touches %s", lockLogic)
	}
}
