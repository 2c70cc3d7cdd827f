package doctor

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/all"
	"github.com/agentlock/agentlock/integrations/cline"
	"github.com/agentlock/agentlock/integrations/pi"
	"github.com/agentlock/agentlock/internal/setup"
)

// integrations checks every agent CLI connected to the project (one whose
// files hold agentlock's part): its files are what init writes now, and
// where its harness runs project hooks only once trusted (Codex, Gemini,
// Copilot),
// they are trusted.
func (d *run) integrations() []Check {
	var checks []Check
	agents := d.opts.Agents
	if agents == nil {
		agents = all.Agents()
	}
	for _, a := range agents {
		// Global: doctor reads the user-level files too (Kimi Code's
		// hooks), to say when they are missing; it writes nothing.
		p, err := setup.Open(d.project.Root, setup.Options{Settings: d.opts.Settings, Agents: []integrations.Agent{a}, Bin: d.opts.Bin,
			Global: true, AgentDirs: d.opts.AgentDirs, WithoutStore: d.unusable != nil})
		if err != nil {
			checks = append(checks, Check{Name: "integration-" + a.Name(), Status: Problem,
				Detail: fmt.Sprintf("cannot read %s's set-up: %v", a.Title(), err), Fix: "agentlock init --agent " + a.Name()})
			continue
		}
		installed, legacy, err := d.connected(p)
		if err != nil {
			checks = append(checks, Check{Name: "integration-" + a.Name(), Status: Problem,
				Detail: fmt.Sprintf("cannot read %s's files: %v", a.Title(), err), Fix: "fix the file named, then agentlock init --agent " + a.Name()})
			continue
		}
		if legacy != "" {
			checks = append(checks, Check{Name: "kimi-legacy", Status: Warn,
				Detail: "agentlock's files for the legacy kimi-cli are still in " + legacy + ": kimi-cli (archived upstream) is no longer supported, and nothing gates its edits",
				Fix:    "agentlock uninit --agent kimi --global, then agentlock init --agent kimi --global (for Kimi Code CLI)"})
		}
		if !installed {
			continue
		}
		if hooks, err := hooksInstalled(p); err == nil && hooks {
			checks = append(checks, d.gating(p, a))
		}
		checks = append(checks, drift(p, a, d.opts.Writer))
		switch a.Name() {
		case "kimi":
			if c, legacy := kimiProgram(d.opts.SearchPath); legacy {
				checks = append(checks, c)
			}
		case "codex":
			checks = append(checks, codexTrustCheck(filepath.Join(p.Root, ".codex", "hooks.json"), d.codexConfig(), d.opts.CodexHome, d.opts.SearchPath, p.Root))
		case "gemini":
			checks = append(checks, geminiTrust(p.Root, filepath.Join(d.opts.Settings.UserHome, ".gemini", "trustedFolders.json")))
		case "qwen":
			checks = append(checks, qwenTrust(p.Root, filepath.Join(d.opts.Settings.UserHome, ".qwen")))
		case "droid":
			checks = append(checks, droidHooks(p.Root, filepath.Join(d.opts.Settings.UserHome, ".factory")))
		case "crush":
			checks = append(checks, crushHooks(p.Root, filepath.Join(d.opts.Settings.UserHome, ".config")))
		case "cline":
			checks = append(checks, d.gating(p, a), clineHooksExecutable(p.Root))
		case "pi":
			dir := d.opts.AgentDirs[pi.AgentDirVar]
			if dir == "" {
				dir = filepath.Join(d.opts.Settings.UserHome, ".pi", "agent")
			}
			checks = append(checks, d.gating(p, a), piTrust(p.Root, dir))
		case "copilot":
			home := d.opts.CopilotHome
			if home == "" {
				home = filepath.Join(d.opts.Settings.UserHome, ".copilot")
			}
			checks = append(checks, copilotTrust(p.Root, home, d.opts.CopilotAllowAll))
		case "opencode", "kilo":
			checks = append(checks, openCodePlugin(a, d.opts.PluginsOff[a.Name()]))
		}
	}
	if len(checks) == 0 {
		checks = append(checks, Check{Name: "integrations", Status: OK,
			Detail: "no agent CLI is connected to this project (agents follow registry.md's protocol by hand)"})
	}
	return checks
}

