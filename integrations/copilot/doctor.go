package copilot

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/manifest"
)

// Variables Copilot CLI reads, which its checks read too.
const (
	// copilotHomeVar moves Copilot's user folder (default ~/.copilot).
	copilotHomeVar = "COPILOT_HOME"
	// allowAllVar trusts every folder for the sessions started with it,
	// when exactly "true".
	allowAllVar = "COPILOT_ALLOW_ALL"
)

// checks are Copilot CLI's own checks: its folder trust (it skips a
// project's hooks silently in a folder it does not trust).
func checks(_ *manifest.Agent, env integrations.DoctorEnv) []integrations.Check {
	home := env.Vars[copilotHomeVar]
	if home == "" {
		home = filepath.Join(env.UserHome, ".copilot")
	}
	return []integrations.Check{copilotTrust(env.Root, home, env.Vars[allowAllVar])}
}

// copilotTrust checks GitHub Copilot CLI's folder trust for the project
// root: Copilot loads .github/hooks/*.json only in a trusted folder and
// skips them silently elsewhere (checked on 1.0.102: an untrusted folder's
// held file was overwritten). A folder is trusted when trustedFolders of
// config.json (in $COPILOT_HOME, else ~/.copilot) names it or a folder
// above it, or, for the sessions started from this environment, when
// COPILOT_ALLOW_ALL is exactly "true". Headless runs may trust the working
// folder for one session with --trust-folder, which agentlock cannot see:
// so an untrusted folder is a warning, not a problem.
func copilotTrust(root, copilotHome, allowAll string) integrations.Check {
	c := integrations.Check{Name: "copilot-folder-trust"}
	file := filepath.Join(copilotHome, "config.json")
	fix := "start copilot in " + root + " and trust the folder when asked (or add it to trustedFolders in " + file +
		"); headless: copilot --trust-folder -p ..."
	if allowAll == "true" {
		c.Status, c.Detail = integrations.CheckOK, "COPILOT_ALLOW_ALL=true: Copilot CLI started from this environment trusts every folder (and allows every tool)"
		return c
	}
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		c.Status, c.Fix = integrations.CheckWarn, fix
		c.Detail = fmt.Sprintf("Copilot CLI has not been told to trust %s (%s does not exist): it skips the project's hooks without a word, so edits go unchecked, unless a run passes --trust-folder", root, file)
		return c
	}
	var config struct {
		TrustedFolders []string `json:"trustedFolders"`
	}
	if err == nil {
		err = decodeLenient(data, &config)
	}
	if err != nil {
		c.Status, c.Detail, c.Fix = integrations.CheckWarn, fmt.Sprintf("cannot read Copilot CLI's folder trust in %s: %v", file, err), fix
		return c
	}
	for _, folder := range config.TrustedFolders {
		if folder != "" && filepath.IsAbs(folder) && integrations.Within(root, filepath.Clean(folder)) {
			c.Status, c.Detail = integrations.CheckOK, fmt.Sprintf("Copilot CLI trusts %s (trustedFolders in %s: %s)", root, file, folder)
			return c
		}
	}
	c.Status, c.Fix = integrations.CheckWarn, fix
	c.Detail = fmt.Sprintf("Copilot CLI has not been told to trust %s (trustedFolders in %s): it skips the project's hooks without a word, so edits go unchecked, unless a run passes --trust-folder", root, file)
	return c
}

// decodeLenient decodes JSON that may carry whole-line // comments, as
// Copilot CLI's config.json does.
func decodeLenient(data []byte, v any) error {
	if json.Unmarshal(data, v) == nil {
		return nil
	}
	var kept []string
	for _, line := range strings.Split(string(data), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(line), "//") {
			kept = append(kept, line)
		}
	}
	if err := json.Unmarshal([]byte(strings.Join(kept, "\n")), v); err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return nil
}
