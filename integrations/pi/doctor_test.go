package pi

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/integrations"
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
	assert.Equal(t, integrations.CheckWarn, piTrust(project, agentDir).Status, "no decision: Pi asks, and -p loads no extension")
	write("trust.json", `{"`+filepath.Join(root, "work")+`": true}`)
	assert.Equal(t, integrations.CheckOK, piTrust(project, agentDir).Status, "a trusted parent")
	write("trust.json", `{"`+filepath.Join(root, "work")+`": true, "`+project+`": false}`)
	c := piTrust(project, agentDir)
	assert.Equal(t, integrations.CheckProblem, c.Status, "the closest decision wins: declined")
	assert.NotEmpty(t, c.Fix)
	write("trust.json", `{}`)
	write("settings.json", `{"defaultProjectTrust": "always"}`)
	assert.Equal(t, integrations.CheckOK, piTrust(project, agentDir).Status)
	write("trust.json", `not json`)
	assert.Equal(t, integrations.CheckWarn, piTrust(project, agentDir).Status, "an unreadable trust file is said")
}
