package gemini

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

// checks are Gemini CLI's own checks: its folder trust (it runs no
// project hook in a folder it does not trust).
func checks(_ *manifest.Agent, env integrations.DoctorEnv) []integrations.Check {
	return []integrations.Check{geminiTrust(env.Root, filepath.Join(env.UserHome, ".gemini", "trustedFolders.json"))}
}

// geminiTrust checks Gemini CLI's folder trust for the project root, in
// its trustedFolders.json: a folder it is told not to trust runs no
// project hook (a problem); one it was never told to trust asks at start
// (a warning).
func geminiTrust(root, file string) integrations.Check {
	return FolderTrust(integrations.Check{Name: "gemini-folder-trust"}, "Gemini CLI", "gemini", root, file)
}

// FolderTrust checks the trustedFolders.json of a Gemini CLI lineage
// (Gemini CLI, Qwen Code) for the project root: {"<folder>":
// "TRUST_FOLDER" | "TRUST_PARENT" | "DO_NOT_TRUST"}. c names the check;
// product and command name the CLI.
func FolderTrust(c integrations.Check, product, command, root, file string) integrations.Check {
	fix := "run " + command + " in " + root + " and trust the folder, or add \"" + root + "\": \"TRUST_FOLDER\" to " + file
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		c.Status, c.Detail, c.Fix = integrations.CheckWarn, fmt.Sprintf("%s has not been told to trust %s (%s does not exist): it asks at start, and runs no project hook until trusted", product, root, file), fix
		return c
	}
	var rules map[string]string
	if err == nil {
		err = json.Unmarshal(data, &rules)
	}
	if err != nil {
		c.Status, c.Detail, c.Fix = integrations.CheckWarn, fmt.Sprintf("cannot read %s's folder trust in %s: %v", product, file, err), fix
		return c
	}
	for folder, level := range rules {
		if level == "DO_NOT_TRUST" && filepath.Clean(folder) == root {
			c.Status, c.Detail, c.Fix = integrations.CheckProblem, fmt.Sprintf("%s is told not to trust %s (%s): it runs no project hook there, so edits go unchecked", product, root, file), fix
			return c
		}
	}
	for folder, level := range rules {
		scope := filepath.Clean(folder)
		switch level {
		case "TRUST_PARENT":
			scope = filepath.Dir(scope)
		case "TRUST_FOLDER":
		default:
			continue
		}
		if integrations.Within(root, scope) {
			c.Status, c.Detail = integrations.CheckOK, fmt.Sprintf("%s trusts %s (%s: %s)", product, root, folder, level)
			return c
		}
	}
	c.Status, c.Detail, c.Fix = integrations.CheckWarn, fmt.Sprintf("%s has not been told to trust %s (%s): it asks at start, and runs no project hook until trusted", product, root, file), fix
	return c
}
