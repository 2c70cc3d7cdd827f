package all_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/all"
	"github.com/agentlock/agentlock/templates"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata/ and ../../SKILL.md")

// golden compares got with the file testdata/<name>, or rewrites it.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", filepath.FromSlash(name))
	if *update {
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, got, 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "missing golden file: run go test ./integrations/all -update")
	assert.Equal(t, string(want), string(got), "%s differs from the golden file: review, then go test ./integrations/all -update", name)
}

// Every agent's plan, rendered, is kept as golden files: a change to a
// template shows up as a reviewed diff of exactly what users get.
func TestPlansMatchGoldenFiles(t *testing.T) {
	variants := []struct {
		name     string
		agent    string
		kimiCode bool
	}{
		{"claude", "claude", false}, {"codex", "codex", false}, {"gemini", "gemini", false},
		{"kimi", "kimi", false}, {"kimi-code", "kimi", true},
	}
	for _, v := range variants {
		t.Run(v.name, func(t *testing.T) {
			agent, ok := all.Lookup(v.agent)
			require.True(t, ok)
			env := integrations.Env{Bin: "agentlock", UserHome: "/home/user", Global: true,
				Exists: func(p string) bool { return v.kimiCode && p == "/home/user/.kimi-code" }}
			arts, _, err := agent.Plan(env)
			require.NoError(t, err)
			var index strings.Builder
			for _, a := range arts {
				name := a.Path
				if a.Scope == integrations.User {
					name = "~/" + name
				}
				index.WriteString(name + "\t" + a.Kind.String() + "\t" + a.Purpose + "\n")
				golden(t, v.name+"/"+strings.ReplaceAll(name, "~/", "HOME/"), a.Content)
				if a.Kind == integrations.OwnedFile {
					assert.Contains(t, strings.Join(strings.SplitN(string(a.Content), "\n", 5)[:4], "\n"), integrations.Marker,
						"%s carries the generated marker in its first lines", a.Path)
				}
			}
			golden(t, v.name+"/PLAN", []byte(index.String()))
		})
	}
}

// Every hook command checks that agentlock is on PATH first, and runs the
// one stable "agentlock hook <agent> <event>" command.
func TestHookCommandsAreGuardedAndStable(t *testing.T) {
	for _, agent := range all.Agents() {
		for _, event := range []string{"pre-edit", "session-start", "renew", "session-end"} {
			cmd, err := templates.HookCommand("agentlock", agent.Name(), event)
			require.NoError(t, err)
			assert.Contains(t, cmd, "command -v agentlock")
			assert.Contains(t, cmd, "agentlock hook "+agent.Name()+" "+event)
		}
	}
}

// The SKILL.md at the repository root is the generator's skill, rendered
// from the same template.
func TestRootSkillMatchesTemplate(t *testing.T) {
	skill, err := integrations.Skill("SKILL.md", templates.AgentData{Bin: "agentlock"})
	require.NoError(t, err)
	path := filepath.Join("..", "..", "SKILL.md")
	if *update {
		require.NoError(t, os.WriteFile(path, skill.Content, 0o644))
	}
	root, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, string(skill.Content), string(root), "SKILL.md is stale: go test ./integrations/all -update")
	for _, must := range []string{"advisory", "NFS", "iCloud Drive", "Dropbox", "exit", "agentlock acquire"} {
		assert.Contains(t, string(root), must)
	}
}

// Every agent in the list has a template folder, and every template folder
// has an agent: adding a fifth agent means one package and one folder.
func TestEveryAgentHasTemplates(t *testing.T) {
	folders, err := templates.Agents()
	require.NoError(t, err)
	assert.ElementsMatch(t, folders, all.Names())
}
