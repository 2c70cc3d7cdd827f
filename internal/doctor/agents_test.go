package doctor

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/integrations/cline"
)

// Pi's trust: the closest decision at or above the project in trust.json,
// else defaultProjectTrust "always", else not trusted (Warn: it asks).
func TestPiTrust(t *testing.T) {
	root := t.TempDir()
	project := filepath.Join(root, "work", "project")
	agentDir := filepath.Join(root, "agent")
	require.NoError(t, os.MkdirAll(agentDir, 0o755))
	write := func(name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(agentDir, name), []byte(text), 0o644))
	}
	assert.Equal(t, Warn, piTrust(project, agentDir).Status, "no decision: Pi asks, and -p loads no extension")
	write("trust.json", `{"`+filepath.Join(root, "work")+`": true}`)
	assert.Equal(t, OK, piTrust(project, agentDir).Status, "a trusted parent")
	write("trust.json", `{"`+filepath.Join(root, "work")+`": true, "`+project+`": false}`)
	c := piTrust(project, agentDir)
	assert.Equal(t, Problem, c.Status, "the closest decision wins: declined")
	assert.NotEmpty(t, c.Fix)
	write("trust.json", `{}`)
	write("settings.json", `{"defaultProjectTrust": "always"}`)
	assert.Equal(t, OK, piTrust(project, agentDir).Status)
	write("trust.json", `not json`)
	assert.Equal(t, Warn, piTrust(project, agentDir).Status, "an unreadable trust file is said")
}

// Cline runs only executable hook files.
func TestClineHooksExecutable(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, cline.HooksDir)
	require.NoError(t, os.MkdirAll(dir, 0o755))
	for _, h := range cline.Hooks {
		require.NoError(t, os.WriteFile(filepath.Join(dir, h.File), []byte("#!/bin/sh\n"), 0o755))
	}
	assert.Equal(t, OK, clineHooksExecutable(root).Status)
	require.NoError(t, os.Chmod(filepath.Join(dir, "PreToolUse"), 0o644))
	c := clineHooksExecutable(root)
	assert.Equal(t, Problem, c.Status)
	assert.Contains(t, c.Detail, "PreToolUse")
}
