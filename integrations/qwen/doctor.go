package qwen

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/gemini"
	"github.com/agentlock/agentlock/integrations/manifest"
)

// checks are Qwen Code's own checks: what keeps it from running the
// project's hooks.
func checks(_ *manifest.Agent, env integrations.DoctorEnv) []integrations.Check {
	return []integrations.Check{qwenTrust(env.Root, filepath.Join(env.UserHome, ".qwen"))}
}

// qwenTrust checks what keeps Qwen Code from running the project's hooks,
// from its user settings (~/.qwen/settings.json): folder trust, off by
// default, then checked as Gemini CLI's is (~/.qwen/trustedFolders.json);
// disableAllHooks; and a tools.executionSandbox policy, under which Qwen
// runs no hook at all.
func qwenTrust(root, qwenDir string) integrations.Check {
	c := integrations.Check{Name: "qwen-project-trust"}
	file := filepath.Join(qwenDir, "settings.json")
	var settings struct {
		DisableAllHooks bool `json:"disableAllHooks"`
		Security        struct {
			FolderTrust struct {
				Enabled bool `json:"enabled"`
			} `json:"folderTrust"`
		} `json:"security"`
		Tools struct {
			ExecutionSandbox json.RawMessage `json:"executionSandbox"`
		} `json:"tools"`
	}
	data, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.Status, c.Detail, c.Fix = integrations.CheckWarn, fmt.Sprintf("cannot read Qwen Code's settings %s: %v", file, err), "make "+file+" readable"
		return c
	}
	if err == nil {
		if err := json.Unmarshal(integrations.StripJSONComments(data), &settings); err != nil {
			c.Status, c.Detail, c.Fix = integrations.CheckWarn, fmt.Sprintf("cannot read Qwen Code's settings %s: %v", file, err), "fix the JSON of "+file
			return c
		}
	}
	switch {
	case settings.DisableAllHooks:
		c.Status, c.Detail, c.Fix = integrations.CheckProblem, fmt.Sprintf("Qwen Code runs no hook: disableAllHooks is true in %s, so edits go unchecked", file), "remove disableAllHooks from "+file
		return c
	case len(settings.Tools.ExecutionSandbox) > 0 && string(settings.Tools.ExecutionSandbox) != "null":
		c.Status, c.Detail, c.Fix = integrations.CheckProblem, fmt.Sprintf("Qwen Code runs no hook under a tools.executionSandbox policy (%s), so edits go unchecked", file), "remove tools.executionSandbox from "+file+", or run Qwen Code without agentlock's gate"
		return c
	case !settings.Security.FolderTrust.Enabled:
		c.Status, c.Detail = integrations.CheckOK, "Qwen Code's folder trust is off (its default): it runs the project's hooks in every folder (not under --bare or --safe-mode)"
		return c
	}
	return gemini.FolderTrust(c, "Qwen Code", "qwen", root, filepath.Join(qwenDir, "trustedFolders.json"))
}
