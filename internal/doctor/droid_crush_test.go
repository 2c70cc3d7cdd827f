package doctor

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
}

func TestDroidHooks(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	assert.Equal(t, OK, droidHooks(root, home).Status, "no settings: Droid runs the project's hooks")
	writeFile(t, filepath.Join(home, "settings.json"), `{"customModels": [] // a comment
	}`)
	assert.Equal(t, OK, droidHooks(root, home).Status)
	writeFile(t, filepath.Join(root, ".factory", "settings.local.json"), `{"hooksDisabled": true}`)
	c := droidHooks(root, home)
	assert.Equal(t, Problem, c.Status)
	assert.Contains(t, c.Detail, "settings.local.json")
	writeFile(t, filepath.Join(home, "settings.json"), `{not json`)
	assert.Equal(t, Warn, droidHooks(root, home).Status, "a file it cannot read is said, not skipped")
}

func TestCrushHooks(t *testing.T) {
	root, config := t.TempDir(), t.TempDir()
	assert.Equal(t, OK, crushHooks(root, config).Status)
	writeFile(t, filepath.Join(config, "crush", "crushrc"), "option debug true\nhook add PreToolUse --command ./x.sh --name mine\nhook remove PreToolUse --name mine\n")
	assert.Equal(t, OK, crushHooks(root, config).Status, "removing one's own hook by name leaves agentlock's")
	writeFile(t, filepath.Join(config, "crush", "crushrc"), "option debug true\nhook add PreToolUse --command ./x.sh --name mine\nhook remove PreToolUse\n")
	c := crushHooks(root, config)
	assert.Equal(t, Warn, c.Status)
	assert.Contains(t, c.Detail, "crushrc:3")
	writeFile(t, filepath.Join(config, "crush", "crushrc"), "option debug true\n")
	writeFile(t, filepath.Join(root, ".crushrc"), "hook rm pre_tool_use\n")
	assert.Equal(t, Warn, crushHooks(root, config).Status, "event names are case insensitive and snake-caseable")
}
