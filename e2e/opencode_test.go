//go:build linux

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/agentlock/agentlock/e2e/mock"
)

// openCodePluginSDK is what OpenCode installs into .opencode/ at every
// start, at its own version (npm, offline in the tests: from the e2e npm
// cache, seeded while the network is there).
func openCodePluginSDK(t *testing.T) string {
	return "@opencode-ai/plugin@" + openCodeCLI.current(t).version
}

// openCodeAgent drives OpenCode headless (opencode run) against the mock's
// Chat Completions through an @ai-sdk/openai-compatible provider in the
// user's opencode.json, offline: no model catalogue fetch, no update
// check, no sharing, npm offline.
func openCodeAgent(t *testing.T) agent {
	return openCodeFamily(t, openCodeCLI, "OPENCODE", "opencode.json", openCodePluginSDK(t))
}

// kiloAgent drives Kilo Code CLI as openCodeAgent drives OpenCode: its
// variables are KILO_*, its user config ~/.config/kilo/kilo.json. Its
// plugin SDK (@kilocode/plugin at its version) is not on the registry: the
// background install fails, with a warning, and changes nothing.
//
// Kilo 7.7.9 takes about 100 s from start to its first model call in a
// network namespace without a route out (about 45 s of it before its event
// stream connects), so a run gets 6 minutes (it took up to 190 s at a load average of 40). Telemetry, session ingest,
// codebase indexing and presence are off.
func kiloAgent(t *testing.T) agent {
	a := openCodeFamily(t, kiloCLI, "KILO", "kilo.json", "")
	a.timeout = 6 * time.Minute
	configure := a.configure
	a.configure = func(t *testing.T, r *e2eRun, prompt string) ([]string, []string) {
		args, env := configure(t, r, prompt)
		return args, append(env, "KILO_TELEMETRY_LEVEL=off", "KILO_DISABLE_SESSION_INGEST=1", "KILO_DISABLE_CODEBASE_INDEXING=1",
			"KILO_DISABLE_PRESENCE=1")
	}
	return a
}

// openCodeFamily is the agent of OpenCode or its fork: env is the prefix
// of its variables, config its user config file's name, sdk the package
// to seed the npm cache with ("" for none).
func openCodeFamily(t *testing.T, cli agentCLI, env, config, sdk string) agent {
	npmCache := seedNPMCache(t, sdk)
	return agent{
		cli: cli,
		// OpenCode takes 20 to 40 s to a finished run here, over a minute
		// on a loaded machine.
		timeout:  3 * time.Minute,
		offline:  true,
		shellVar: env + "_SESSION_ID",
		configure: func(t *testing.T, r *e2eRun, prompt string) ([]string, []string) {
			model := "mock-model"
			if r.model != "" {
				model = r.model
			}
			r.write(t, filepath.Join(r.home, ".config", cli.name, config), openCodeConfig(r.server.URL()+"/v1"))
			return []string{"run", "--model", "mock/" + model, prompt},
				[]string{env + "_DISABLE_MODELS_FETCH=1", env + "_DISABLE_AUTOUPDATE=1", env + "_DISABLE_SHARE=1",
					env + "_DISABLE_LSP_DOWNLOAD=1", "npm_config_offline=true", "npm_config_cache=" + npmCache,
					"XDG_CONFIG_HOME=" + filepath.Join(r.home, ".config"), "XDG_DATA_HOME=" + filepath.Join(r.home, ".local", "share"),
					"XDG_CACHE_HOME=" + filepath.Join(r.home, ".cache"), "XDG_STATE_HOME=" + filepath.Join(r.home, ".local", "state")}
		},
		edit: func(path, old, new string) ([]mock.Step, mock.Step) {
			return []mock.Step{{Tool: "read", Args: map[string]any{"filePath": path}}},
				mock.Step{Tool: "edit", Args: map[string]any{"filePath": path, "oldString": old, "newString": new}}
		},
		// Not a bypass: the second edit tool, write, on the other held file.
		bypass: func(r *e2eRun) ([]mock.Step, mock.Step, string) {
			path := filepath.Join(r.repo, "held2.txt")
			return []mock.Step{{Tool: "read", Args: map[string]any{"filePath": path}}},
				mock.Step{Tool: "write", Args: map[string]any{"filePath": path, "content": "overwritten\n"}}, "write of a held file"
		},
		// The plugin appends the renew hook's notice to the tool's output.
		stale: &staleCase{
			read: func(path string) mock.Step { return mock.Step{Tool: "read", Args: map[string]any{"filePath": path}} },
			write: func(path, content string) mock.Step {
				return mock.Step{Tool: "write", Args: map[string]any{"filePath": path, "content": content}}
			},
			toldEarly: true,
		},
	}
}

