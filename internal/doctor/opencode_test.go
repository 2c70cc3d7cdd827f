package doctor

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agentlock/agentlock/integrations/opencode"
)

// OpenCode and Kilo have no trust step: the check is ok, naming --pure,
// until a variable that turns the project's plugins off is set.
func TestOpenCodePlugin(t *testing.T) {
	c := openCodePlugin(opencode.OpenCode(), nil)
	assert.Equal(t, OK, c.Status)
	assert.Contains(t, c.Detail, ".opencode/plugins/agentlock.js")
	assert.Contains(t, c.Detail, "--pure")

	c = openCodePlugin(opencode.Kilo(), []string{"KILO_PURE=1", "KILO_DISABLE_PROJECT_CONFIG=true"})
	assert.Equal(t, Warn, c.Status)
	assert.Equal(t, "kilo-plugin", c.Name)
	assert.Contains(t, c.Detail, "KILO_PURE=1 and KILO_DISABLE_PROJECT_CONFIG=true is set here")
	assert.Contains(t, c.Detail, ".kilo/plugins/agentlock.js gates nothing")
	assert.Equal(t, "unset KILO_PURE KILO_DISABLE_PROJECT_CONFIG before starting kilo", c.Fix)
}
