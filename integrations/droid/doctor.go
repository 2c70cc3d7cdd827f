package droid

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

// checks are Factory Droid's own checks: whether a settings file turns
// its hooks off.
func checks(_ *manifest.Agent, env integrations.DoctorEnv) []integrations.Check {
	return []integrations.Check{droidHooks(env.Root, filepath.Join(env.UserHome, ".factory"))}
}

// droidHooks checks what keeps Factory Droid from running the project's
// hooks: hooksDisabled true in one of the settings files it merges (the
// user's ~/.factory/settings.json, the project's .factory/settings.json and
// .factory/settings.local.json). Droid has no trust step for project hooks.
func droidHooks(root, factoryHome string) integrations.Check {
	c := integrations.Check{Name: "droid-hooks", Status: integrations.CheckOK,
		Detail: "Factory Droid runs the project's hooks (.factory/settings.json; no trust step; its Execute tool is not gated)"}
	for _, file := range []string{filepath.Join(factoryHome, "settings.json"),
		filepath.Join(root, ".factory", "settings.json"), filepath.Join(root, ".factory", "settings.local.json")} {
		var settings struct {
			HooksDisabled bool `json:"hooksDisabled"`
		}
		data, err := os.ReadFile(file)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err == nil {
			err = json.Unmarshal(integrations.StripJSONComments(data), &settings)
		}
		if err != nil {
			c.Status, c.Detail, c.Fix = integrations.CheckWarn, fmt.Sprintf("cannot read Factory Droid's settings %s: %v", file, err), "make "+file+" readable JSON"
			return c
		}
		if settings.HooksDisabled {
			c.Status, c.Detail, c.Fix = integrations.CheckProblem, fmt.Sprintf("Factory Droid runs no hook: hooksDisabled is true in %s, so edits go unchecked", file), "remove hooksDisabled from "+file
			return c
		}
	}
	return c
}
