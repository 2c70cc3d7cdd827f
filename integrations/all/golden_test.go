package all_test

import (
	"flag"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/all"
	"github.com/agentlock/agentlock/integrations/manifest"
	"github.com/agentlock/agentlock/templates"
)

var update = flag.Bool("update", false, "rewrite the golden files under each agent's testdata/golden and ../../SKILL.md")

// goldenVariant is one plan kept as golden files in dir.
type goldenVariant struct {
	dir   string
	agent integrations.Agent
	// exists is the one path the environment reports as existing.
	exists string
}

// agentDir is the folder of a built-in agent: integrations/<name>/.
func agentDir(name string) string { return filepath.Join("..", name) }

// goldenVariants are every agent of all.Agents(), planned in a home where
// nothing is installed, its golden files in its own folder
// (integrations/<name>/testdata/golden) — so that an agent added without
// golden files fails.
func goldenVariants() []goldenVariant {
	var vs []goldenVariant
	for _, a := range all.Agents() {
		vs = append(vs, goldenVariant{dir: filepath.Join(agentDir(a.Name()), "testdata", "golden"), agent: a})
	}
	return vs
}

// planFiles renders v's plan as the files kept for it: each artifact's
// content under its path (HOME/ for user files) and PLAN, the index.
func planFiles(t *testing.T, v goldenVariant) map[string][]byte {
	t.Helper()
	env := integrations.Env{Bin: "agentlock", UserHome: "/home/user", Global: true,
		Exists: func(p string) bool { return v.exists != "" && p == v.exists }}
	// Planned as init plans it, with the MCP registration.
	arts, _, err := integrations.Setup{Env: env, Agents: []integrations.Agent{v.agent}, MCP: true}.Plan()
	require.NoError(t, err)
	files := map[string][]byte{}
	var index strings.Builder
	for _, a := range arts {
		name, file := a.Path, a.Path
		if a.Scope == integrations.User {
			name, file = "~/"+a.Path, "HOME/"+a.Path
		}
		index.WriteString(name + "\t" + a.Kind.String() + "\t" + a.Purpose + "\n")
		files[file] = a.Content
		if a.MCP != nil && a.Kind != integrations.MCPEntry {
			// The MCP entry merged into the same file, as agentlock
			// would write it alone.
			files[file+".mcp"] = a.MCP
		}
		if a.Kind == integrations.OwnedFile {
			assert.Contains(t, strings.Join(strings.SplitN(string(a.Content), "\n", 5)[:4], "\n"), integrations.Marker,
				"%s carries the generated marker in its first lines", a.Path)
		}
	}
	files["PLAN"] = []byte(index.String())
	return files
}

// Every agent's plan, rendered, is kept as golden files: a change to a
// template shows up as a reviewed diff of exactly what users get. A
// missing folder, a missing file and a file no longer planned all fail.
func TestPlansMatchGoldenFiles(t *testing.T) {
	for _, v := range goldenVariants() {
		t.Run(v.agent.Name(), func(t *testing.T) {
			files := planFiles(t, v)
			dir := v.dir
			if *update {
				require.NoError(t, os.RemoveAll(dir))
				for name, content := range files {
					path := filepath.Join(dir, filepath.FromSlash(name))
					require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
					require.NoError(t, os.WriteFile(path, content, 0o644))
				}
			}
			if _, err := os.Stat(dir); err != nil {
				t.Fatalf("agent %q has no golden files (%v): run go test ./integrations/all -update, then review %s", v.agent.Name(), err, dir)
			}
			for name, content := range files {
				want, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
				if !assert.NoError(t, err, "missing golden file: run go test ./integrations/all -update, then review %s", dir) {
					continue
				}
				assert.Equal(t, string(want), string(content), "%s/%s differs from the golden file: review, then go test ./integrations/all -update", dir, name)
			}
			require.NoError(t, filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				name, err := filepath.Rel(dir, path)
				if err == nil {
					_, planned := files[filepath.ToSlash(name)]
					assert.True(t, planned, "%s is no longer planned: go test ./integrations/all -update removes it", path)
				}
				return err
			}))
		})
	}
}

// Every folder of integrations/ that holds a manifest of its name is an
// agent of all.Agents(), and every agent has its folder: an agent is its
// folder and one line in the list.
func TestEveryAgentFolderIsRegistered(t *testing.T) {
	entries, err := os.ReadDir("..")
	require.NoError(t, err)
	var folders []string
	for _, e := range entries {
		if _, err := os.Stat(filepath.Join("..", e.Name(), e.Name()+".toml")); e.IsDir() && err == nil {
			folders = append(folders, e.Name())
		}
	}
	assert.ElementsMatch(t, all.Names(), folders, "integrations/<name>/<name>.toml is an agent: register it in all.Agents(), or remove it")
}

// Every built-in agent is its manifest: the value manifestgen generated
// from <name>.toml is that file, parsed and checked now (its head
// included), and its Go code is the extension the manifest names.
func TestBuiltinManifestsAreGenerated(t *testing.T) {
	for _, a := range all.Agents() {
		t.Run(a.Name(), func(t *testing.T) {
			agent, ok := a.(*manifest.Agent)
			require.True(t, ok, "a built-in agent is a manifest (manifest.Builtin)")
			source := filepath.Join(agentDir(a.Name()), a.Name()+".toml")
			data, err := os.ReadFile(source)
			require.NoError(t, err)
			m, err := manifest.Parse(data, source)
			require.NoError(t, err)
			assert.Equal(t, m, agent.Manifest(), "%s changed: run go generate ./integrations/%s", source, a.Name())
			assert.Equal(t, manifest.HeadOf(m), agent.Head(), "%s changed: run go generate ./integrations/%s", source, a.Name())
			assert.NoError(t, agent.CheckExtension())
		})
	}
}

// Every hook command checks that agentlock is on PATH first, and runs the
// one stable "agentlock hook <agent> <event>" command.
func TestHookCommandsAreGuardedAndStable(t *testing.T) {
	for _, agent := range all.Agents() {
		for _, event := range integrations.HookEvents() {
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