// gating: the agent's hooks, installed in the project, gate its files. The
// pre-edit hook lets through every path that the workspace of its working
// folder does not coordinate (workspace.Workspace.Gates, the definition
// both use): hooks installed where that is every file protect nothing,
// whatever the instructions beside them say.
func (d *run) gating(p *setup.Project, a integrations.Agent) Check {
	c := Check{Name: "gating-" + a.Name(), Status: OK}
	probe := filepath.Join(p.Root, "agentlock-doctor-probe")
	if d.ws.Gates(probe) {
		c.Detail = fmt.Sprintf("%s's pre-edit hook gates the files of %s", a.Title(), p.Root)
		return c
	}
	c.Status = Problem
	c.Detail = fmt.Sprintf("%s's hooks are installed in %s, but its pre-edit hook would let every edit there through: "+
		"agentlock is not set up for that folder (its state is in %s, no %s folder marks it as a project)", a.Title(), p.Root, d.ws.Home, ".agent-registry")
	c.Fix = "agentlock init --agent " + a.Name() + " in " + p.Root + " (it makes the folder a project), or remove the hooks with agentlock uninit"
	return c
}

// hooksInstalled reports whether the project's files hold the agent's
// hooks (not only its instructions: Kimi's hooks are user-wide).
func hooksInstalled(p *setup.Project) (bool, error) {
	plan, err := p.PlanUninstall()
	if err != nil {
		return false, err
	}
	for _, c := range plan.Changes {
		if k := c.Artifact.Kind; c.Changed() && c.Artifact.Scope == integrations.Project && (k == integrations.JSONHooks || k == integrations.TOMLBlock) {
			return true, nil
		}
	}
	return false, nil
}

// connected reports whether any of the project's files holds the agent's
// part: uninstalling would change something (a user-level file that holds
// it, Kimi's hooks for every project, does not make this project
// connected). legacy names the files, project or user-level, that hold
// what an older agentlock wrote for an unsupported CLI (the legacy
// kimi-cli). It notes the folders of the agent's files, where the
// temporary-files check looks.
func (d *run) connected(p *setup.Project) (installed bool, legacy string, err error) {
	plan, err := p.PlanUninstall()
	if err != nil {
		return false, "", err
	}
	var old []string
	for _, c := range plan.Changes {
		d.dirs = append(d.dirs, filepath.Dir(c.Path))
		if !c.Changed() {
			continue
		}
		if c.Artifact.Unsupported {
			old = append(old, c.Artifact.Label())
		} else if c.Artifact.Scope == integrations.Project && !c.Artifact.MCPOnly {
			// An MCP file alone (.mcp.json, which Claude Code and
			// Copilot CLI share) connects no agent.
			installed = true
		}
	}
	return installed, strings.Join(old, ", "), nil
}

// drift compares the agent's files with what init writes now. A hook file
// out of date may gate edits wrongly or not at all: a problem; other files
// (instructions, skills, wrappers): a warning. Files another agentlock
// build wrote are said so, with whether that changes anything.
func drift(p *setup.Project, a integrations.Agent, current setup.Writer) Check {
	c := drifted(p, a)
	if others, err := p.OtherWriters(current); err != nil {
		c.Detail += "; " + err.Error()
	} else if len(others) == 1 {
		c.Detail += "; " + others[0].Note()
	}
	return c
}

func drifted(p *setup.Project, a integrations.Agent) Check {
	c := Check{Name: "integration-" + a.Name(), Fix: "agentlock init --agent " + a.Name()}
	plan, err := p.PlanInstall()
	if err != nil {
		c.Status, c.Detail = Problem, fmt.Sprintf("%s's files cannot be brought up to date: %v", a.Title(), err)
		return c
	}
	var stale []string
	hooks := false
	for _, ch := range plan.Changes {
		// An agent with user-level files (Kimi Code) is set up only with
		// the user's consent.
		if ch.Artifact.Scope == integrations.User && !strings.HasSuffix(c.Fix, " --global") {
			c.Fix += " --global"
		}
		if !ch.Changed() {
			continue
		}
		stale = append(stale, ch.Artifact.Label())
		if k := ch.Artifact.Kind; k == integrations.JSONHooks || k == integrations.TOMLBlock {
			hooks = true
		}
	}
	switch {
	case len(stale) == 0:
		c.Status, c.Detail, c.Fix = OK, fmt.Sprintf("%s is connected and its files are up to date", a.Title()), ""
	case hooks:
		c.Status, c.Detail = Problem, fmt.Sprintf("%s's hooks are missing or out of date (%s): edits may go unchecked", a.Title(), strings.Join(stale, ", "))
	default:
		c.Status, c.Detail = Warn, fmt.Sprintf("%s's files are out of date: %s", a.Title(), strings.Join(stale, ", "))
	}
	return c
}

// codexConfig is Codex's user configuration file.
func (d *run) codexConfig() string {
	home := d.opts.CodexHome
	if home == "" {
		home = filepath.Join(d.opts.Settings.UserHome, ".codex")
	}
	return filepath.Join(home, "config.toml")
}

// codexStateHeader matches a Codex hook-trust table header:
// [hooks.state."<key>"], the key naming the hooks.json file and the hook's
// place in it.
var codexStateHeader = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*\[\s*hooks\.state\.("(?:[^"\\]|\\.)*"|'[^']*')\s*\]\s*(#.*)?$`)
})

