package opencode_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/kilo"
	"github.com/agentlock/agentlock/integrations/manifest"
	"github.com/agentlock/agentlock/integrations/opencode"
)

// OpenCode and Kilo have no trust step: the check is ok, naming --pure,
// until a variable that turns the project's plugins off is set.
func TestOpenCodePlugin(t *testing.T) {
	c := opencode.OpenCodePlugin(opencode.Agent(), nil)
	assert.Equal(t, integrations.CheckOK, c.Status)
	assert.Contains(t, c.Detail, ".opencode/plugins/agentlock.js")
	assert.Contains(t, c.Detail, "--pure")

	c = opencode.OpenCodePlugin(kilo.Agent(), []string{"KILO_PURE=1", "KILO_DISABLE_PROJECT_CONFIG=true"})
	assert.Equal(t, integrations.CheckWarn, c.Status)
	assert.Equal(t, "kilo-plugin", c.Name)
	assert.Contains(t, c.Detail, "KILO_PURE=1 and KILO_DISABLE_PROJECT_CONFIG=true is set here")
	assert.Contains(t, c.Detail, ".kilo/plugins/agentlock.js gates nothing")
	assert.Equal(t, "unset KILO_PURE KILO_DISABLE_PROJECT_CONFIG before starting kilo", c.Fix)
}

// Each CLI's plugins-off variables (its manifest's env_vars) count when
// set to "true" (any case) or "1".
func TestPluginsOff(t *testing.T) {
	// PluginsOff is, by agent, the variables set that stop that CLI from
	// loading the project's plugins.
	PluginsOff := func(getenv func(string) string) map[string][]string {
		off := map[string][]string{}
		for _, a := range []*manifest.Agent{opencode.Agent(), kilo.Agent()} {
			if vars := opencode.PluginsOff(a.EnvVars(), getenv); len(vars) > 0 {
				off[a.Name()] = vars
			}
		}
		return off
	}
	env := map[string]string{"OPENCODE_PURE": "TRUE", "OPENCODE_DISABLE_PROJECT_CONFIG": "0", "KILO_PURE": "1", "KILO_DISABLE_PROJECT_CONFIG": "yes"}
	got := PluginsOff(func(name string) string { return env[name] })
	assert.Equal(t, map[string][]string{"opencode": {"OPENCODE_PURE=TRUE"}, "kilo": {"KILO_PURE=1"}}, got)
	assert.Empty(t, PluginsOff(func(string) string { return "" }))
}
