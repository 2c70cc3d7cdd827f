package doctor

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// droidHooks checks what keeps Factory Droid from running the project's
// hooks: hooksDisabled true in one of the settings files it merges (the
// user's ~/.factory/settings.json, the project's .factory/settings.json and
// .factory/settings.local.json). Droid has no trust step for project hooks.
func droidHooks(root, factoryHome string) Check {
	c := Check{Name: "droid-hooks", Status: OK,
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
			err = json.Unmarshal(stripJSONComments(data), &settings)
		}
		if err != nil {
			c.Status, c.Detail, c.Fix = Warn, fmt.Sprintf("cannot read Factory Droid's settings %s: %v", file, err), "make "+file+" readable JSON"
			return c
		}
		if settings.HooksDisabled {
			c.Status, c.Detail, c.Fix = Problem, fmt.Sprintf("Factory Droid runs no hook: hooksDisabled is true in %s, so edits go unchecked", file), "remove hooksDisabled from "+file
			return c
		}
	}
	return c
}

// crushHooks checks the crushrc files Crush merges over the project's
// .crush.json (./.crushrc, ./crushrc, ~/.config/crush/crushrc) for a
// "hook remove PreToolUse" (or "hook rm") without a --name, or with
// agentlock's (its entry is named "agentlock"), which drops agentlock's hook.
// Crush has no trust step; it has no session start or end event, which the
// wrapper stands in for (init says so).
func crushHooks(root, configHome string) Check {
	c := Check{Name: "crush-hooks", Status: OK,
		Detail: "Crush runs the project's PreToolUse hook (.crush.json; no trust step); run it through scripts/agentlock-crush for a session"}
	for _, file := range []string{filepath.Join(root, ".crushrc"), filepath.Join(root, "crushrc"), filepath.Join(configHome, "crush", "crushrc")} {
		data, err := os.ReadFile(file)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			c.Status, c.Detail, c.Fix = Warn, fmt.Sprintf("cannot read Crush's config %s: %v", file, err), "make "+file+" readable"
			return c
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		for n := 1; sc.Scan(); n++ {
			f := strings.Fields(sc.Text())
			if len(f) >= 3 && f[0] == "hook" && (f[1] == "remove" || f[1] == "rm") && strings.EqualFold(strings.ReplaceAll(f[2], "_", ""), "pretooluse") &&
				removesAgentlock(f[3:]) {
				c.Status, c.Detail, c.Fix = Warn, fmt.Sprintf("%s:%d removes PreToolUse hooks (%q): it may drop agentlock's, and then Crush's edits go unchecked", file, n, strings.TrimSpace(sc.Text())),
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
