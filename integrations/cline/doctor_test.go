package cline

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/integrations"
)

// Cline runs only executable hook files.
func TestClineHooksExecutable(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, HooksDir)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for _, h := range Hooks {
		require.NoError(t, os.WriteFile(filepath.Join(dir, h.File), []byte("#!/bin/sh\n"), 0o755))
	}
	assert.Equal(t, integrations.CheckOK, clineHooksExecutable(root).Status)
	require.NoError(t, os.Chmod(filepath.Join(dir, "PreToolUse"), 0o644))
	c := clineHooksExecutable(root)
	assert.Equal(t, integrations.CheckProblem, c.Status)
	assert.Contains(t, c.Detail, "PreToolUse")
}
