// Package clienv makes the configuration that an in-process command line
// resolves (package cliconfig) hermetic, for the tests of the front ends
// that resolve one: cmd/agentlock's commands and agentlock-mcp's server.
package clienv

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/integrations/all"
	"github.com/agentlock/agentlock/internal/frontend/cliconfig"
	"github.com/agentlock/agentlock/workspace"
)

// Hermetic gives the test a fresh HOME and working directory (outside any
// project), and none of the variables of agentlock, agent-registry 0.2 or
// the agent harnesses, PATH aside. It returns the working directory. Tests
// that use it cannot run in parallel (t.Setenv, t.Chdir).
func Hermetic(t *testing.T) string {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	home, work := filepath.Join(dir, "home"), filepath.Join(dir, "work")
	require.NoError(t, os.MkdirAll(home, 0o700))
	require.NoError(t, os.MkdirAll(work, 0o700))
	t.Setenv("HOME", home)
	unset := []string{"XDG_CONFIG_HOME", workspace.FrontVar}
	for _, b := range cliconfig.EnvBindings {
		if b[1] != "PATH" {
			unset = append(unset, b[1])
		}
	}
	for _, name := range append(unset, all.Agents().Variables()...) {
		t.Setenv(name, "")
		require.NoError(t, os.Unsetenv(name))
	}
	t.Chdir(work)
	return work
}
