package doctor

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/workspace"
)

// An unusable store setting is a check, not a crash; invalid settings are
// problems listed first. Every check that does not need the store runs
// still (issue 37); those that do say they did not.
func TestRunReportsTheStoreSettingAndTheConfiguration(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".git"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(root, workspace.HomeDirName), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, workspace.HomeDirName, workspace.StoreFile), []byte("store=nosuch://x\n"), 0o644))
	opts := Options{Dir: root, Settings: workspace.Settings{UserHome: filepath.Join(root, "user")},
		Problems: []error{errors.New("AGENTLOCK_TIMEOUT=-5: must be from 1s to 24h")}}
	checks, err := Run(t.Context(), opts)
	require.NoError(t, err)
	assert.Equal(t, "configuration", checks[0].Name)
	assert.Equal(t, Problem, checks[0].Status)
	assert.Contains(t, checks[0].Detail, "AGENTLOCK_TIMEOUT=-5")
	byName := map[string]Check{}
	for _, c := range checks {
		require.NotContains(t, byName, c.Name, "one check of each name")
		byName[c.Name] = c
	}
	assert.Equal(t, Problem, byName["store"].Status)
	assert.Contains(t, byName["store"].Fix, "correct AGENTLOCK_STORE")
	for _, name := range []string{"home", "home-filesystem", "integrations", "agent-registry-0.2", "temp-files"} {
		assert.Contains(t, byName, name, "a check that does not need the store runs")
	}
	for _, name := range []string{"registry", "lock-files", "clock"} {
		assert.Equal(t, Warn, byName[name].Status, name)
		assert.Contains(t, byName[name].Detail, "not checked: ", name)
	}
	assert.True(t, Failed(checks))
}
