package main_test

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/proctest"
)

// snapshot maps every file and folder below dir (but .git) to its content
// and permissions, to compare whole trees byte for byte.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if rel == ".git" {
			return filepath.SkipDir
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if d.IsDir() {
			out[rel+"/"] = info.Mode().String()
			return nil
		}
		data, err := os.ReadFile(path)
		out[rel] = info.Mode().String() + "\n" + string(data)
		return err
	}))
	return out
}

// userFiles are files a user already has; init and uninit must leave their
// bytes alone.
var userFiles = map[string]string{
	"AGENTS.md":  "# Project rules\n\nUse tabs.\n",
	"GEMINI.md":  "Be brief.\n",
	".gitignore": "node_modules/\n*.log\n",
	".claude/settings.json": `{
  "permissions": {"allow": ["Bash(go test:*)"]},
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "./scripts/guard.sh"}]}
    ]
  }
}
`,
	".gemini/settings.json": `// team settings
{
  "theme": "GitHub", // light
  /* hooks the team wants */
  "hooks": {
    "BeforeTool": [
      {"matcher": "run_shell_command", "hooks": [{"name": "guard", "type": "command", "command": "guard"}]}
    ]
  }
}
`,
	".codex/hooks.json": "{\n    \"hooks\": {\n        \"Stop\": [{\"hooks\": [{\"type\": \"command\", \"command\": \"notify\"}]}]\n    }\n}\n",
	"src/main.go":       "package main\n",
}

func TestInitThenUninitRestoresAFreshRepository(t *testing.T) {
	for _, agent := range []string{"claude", "codex", "gemini", "kimi"} {
		t.Run(agent, func(t *testing.T) {
			p := newProject(t)
			before := snapshot(t, p.dir)
			r := p.run("init", "--agent", agent)
			requireExit(t, 0, r)
			assert.DirExists(t, filepath.Join(p.dir, ".agent-registry", "locks"))
			assert.FileExists(t, filepath.Join(p.dir, ".agent-registry", "registry.md"))
			assert.Contains(t, p.read(".gitignore"), "/.agent-registry/")
			assert.FileExists(t, filepath.Join(p.dir, "scripts", "agentlock-"+agent))
			requireExit(t, 0, p.run("uninit"))
			assert.Equal(t, before, snapshot(t, p.dir), "uninit returns the exact prior tree")
		})
	}
}

func TestInitAndUninitKeepUserContentByteForByte(t *testing.T) {
	p := newProject(t)
	for rel, content := range userFiles {
		p.write(rel, content)
	}
	before := snapshot(t, p.dir)
	requireExit(t, 0, p.run("init", "--agent", "all"))
	for rel, content := range userFiles {
		if rel == "src/main.go" {
			continue
		}
		got := p.read(rel)
		assert.NotEqual(t, content, got, "%s gained agentlock's part", rel)
		// The user's lines are all still there, in order.
		assert.True(t, containsInOrder(got, strings.Split(strings.TrimSpace(content), "\n")), "%s keeps the user's lines:\n%s", rel, got)
	}
	assert.Contains(t, p.read(".gemini/settings.json"), "// team settings", "JSONC comments survive")
	assert.Contains(t, p.read(".claude/settings.json"), "./scripts/guard.sh", "the user's own hook survives")
	assert.True(t, strings.HasPrefix(p.read("AGENTS.md"), "<!-- BEGIN agentlock"), "the AGENTS.md block is at the top")
	assert.NoFileExists(t, filepath.Join(p.dir, "AGENTS.override.md"))

	for _, agent := range []string{"claude", "codex", "gemini", "kimi"} {
		requireExit(t, 0, p.run("uninit", "--agent", agent))
	}
	requireExit(t, 0, p.run("uninit"))
	assert.Equal(t, before, snapshot(t, p.dir), "every user file is byte-identical after uninit")
}

func containsInOrder(text string, lines []string) bool {
	for _, l := range lines {
		i := strings.Index(text, l)
		if i < 0 {
			return false
		}
		text = text[i+len(l):]
	}
	return true
}

