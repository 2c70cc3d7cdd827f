package doctor

import (
	"strings"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/opencode"
)

// openCodePlugin checks what keeps OpenCode or Kilo from loading
// agentlock's plugin: there is no trust step, but `--pure` (which doctor
// cannot see) and the variables off (OPENCODE_PURE,
// OPENCODE_DISABLE_PROJECT_CONFIG and Kilo's) load no project plugin, so
// nothing gates the CLI's edits. off are those set in doctor's
// environment, as NAME=value.
func openCodePlugin(a integrations.Agent, off []string) Check {
	c := Check{Name: a.Name() + "-plugin", Status: OK}
	file, command := "the plugin", a.Name()
	if oc, ok := a.(opencode.Agent); ok {
		file = oc.PluginFile()
	}
	if len(off) > 0 {
		c.Status = Warn
		c.Detail = strings.Join(off, " and ") + " is set here: " + a.Title() + " started from this environment loads no project plugin, so " +
			file + " gates nothing"
		c.Fix = "unset " + strings.Join(names(off), " ") + " before starting " + command
		return c
	}
	c.Detail = a.Title() + " loads " + file + " at every start, with no trust step; `" + command + " --pure` loads no plugin and gates nothing"
	return c
}

// names returns the NAME parts of NAME=value pairs.
func names(pairs []string) []string {
	var out []string
	for _, p := range pairs {
		name, _, _ := strings.Cut(p, "=")
		out = append(out, name)
	}
	return out
}