// openCodeConfig is the user's opencode.json: one provider, the mock, with
// a model id without "gpt-" (edit and write) and one with (apply_patch).
func openCodeConfig(baseURL string) string {
	return mustJSON(map[string]any{
		"$schema":    "https://opencode.ai/config.json",
		"autoupdate": false,
		"share":      "disabled",
		"provider": map[string]any{"mock": map[string]any{
			"npm":     "@ai-sdk/openai-compatible",
			"name":    "Mock",
			"options": map[string]any{"baseURL": baseURL, "apiKey": "sk-mock"},
			"models":  map[string]any{"mock-model": map[string]any{"name": "Mock"}, "gpt-5.5": map[string]any{"name": "Mock GPT"}},
		}},
	})
}

// seedNPMCache returns the e2e npm cache folder, with pkg added to it
// while the network is there (before offline): the CLI's own npm install
// then runs offline from it.
func seedNPMCache(t *testing.T, pkg string) string {
	t.Helper()
	cache, err := cacheDir()
	if err != nil {
		skipLoudly(t, "%v", err)
	}
	dir := filepath.Join(cache, "npm-cache")
	if pkg == "" {
		return dir
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		skipLoudly(t, "cannot seed the npm cache with %s: npm is not on PATH", pkg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	if out, err := exec.CommandContext(ctx, npm, "cache", "add", "--cache", dir, "--prefer-offline", pkg).CombinedOutput(); err != nil {
		skipLoudly(t, "npm cache add %s: %v\n%s", pkg, err, out)
	}
	return dir
}

// TestE2EOpenCode is TestE2E for OpenCode: the direct run (the plugin
// alone: a held file denied through edit and through write, a free edit
// locked by the CLI's session, whoami from OPENCODE_SESSION_ID, session
// start, exit finishing the session), the wrapper run, and apply_patch
// (a model id with "gpt-"): a patch of a free and a held file refused whole;
// and two task sub-agents racing for one file (e2eSubagentRace).
func TestE2EOpenCode(t *testing.T) { e2eOpenCodeFamily(t, openCodeCLI, openCodeAgent, "edit", "write") }

// TestE2EKilo is TestE2EOpenCode for Kilo Code CLI, whose gpt- model ids
// get write beside apply_patch (no edit).
func TestE2EKilo(t *testing.T) { e2eOpenCodeFamily(t, kiloCLI, kiloAgent, "edit") }

// e2eOpenCodeFamily runs the cases of TestE2EOpenCode with cli; notPatch
// are the edit tools a gpt- model id is not offered.
func e2eOpenCodeFamily(t *testing.T, cli agentCLI, agentOf func(*testing.T) agent, notPatch ...string) {
	e2eOnly(t)
	prog := cli.install(t)
	a := agentOf(t)
	t.Run("session", func(t *testing.T) { offline(t); e2eSession(t, a, prog) })
	t.Run("wrapper", func(t *testing.T) { offline(t); e2eWrapper(t, a, prog) })
	t.Run("stale", func(t *testing.T) { offline(t); e2eStale(t, a, prog) })
	t.Run("apply_patch", func(t *testing.T) {
		offline(t)
		r := e2ePatchTool(t, a, prog, func(text string) mock.Step {
			return mock.Step{Tool: "apply_patch", Args: map[string]any{"patchText": text}}
		}, notPatch...)
		openCodeKeptOutOfGit(t, r, a)
	})
	t.Run("subagents", func(t *testing.T) { offline(t); e2eSubagentRace(t, a, prog, openCodeSubagents) })
}

// openCodeKeptOutOfGit checks that git ignores what the CLI installs into
// its config folder in the background at start (the list of its own
// Config.ensureGitignore, which it writes only where no .gitignore is):
// node_modules, package.json and the lockfiles; the folder's own files
// (the plugin) are not ignored.
func openCodeKeptOutOfGit(t *testing.T, r *e2eRun, a agent) {
	t.Helper()
	dir := "." + a.cli.name
	if _, err := os.Stat(filepath.Join(r.repo, dir, "package.json")); err == nil {
		t.Logf("%s installed its plugin SDK into %s during the run", a.cli.name, dir)
	}
	for _, name := range []string{"node_modules/@opencode-ai/plugin/package.json", "node_modules/@kilocode/plugin/package.json", "package.json", "package-lock.json", "bun.lock", "pnpm-lock.yaml", "yarn.lock"} {
		path := dir + "/" + name
		if out, err := exec.Command("git", "-C", r.repo, "check-ignore", "-q", path).CombinedOutput(); err != nil {
			t.Errorf("git does not ignore %s (%v %s): a commit would take what %s installs", path, err, out, a.cli.name)
		}
	}
	plugin := dir + "/plugins/agentlock.js"
	if err := exec.Command("git", "-C", r.repo, "check-ignore", "-q", plugin).Run(); err == nil {
		t.Errorf("git ignores %s: a clone would not be gated", plugin)
	}
}
