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
// problems listed first.
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
	require.Len(t, checks, 2)
	assert.Equal(t, "configuration", checks[0].Name)
	assert.Equal(t, Problem, checks[0].Status)
	assert.Contains(t, checks[0].Detail, "AGENTLOCK_TIMEOUT=-5")
	assert.Equal(t, "store", checks[1].Name)
	assert.Equal(t, Problem, checks[1].Status)
	assert.Contains(t, checks[1].Fix, "correct AGENTLOCK_STORE")
	assert.True(t, Failed(checks))
}
