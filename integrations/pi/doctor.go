package pi

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/manifest"
)

// checks are Pi's own checks: that its extension gates the project's
// files (doctor does not recognise it as hooks by itself), and Pi's
// project trust.
func checks(_ *manifest.Agent, env integrations.DoctorEnv) []integrations.Check {
	dir := env.AgentDirs[AgentDirVar]
	if dir == "" {
		dir = filepath.Join(env.UserHome, ".pi", "agent")
	}
	return []integrations.Check{env.Gating(), piTrust(env.Root, dir)}
}

// piTrust: Pi loads .pi/extensions only in a trusted project. Its
// decisions are in <agent dir>/trust.json ({"<folder>": true|false}, the
// closest folder at or above the project decides); without one, its
// settings.json's defaultProjectTrust ("ask" unless "always") decides.
func piTrust(root, agentDir string) integrations.Check {
	c := integrations.Check{Name: "pi-project-trust"}
	file := filepath.Join(agentDir, "trust.json")
	fix := "start pi in " + root + " and trust the project (or /trust); headless: pi --approve -p ..."
	var decisions map[string]bool
	data, err := os.ReadFile(file)
	if err == nil {
		err = json.Unmarshal(data, &decisions)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.Status, c.Detail, c.Fix = integrations.CheckWarn, fmt.Sprintf("cannot read Pi's trust decisions %s: %v", file, err), fix
		return c
	}
	for dir := root; ; dir = filepath.Dir(dir) {
		if trusted, ok := decisions[dir]; ok {
			if trusted {
				c.Status, c.Detail = integrations.CheckOK, fmt.Sprintf("Pi trusts %s (%s): it loads agentlock's extension", dir, file)
			} else {
				c.Status, c.Detail, c.Fix = integrations.CheckProblem, fmt.Sprintf("Pi is told not to trust %s (%s): it loads no project extension, so edits go unchecked", dir, file), fix
			}
			return c
		}
		if filepath.Dir(dir) == dir {
			break
		}
	}
	var settings struct {
		DefaultProjectTrust string `json:"defaultProjectTrust"`
	}
	if data, err := os.ReadFile(filepath.Join(agentDir, "settings.json")); err == nil && json.Unmarshal(data, &settings) == nil && settings.DefaultProjectTrust == "always" {
		c.Status, c.Detail = integrations.CheckOK, "Pi trusts every project (defaultProjectTrust \"always\"): it loads agentlock's extension"
		return c
	}
	c.Status, c.Detail, c.Fix = integrations.CheckWarn, fmt.Sprintf("Pi has not been told to trust %s: it asks at start, and in print mode (-p) loads no project extension unless run with --approve", root), fix
	return c
}