func TestInitTwiceChangesNothing(t *testing.T) {
	p := newProject(t)
	p.write("AGENTS.md", "# Rules\n")
	requireExit(t, 0, p.run("init", "--agent", "all"))
	first := snapshot(t, p.dir)
	r := p.run("init", "--agent", "all")
	requireExit(t, 0, r)
	assert.Equal(t, first, snapshot(t, p.dir))
	assert.NotContains(t, r.Stdout, "created")
	assert.NotContains(t, r.Stdout, "updated")
	assert.Contains(t, r.Stdout, "unchanged")
}

func TestInitCheckAndDryRun(t *testing.T) {
	p := newProject(t)
	r := p.run("init", "--agent", "codex", "--check")
	requireExit(t, 1, r)
	assert.Contains(t, r.Stdout, "missing: .agent-registry/")

	empty := snapshot(t, p.dir)
	r = p.run("init", "--agent", "codex", "--dry-run")
	requireExit(t, 0, r)
	assert.Equal(t, empty, snapshot(t, p.dir), "--dry-run writes nothing")
	assert.Contains(t, r.Stdout, "+++ b/AGENTS.md")
	assert.Contains(t, r.Stdout, "+++ b/.codex/hooks.json")
	assert.Contains(t, r.Stdout, "would create .agent-registry/")

	requireExit(t, 0, p.run("init", "--agent", "codex"))
	requireExit(t, 0, p.run("init", "--agent", "codex", "--check"))

	// Drift: a teammate edits the managed block; the hook entry is removed.
	p.write("AGENTS.md", strings.Replace(p.read("AGENTS.md"), "Before every change", "Sometimes", 1))
	r = p.run("init", "--agent", "codex", "--check")
	requireExit(t, 1, r)
	assert.Contains(t, r.Stdout, "out of date: AGENTS.md")
	r = p.run("init", "--agent", "codex", "--dry-run")
	assert.Contains(t, r.Stdout, "-- **Sometimes")
	assert.Contains(t, r.Stdout, "+- **Before every change")
	requireExit(t, 0, p.run("init", "--agent", "codex"))
	requireExit(t, 0, p.run("init", "--agent", "codex", "--check"))
}

func TestInitRefusesFilesItDoesNotOwnAndLinks(t *testing.T) {
	p := newProject(t)
	p.write(".claude/rules/agentlock.md", "my own notes\n")
	r := p.run("init", "--agent", "claude")
	requireExit(t, 1, r)
	assert.Contains(t, r.Stderr, "not written by agentlock")
	assert.Contains(t, r.Stderr, "nothing was written")
	assert.NoFileExists(t, filepath.Join(p.dir, ".claude", "settings.json"), "all or nothing")
	assert.Equal(t, "my own notes\n", p.read(".claude/rules/agentlock.md"))

	q := newProject(t)
	outside := t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(q.dir, ".codex")))
	r = q.run("init", "--agent", "codex")
	requireExit(t, 1, r)
	assert.Contains(t, r.Stderr, "symbolic link")
	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	assert.Empty(t, entries, "nothing written through the link")

	g := newProject(t)
	g.write(".gemini/settings.json", "{\"hooks\": {\"BeforeTool\": [1,],},}\n")
	r = g.run("init", "--agent", "gemini")
	requireExit(t, 1, r)
	assert.Contains(t, r.Stderr, "merge this into .gemini/settings.json", "prints the snippet to paste")
	assert.Contains(t, r.Stderr, "agentlock hook gemini pre-edit")
}

