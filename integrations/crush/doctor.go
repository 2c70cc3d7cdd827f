package crush

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/manifest"
)

// checks are Crush's own checks: whether a crushrc removes agentlock's
// hook.
func checks(_ *manifest.Agent, env integrations.DoctorEnv) []integrations.Check {
	return []integrations.Check{crushHooks(env.Root, filepath.Join(env.UserHome, ".config"))}
}

// crushHooks checks the crushrc files Crush merges over the project's
// .crush.json (./.crushrc, ./crushrc, ~/.config/crush/crushrc) for a
// "hook remove PreToolUse" (or "hook rm") without a --name, or with
// agentlock's (its entry is named "agentlock"), which drops agentlock's hook.
// Crush has no trust step; it has no session start or end event, which the
// wrapper stands in for (init says so).
func crushHooks(root, configHome string) integrations.Check {
	c := integrations.Check{Name: "crush-hooks", Status: integrations.CheckOK,
		Detail: "Crush runs the project's PreToolUse hook (.crush.json; no trust step); run it through scripts/agentlock-crush for a session"}
	for _, file := range []string{filepath.Join(root, ".crushrc"), filepath.Join(root, "crushrc"), filepath.Join(configHome, "crush", "crushrc")} {
		data, err := os.ReadFile(file)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			c.Status, c.Detail, c.Fix = integrations.CheckWarn, fmt.Sprintf("cannot read Crush's config %s: %v", file, err), "make "+file+" readable"
			return c
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for n := 1; sc.Scan(); n++ {
			f := strings.Fields(sc.Text())
			if len(f) >= 3 && f[0] == "hook" && (f[1] == "remove" || f[1] == "rm") && strings.EqualFold(strings.ReplaceAll(f[2], "_", ""), "pretooluse") &&
				removesAgentlock(f[3:]) {
				c.Status, c.Detail, c.Fix = integrations.CheckWarn, fmt.Sprintf("%s:%d removes PreToolUse hooks (%q): it may drop agentlock's, and then Crush's edits go unchecked", file, n, strings.TrimSpace(sc.Text())),
					"remove that line, or give it --name of your own hook"
				return c
			}
		}
	}
	return c
}

// removesAgentlock reports whether the flags of a "hook remove" line
// remove agentlock's entry: no --name (every hook of the event), or
// --name agentlock.
func removesAgentlock(flags []string) bool {
	for i, f := range flags {
		if name, ok := strings.CutPrefix(f, "--name="); ok {
			return strings.Trim(name, `"'`) == "agentlock"
		}
		if f == "--name" && i+1 < len(flags) {
			return strings.Trim(flags[i+1], `"'`) == "agentlock"
		}
	}
	return true
}
