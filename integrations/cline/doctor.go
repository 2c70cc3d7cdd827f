package cline

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/manifest"
)

// checks are Cline's own checks: that its hook files gate the project's
// files (doctor does not recognise them as hooks by itself), and that
// they are executable.
func checks(_ *manifest.Agent, env integrations.DoctorEnv) []integrations.Check {
	return []integrations.Check{env.Gating(), clineHooksExecutable(env.Root)}
}

// clineHooksExecutable: Cline runs a hook file only when it is executable
// (a checkout or a copy that lost the mode gates nothing, silently).
func clineHooksExecutable(root string) integrations.Check {
	c := integrations.Check{Name: "cline-hooks-executable", Status: integrations.CheckOK, Detail: "Cline's hook files in " + HooksDir + " are executable"}
	for _, h := range Hooks {
		path := filepath.Join(root, HooksDir, h.File)
		fi, err := os.Stat(path)
		if err != nil || fi.Mode()&0o111 == 0 {
			c.Status = integrations.CheckProblem
			c.Detail = fmt.Sprintf("Cline runs only executable hook files, and %s is not (%v): its edits go unchecked", path, err)
			c.Fix = "chmod +x " + filepath.Join(root, HooksDir) + "/*, or agentlock init --agent cline"
			return c
		}
	}
	return c
}
