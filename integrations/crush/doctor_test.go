package crush

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/integrations"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
}

func TestCrushHooks(t *testing.T) {
	root, config := t.TempDir(), t.TempDir()
	assert.Equal(t, integrations.CheckOK, crushHooks(root, config).Status)
	writeFile(t, filepath.Join(config, "crush", "crushrc"), "option debug true\nhook add PreToolUse --command ./x.sh --name mine\nhook remove PreToolUse --name mine\n")
	assert.Equal(t, integrations.CheckOK, crushHooks(root, config).Status, "removing one's own hook by name leaves agentlock's")
	writeFile(t, filepath.Join(config, "crush", "crushrc"), "option debug true\nhook add PreToolUse --command ./x.sh --name mine\nhook remove PreToolUse\n")
	c := crushHooks(root, config)
	assert.Equal(t, integrations.CheckWarn, c.Status)
	assert.Contains(t, c.Detail, "crushrc:3")
	writeFile(t, filepath.Join(config, "crush", "crushrc"), "option debug true\n")
	writeFile(t, filepath.Join(root, ".crushrc"), "hook rm pre_tool_use\n")
	assert.Equal(t, integrations.CheckWarn, crushHooks(root, config).Status, "event names are case insensitive and snake-caseable")
}
