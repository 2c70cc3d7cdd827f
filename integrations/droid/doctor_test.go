package droid

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

func TestDroidHooks(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	assert.Equal(t, integrations.CheckOK, droidHooks(root, home).Status, "no settings: Droid runs the project's hooks")
	writeFile(t, filepath.Join(home, "settings.json"), `{"customModels": [] // a comment
	}`)
	assert.Equal(t, integrations.CheckOK, droidHooks(root, home).Status)
	writeFile(t, filepath.Join(root, ".factory", "settings.local.json"), `{"hooksDisabled": true}`)
	c := droidHooks(root, home)
	assert.Equal(t, integrations.CheckProblem, c.Status)
	assert.Contains(t, c.Detail, "settings.local.json")
	writeFile(t, filepath.Join(home, "settings.json"), `{not json`)
	assert.Equal(t, integrations.CheckWarn, droidHooks(root, home).Status, "a file it cannot read is said, not skipped")
}