// codexTrust looks in Codex's config.toml for trust recorded for the hooks
// of hooksFile. Codex runs a project's hooks only when their hash is
// trusted (codex exec skips the others silently); the hash is Codex's own
// over the command, matcher, timeout and status message, which agentlock
// does not compute: it can tell that trust was never given, not that the
// trust given still matches.
func codexTrust(hooksFile, config string) Check {
	c := Check{Name: "codex-hook-trust"}
	data, err := os.ReadFile(config)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.Status, c.Detail, c.Fix = Warn, fmt.Sprintf("cannot read %s: %v", config, err), "make it readable, or check in codex /hooks that agentlock's hooks are trusted"
		return c
	}
	trusted := 0
	inEntry := false
	for _, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "[") {
			m := codexStateHeader().FindStringSubmatch(trimmed)
			inEntry = m != nil && strings.Contains(unquoteKey(m[1]), hooksFile)
			continue
		}
		if inEntry && strings.HasPrefix(trimmed, "trusted_hash") {
			trusted++
			inEntry = false
		}
	}
	if trusted == 0 {
		c.Status = Problem
		c.Detail = fmt.Sprintf("Codex has no trust recorded for the hooks in %s (looked in %s): it does not run untrusted hooks, so edits go unchecked", hooksFile, config)
		c.Fix = "run codex in this project and trust agentlock's hooks in /hooks"
		return c
	}
	c.Status = Warn
	c.Detail = fmt.Sprintf("Codex has trust recorded for %d hook(s) of %s; whether it matches the hooks as they are now cannot be verified here (the hash is Codex's)", trusted, hooksFile)
	c.Fix = "after init changed the hooks, run codex /hooks and trust them again"
	return c
}

// unquoteKey returns a TOML quoted key's text.
func unquoteKey(q string) string {
	if strings.HasPrefix(q, "'") {
		return strings.Trim(q, "'")
	}
	var s string
	if err := json.Unmarshal([]byte(q), &s); err == nil {
		return s
	}
	return strings.Trim(q, `"`)
}

// geminiTrust checks Gemini CLI's folder trust for the project root, in
// its trustedFolders.json: a folder it is told not to trust runs no
// project hook (a problem); one it was never told to trust asks at start
// (a warning).
func geminiTrust(root, file string) Check {
	return folderTrust(Check{Name: "gemini-folder-trust"}, "Gemini CLI", "gemini", root, file)
}

// folderTrust checks the trustedFolders.json of a Gemini CLI lineage
// (Gemini CLI, Qwen Code) for the project root: {"<folder>":
// "TRUST_FOLDER" | "TRUST_PARENT" | "DO_NOT_TRUST"}.
func folderTrust(c Check, product, command, root, file string) Check {
	fix := "run " + command + " in " + root + " and trust the folder, or add \"" + root + "\": \"TRUST_FOLDER\" to " + file
	data, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		c.Status, c.Detail, c.Fix = Warn, fmt.Sprintf("%s has not been told to trust %s (%s does not exist): it asks at start, and runs no project hook until trusted", product, root, file), fix
		return c
	}
	var rules map[string]string
	if err == nil {
		err = json.Unmarshal(data, &rules)
	}
	if err != nil {
		c.Status, c.Detail, c.Fix = Warn, fmt.Sprintf("cannot read %s's folder trust in %s: %v", product, file, err), fix
		return c
	}
	for folder, level := range rules {
		if level == "DO_NOT_TRUST" && filepath.Clean(folder) == root {
			c.Status, c.Detail, c.Fix = Problem, fmt.Sprintf("%s is told not to trust %s (%s): it runs no project hook there, so edits go unchecked", product, root, file), fix
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
		if inside(root, scope) {
			c.Status, c.Detail = OK, fmt.Sprintf("%s trusts %s (%s: %s)", product, root, folder, level)
			return c
		}
	}
	c.Status, c.Detail, c.Fix = Warn, fmt.Sprintf("%s has not been told to trust %s (%s): it asks at start, and runs no project hook until trusted", product, root, file), fix
	return c
}

