package main_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// tinkerManifest is the test-only agent that exists only as a manifest.
func tinkerManifest(t *testing.T) []byte {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "agents", "tinker.toml"))
	require.NoError(t, err)
	return data
}

// tinkerEdit is the imaginary harness's pre-edit payload; args is the
// toolArgs member as it arrives (an object, or a JSON string).
func tinkerEdit(dir, session, tool string, args any) string {
	data, _ := json.Marshal(map[string]any{"sessionId": session, "workingDir": dir, "toolName": tool, "toolArgs": args})
	return string(data)
}

// An agent that no Go code knows, given to init as a manifest path: init
// plans its files and a copy of the manifest, its hooks (the real
// agentlock processes the imaginary harness would run) gate edits from its
// own payload fields, whether toolArgs is an object or a JSON string, and
// uninit removes exactly what init added.
func TestAManifestAgentNeedsNoCode(t *testing.T) {
	p := newProject(t)
	manifestPath := filepath.Join(p.home, "tinker.toml")
	require.NoError(t, os.WriteFile(manifestPath, tinkerManifest(t), 0o644))
	p.write("TINKER.md", "# My notes\n")

	r := p.run("init", "--agent", manifestPath)
	requireExit(t, 0, r)
	for _, file := range []string{"TINKER.md", ".tinker/hooks.toml", "scripts/agentlock-tinker", ".agentlock/agents/tinker.toml"} {
		assert.Contains(t, r.Stdout, file, "init plans %s", file)
	}
	assert.True(t, strings.HasPrefix(p.read("TINKER.md"), "# My notes\n"), "the block goes at the bottom, the user's text stays")
	hooksFile := p.read(".tinker/hooks.toml")
	assert.Contains(t, hooksFile, "event = \"beforeTool\"\nmatcher = \"write|multi_write\"\ncommand = \"sh -c 'command -v agentlock")
	assert.Contains(t, hooksFile, "exec agentlock hook tinker pre-edit'\"\ntimeout = 20\n")
	requireExit(t, 0, p.run("init", "--agent", manifestPath, "--check"))
	// Later runs name the agent: the project's copy is what they find.
	requireExit(t, 0, p.run("init", "--agent", "tinker", "--check"))

	held := filepath.Join(p.dir, "a.txt")
	hook := func(payload string) (int, string) {
		r := harness(t).Run(t, cmdIn(p, payload, "hook", "tinker", "pre-edit"))
		return r.Code, r.Stderr + r.Stdout
	}
	code, out := hook(tinkerEdit(p.dir, "one", "write", map[string]string{"path": held}))
	require.Equal(t, 0, code, out)
	assert.Equal(t, "tinker-one", p.owner("a.txt"), "the lock is the session's, by the manifest's id prefix")

	args, _ := json.Marshal(map[string]any{"paths": []string{"b.txt", "a.txt"}})
	code, out = hook(tinkerEdit(p.dir, "two", "multi_write", string(args)))
	assert.Equal(t, 2, code, "toolArgs as a JSON string is read too: the held file denies the whole edit, exit 2: %s", out)
	assert.Contains(t, out, "locked by session tinker-one")
	assert.Equal(t, 1, strings.Count(strings.TrimSpace(out), "\n")+1, "one line: %q", out)
	assert.Equal(t, "", p.owner("b.txt"), "all or none: the free file of the denied edit is not locked")

	code, out = hook(tinkerEdit(p.dir, "two", "read", map[string]string{"path": held}))
	assert.Equal(t, 0, code, "a tool the manifest does not list as an edit is not gated: %s", out)

	start := harness(t).Run(t, cmdIn(p, `{"sessionId":"three","workingDir":"`+p.dir+`"}`, "hook", "tinker", "session-start"))
	requireExit(t, 0, start)
	var ctx map[string]string
	require.NoError(t, json.Unmarshal([]byte(start.Stdout), &ctx), start.Stdout)
	assert.Contains(t, ctx["additionalContext"], "tinker-three", "the top-level form tells the model its id")

	who := p.runEnv([]string{"TINKER_SESSION=four"}, "whoami")
	requireExit(t, 0, who)
	assert.Contains(t, who.Stdout, "tinker-four", "the shell's variable names the session")

	requireExit(t, 0, p.run("uninit", "--agent", "tinker"))
	assert.Equal(t, "# My notes\n", p.read("TINKER.md"))
	for _, gone := range []string{".tinker", "scripts/agentlock-tinker", ".agentlock"} {
		assert.NoFileExists(t, filepath.Join(p.dir, gone))
		assert.NoDirExists(t, filepath.Join(p.dir, gone))
	}
}

// cmdIn is an agentlock command run in p with stdin.
func cmdIn(p *project, stdin string, args ...string) proctest.Cmd {
	return proctest.Cmd{Args: args, Env: p.env, Dir: p.dir, Stdin: stdin}
}

// A manifest in the user's folder adds the agent to every project, with
// no copy in the project.
func TestAManifestInTheUserFolderAddsAnAgent(t *testing.T) {
	p := newProject(t)
	dir := filepath.Join(p.home, ".config", "agentlock", "agents")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "tinker.toml"), tinkerManifest(t), 0o644))
	r := p.run("init", "--agent", "tinker")
	requireExit(t, 0, r)
	assert.FileExists(t, filepath.Join(p.dir, ".tinker", "hooks.toml"))
	assert.NoFileExists(t, filepath.Join(p.dir, ".agentlock", "agents", "tinker.toml"), "the user's manifest is not copied")
	help := p.run("init", "--agent", "nosuch")
	assert.NotEqual(t, 0, help.Code)
	assert.Contains(t, help.Stderr, "tinker", "the known agents include the user's")
}

// A malformed manifest is refused with one line naming the field, and
// nothing is written.
func TestAMalformedManifestIsRefusedNamingTheField(t *testing.T) {
	good := string(tinkerManifest(t))
	for _, c := range []struct{ name, from, to, field string }{
		{"unknown field", `provider = "tinkerers"`, "provider = \"tinkerers\"\ncolour = \"blue\"", "field colour: unknown field"},
		{"wrong type", `timeout = 20`, `timeout = "20s"`, "field hooks.events.timeout"},
		{"bad event", `run = "session-end"`, `run = "goodbye"`, "field hooks.events[2].run"},
		{"bad deny", `form = "exit2"`, `form = "shout"`, "field deny.form"},
		{"escaping path", `path = "TINKER.md"`, `path = "../TINKER.md"`, "field instructions[0].path"},
		{"not toml", `name = "tinker"`, `name = tinker`, "agent manifest"},
		{"bad name", `name = "tinker"`, `name = "Tinker Bell"`, "field name"},
	} {
		t.Run(c.name, func(t *testing.T) {
			require.Contains(t, good, c.from)
			p := newProject(t)
			path := filepath.Join(p.home, "tinker.toml")
			require.NoError(t, os.WriteFile(path, []byte(strings.Replace(good, c.from, c.to, 1)), 0o644))
			r := p.run("init", "--agent", path)
			assert.NotEqual(t, 0, r.Code)
			assert.Contains(t, r.Stderr, path)
			assert.Contains(t, r.Stderr, c.field)
			assert.Equal(t, 1, strings.Count(strings.TrimSpace(r.Stderr), "\n")+1, "one line: %q", r.Stderr)
			entries, err := os.ReadDir(p.dir)
			require.NoError(t, err)
			assert.Len(t, entries, 1, "nothing written besides .git")
		})
	}
}