func TestKimiHooksOnlyWithGlobalConsent(t *testing.T) {
	p := newProject(t)
	require.NoError(t, os.MkdirAll(filepath.Join(p.home, ".kimi-code"), 0o700))
	config := filepath.Join(p.home, ".kimi-code", "config.toml")
	user := "default_model = \"kimi-k2\"\n\n[providers.moonshot]\napi_key = \"sk-secret\"  # mine\n"
	require.NoError(t, os.WriteFile(config, []byte(user), 0o600))

	r := p.run("init", "--agent", "kimi")
	requireExit(t, 0, r)
	assert.Contains(t, r.Stdout, "--global")
	assert.FileExists(t, filepath.Join(p.dir, ".kimi-code", "AGENTS.md"), "Kimi Code detected by ~/.kimi-code")
	data, err := os.ReadFile(config)
	require.NoError(t, err)
	assert.Equal(t, user, string(data), "no consent, no change to the user's config")

	requireExit(t, 0, p.run("init", "--agent", "kimi", "--global"))
	data, err = os.ReadFile(config)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(data), user), "appended, nothing re-serialised")
	assert.Contains(t, string(data), `matcher = "Write|Edit"`)
	if py, err := exec.LookPath("python3"); err == nil {
		check := proctest.Run(t, py, proctest.Cmd{Env: p.env, Args: []string{"-c",
			"import sys, tomllib; d = tomllib.load(open(sys.argv[1], 'rb')); " +
				"assert d['providers']['moonshot']['api_key'] == 'sk-secret'; " +
				"assert all(set(h) <= {'event', 'command', 'matcher', 'timeout'} for h in d['hooks']), d['hooks']; print(len(d['hooks']))",
			config}})
		requireExit(t, 0, check)
		assert.Equal(t, "5\n", check.Stdout)
	} else {
		t.Log("SKIPPED part: python3 is not on PATH; the TOML validity check did not run")
	}

	r = p.run("uninit", "--agent", "kimi")
	requireExit(t, 0, r)
	assert.Contains(t, r.Stdout, "note: ~/.kimi-code/config.toml still has agentlock's Kimi CLI hooks")
	data, err = os.ReadFile(config)
	require.NoError(t, err)
	assert.Contains(t, string(data), "# BEGIN agentlock", "without --global, the user file is not touched")

	requireExit(t, 0, p.run("uninit", "--agent", "kimi", "--global"))
	data, err = os.ReadFile(config)
	require.NoError(t, err)
	assert.Equal(t, user, string(data), "uninit --global gives the config back byte for byte")
}

func TestUninitKeepsTheHomeWhileLocksAreHeld(t *testing.T) {
	p := newProject(t)
	requireExit(t, 0, p.run("init"))
	p.write("src/a.go", "package a\n")
	requireExit(t, 0, p.run("acquire", "src/a.go", "claude-1"))
	r := p.run("uninit")
	requireExit(t, 0, r)
	assert.Contains(t, r.Stdout, "kept      .agent-registry/: locks are held")
	assert.DirExists(t, filepath.Join(p.dir, ".agent-registry"))
	requireExit(t, 0, p.run("release", "src/a.go", "claude-1"))
	requireExit(t, 0, p.run("uninit"))
	assert.NoDirExists(t, filepath.Join(p.dir, ".agent-registry"))
}

// In a real git repository, what init writes for Codex is what a Codex user
// commits, agentlock's local state stays out of git, and uninit leaves
// nothing behind.
func TestInitInAGitRepositoryProducesCommittableFiles(t *testing.T) {
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("SKIPPED: git is not on PATH; the git status check did not run")
	}
	p := newProject(t)
	require.NoError(t, os.RemoveAll(filepath.Join(p.dir, ".git")))
	gitRun := func(args ...string) string {
		r := proctest.Run(t, git, proctest.Cmd{Args: args, Env: p.env, Dir: p.dir})
		requireExit(t, 0, r)
		return r.Stdout
	}
	gitRun("init", "-q")
	requireExit(t, 0, p.run("init", "--agent", "codex"))
	requireExit(t, 0, p.run("acquire", "AGENTS.md", "codex-1"))
	status := gitRun("status", "--porcelain", "--untracked-files=all")
	assert.ElementsMatch(t, []string{"?? .agents/skills/agentlock/SKILL.md", "?? .codex/hooks.json", "?? .gitignore",
		"?? AGENTS.md", "?? scripts/agentlock-codex"}, strings.Split(strings.TrimSpace(status), "\n"),
		"the files to commit, and not .agent-registry/")
	requireExit(t, 0, p.run("release", "AGENTS.md", "codex-1"))
	requireExit(t, 0, p.run("uninit"))
	assert.Empty(t, gitRun("status", "--porcelain", "--untracked-files=all"))
}