// qwenTrust checks what keeps Qwen Code from running the project's hooks,
// from its user settings (~/.qwen/settings.json): folder trust, off by
// default, then checked as Gemini CLI's is (~/.qwen/trustedFolders.json);
// disableAllHooks; and a tools.executionSandbox policy, under which Qwen
// runs no hook at all.
func qwenTrust(root, qwenDir string) Check {
	c := Check{Name: "qwen-project-trust"}
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
		c.Status, c.Detail, c.Fix = Warn, fmt.Sprintf("cannot read Qwen Code's settings %s: %v", file, err), "make "+file+" readable"
		return c
	}
	if err == nil {
		if err := json.Unmarshal(stripJSONComments(data), &settings); err != nil {
			c.Status, c.Detail, c.Fix = Warn, fmt.Sprintf("cannot read Qwen Code's settings %s: %v", file, err), "fix the JSON of "+file
			return c
		}
	}
	switch {
	case settings.DisableAllHooks:
		c.Status, c.Detail, c.Fix = Problem, fmt.Sprintf("Qwen Code runs no hook: disableAllHooks is true in %s, so edits go unchecked", file), "remove disableAllHooks from "+file
		return c
	case len(settings.Tools.ExecutionSandbox) > 0 && string(settings.Tools.ExecutionSandbox) != "null":
		c.Status, c.Detail, c.Fix = Problem, fmt.Sprintf("Qwen Code runs no hook under a tools.executionSandbox policy (%s), so edits go unchecked", file), "remove tools.executionSandbox from "+file+", or run Qwen Code without agentlock's gate"
		return c
	case !settings.Security.FolderTrust.Enabled:
		c.Status, c.Detail = OK, "Qwen Code's folder trust is off (its default): it runs the project's hooks in every folder (not under --bare or --safe-mode)"
		return c
	}
	return folderTrust(c, "Qwen Code", "qwen", root, filepath.Join(qwenDir, "trustedFolders.json"))
}

// stripJSONComments blanks the // and /* */ comments of a JSONC text
// (Qwen Code's and Gemini CLI's settings allow them), outside strings.
func stripJSONComments(data []byte) []byte {
	out := append([]byte(nil), data...)
	for i := 0; i < len(out); i++ {
		switch {
		case out[i] == '"':
			for i++; i < len(out) && out[i] != '"'; i++ {
				if out[i] == '\\' {
					i++
				}
			}
		case out[i] == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case out[i] == '/' && i+1 < len(out) && out[i+1] == '*':
			j := i
			for ; j < len(out) && !(out[j] == '*' && j+1 < len(out) && out[j+1] == '/' && j > i+1); j++ {
				if out[j] != '\n' {
					out[j] = ' '
				}
			}
			for k := j; k < len(out) && k < j+2; k++ {
				out[k] = ' '
			}
			i = j + 1
		}
	}
	return out
}

// clineHooksExecutable: Cline runs a hook file only when it is executable
// (a checkout or a copy that lost the mode gates nothing, silently).
func clineHooksExecutable(root string) Check {
	c := Check{Name: "cline-hooks-executable", Status: OK, Detail: "Cline's hook files in " + cline.HooksDir + " are executable"}
	for _, h := range cline.Hooks {
		path := filepath.Join(root, cline.HooksDir, h.File)
		fi, err := os.Stat(path)
		if err != nil || fi.Mode()&0o111 == 0 {
			c.Status = Problem
			c.Detail = fmt.Sprintf("Cline runs only executable hook files, and %s is not (%v): its edits go unchecked", path, err)
			c.Fix = "chmod +x " + filepath.Join(root, cline.HooksDir) + "/*, or agentlock init --agent cline"
			return c
		}
	}
	return c
}

// piTrust: Pi loads .pi/extensions only in a trusted project. Its
// decisions are in <agent dir>/trust.json ({"<folder>": true|false}, the
// closest folder at or above the project decides); without one, its
// settings.json's defaultProjectTrust ("ask" unless "always") decides.
func piTrust(root, agentDir string) Check {
	c := Check{Name: "pi-project-trust"}
	file := filepath.Join(agentDir, "trust.json")
	fix := "start pi in " + root + " and trust the project (or /trust); headless: pi --approve -p ..."
	var decisions map[string]bool
	data, err := os.ReadFile(file)
	if err == nil {
		err = json.Unmarshal(data, &decisions)
	}
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		c.Status, c.Detail, c.Fix = Warn, fmt.Sprintf("cannot read Pi's trust decisions %s: %v", file, err), fix
		return c
	}
	for dir := root; ; dir = filepath.Dir(dir) {
		if trusted, ok := decisions[dir]; ok {
			if trusted {
				c.Status, c.Detail = OK, fmt.Sprintf("Pi trusts %s (%s): it loads agentlock's extension", dir, file)
			} else {
				c.Status, c.Detail, c.Fix = Problem, fmt.Sprintf("Pi is told not to trust %s (%s): it loads no project extension, so edits go unchecked", dir, file), fix
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
		c.Status, c.Detail = OK, "Pi trusts every project (defaultProjectTrust \"always\"): it loads agentlock's extension"
		return c
	}
	c.Status, c.Detail, c.Fix = Warn, fmt.Sprintf("Pi has not been told to trust %s: it asks at start, and in print mode (-p) loads no project extension unless run with --approve", root), fix
	return c
}
