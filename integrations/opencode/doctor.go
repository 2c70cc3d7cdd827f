package opencode

import (
	"strings"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/manifest"
)

// checks are the own checks of OpenCode (or Kilo): whether a variable of
// this environment keeps the CLI from loading agentlock's plugin.
func checks(a *manifest.Agent, env integrations.DoctorEnv) []integrations.Check {
	return []integrations.Check{openCodePlugin(a, pluginsOff(a.EnvVars(), func(name string) string { return env.Vars[name] }))}
}

// pluginFile is where an agent's plugin goes in the project: its config
// folder is named after it (.opencode, .kilo).
func pluginFile(a integrations.Agent) string { return "." + a.Name() + "/plugins/agentlock.js" }

// pluginsOff returns, of the variables that stop the CLI from loading the
// project's plugins (its manifest's env_vars: OPENCODE_PURE,
// OPENCODE_DISABLE_PROJECT_CONFIG), those set in the environment that
// getenv reads, as NAME=value.
func pluginsOff(vars []string, getenv func(string) string) []string {
	var off []string
	for _, name := range vars {
		// OpenCode reads a flag variable as on when it is "true" or "1".
		if val := getenv(name); strings.ToLower(val) == "true" || val == "1" {
			off = append(off, name+"="+val)
		}
	}
	return off
}

// openCodePlugin checks what keeps OpenCode or Kilo from loading
// agentlock's plugin: there is no trust step, but `--pure` (which doctor
// cannot see) and the variables off (OPENCODE_PURE,
// OPENCODE_DISABLE_PROJECT_CONFIG and Kilo's) load no project plugin, so
// nothing gates the CLI's edits. off are those set in doctor's
// environment, as NAME=value.
func openCodePlugin(a integrations.Agent, off []string) integrations.Check {
	c := integrations.Check{Name: a.Name() + "-plugin", Status: integrations.CheckOK}
	file, command := pluginFile(a), a.Name()
	if len(off) > 0 {
		c.Status = integrations.CheckWarn
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
