package kimi

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/integrations"
)

// hooksOf renders the user-level hooks and decodes them as Kimi Code
// reads them.
func hooksOf(t *testing.T) []map[string]any {
	t.Helper()
	env := integrations.Env{Bin: "agentlock", UserHome: t.TempDir(), Global: true}
	artifacts, _, err := Agent().Plan(env)
	require.NoError(t, err)
	for _, a := range artifacts {
		if a.Kind == integrations.TOMLBlock {
			var doc struct {
				Hooks []map[string]any `toml:"hooks"`
			}
			require.NoError(t, toml.Unmarshal(a.Content, &doc))
			return doc.Hooks
		}
	}
	t.Fatal("no hooks planned")
	return nil
}

func events(hooks []map[string]any) []string {
	var out []string
	for _, h := range hooks {
		out = append(out, h["event"].(string))
	}
	return out
}

// Only events every Kimi Code version loads: SessionHeartbeat (0.32.0 and
// later) would make an older one drop the whole hooks section, the user's
// hooks included. The session id reaches the model through
// UserPromptSubmit, whose output Kimi Code adds to the context
// (SessionStart's it does not). The edit gate matches exactly Write and
// Edit (Kimi's matcher is an unanchored regular expression).
func TestKimiHooksUseEventsEveryVersionLoads(t *testing.T) {
	hooks := hooksOf(t)
	code := events(hooks)
	assert.NotContains(t, code, "SessionHeartbeat")
	assert.Contains(t, code, "UserPromptSubmit")
	for _, h := range hooks {
		for k := range h {
			assert.Contains(t, []string{"event", "command", "matcher", "timeout"}, k, "Kimi Code refuses a config with any other hook field")
		}
		switch h["event"] {
		case "UserPromptSubmit":
			assert.True(t, strings.HasSuffix(h["command"].(string), "agentlock hook kimi session-start'"), h["command"])
		case "PreToolUse":
			re := regexp.MustCompile(h["matcher"].(string))
			for _, tool := range []string{"Write", "Edit"} {
				assert.True(t, re.MatchString(tool), tool)
			}
			for _, tool := range []string{"Read", "Bash", "NotebookEdit", "WriteFile"} {
				assert.False(t, re.MatchString(tool), tool)
			}
		}
	}
}

// Plain init (no consent to the user-level file) plans nothing for Kimi,
// and says why and what to run; uninit plans the project's files, and the
// legacy kimi-cli's, marked unsupported, so that they are removed.
func TestKimiWithoutConsentPlansNothingForInit(t *testing.T) {
	home := t.TempDir()
	arts, notes, err := Agent().Plan(integrations.Env{Bin: "agentlock", UserHome: home})
	require.NoError(t, err)
	assert.Empty(t, arts)
	require.Len(t, notes, 1)
	assert.Contains(t, notes[0], "user-level ~/.kimi-code/config.toml")
	assert.Contains(t, notes[0], "agentlock init --agent kimi --global")

	arts, _, err = Agent().Plan(integrations.Env{Bin: "agentlock", UserHome: home, Removing: true})
	require.NoError(t, err)
	var paths []string
	for _, a := range arts {
		assert.Equal(t, integrations.Project, a.Scope, a.Path)
		assert.Equal(t, a.Path == ".kimi/AGENTS.md", a.Unsupported, a.Path)
		paths = append(paths, a.Path)
	}
	assert.ElementsMatch(t, []string{".kimi-code/AGENTS.md", "scripts/agentlock-kimi", ".kimi/AGENTS.md"}, paths)

	arts, _, err = Agent().Plan(integrations.Env{Bin: "agentlock", UserHome: home, Removing: true, Global: true,
		AgentDirs: map[string]string{KimiCodeHomeVar: "/k/code", KimiShareDirVar: "/k/share"}})
	require.NoError(t, err)
	paths = nil
	for _, a := range arts {
		if a.Scope == integrations.User {
			assert.Equal(t, a.Path == "/k/share/config.toml", a.Unsupported, a.Path)
			paths = append(paths, a.Path)
		}
	}
	assert.ElementsMatch(t, []string{"/k/code/config.toml", "/k/share/config.toml"}, paths)
}

// Kimi expands a leading ~ of tool_input.path; the hook gates the same
// file.
func TestKimiPathTildeExpanded(t *testing.T) {
	in := func(p, home string) integrations.HookInput {
		data, _ := json.Marshal(map[string]string{"path": p, "content": "x"})
		return integrations.HookInput{ToolName: "Write", ToolInput: data, UserHome: home}
	}
	got, err := Agent().EditedPaths(in("~/repo/a.go", "/home/u"))
	require.NoError(t, err)
	assert.Equal(t, []string{"/home/u/repo/a.go"}, got)
	got, err = Agent().EditedPaths(in("~", "/home/u"))
	require.NoError(t, err)
	assert.Equal(t, []string{"/home/u"}, got)
	got, err = Agent().EditedPaths(in("src/~a.go", "/home/u"))
	require.NoError(t, err)
	assert.Equal(t, []string{"src/~a.go"}, got)
	_, err = Agent().EditedPaths(in("~bob/a.go", "/home/u"))
	assert.ErrorIs(t, err, integrations.ErrUncheckable)
	_, err = Agent().EditedPaths(in("~/a.go", ""))
	assert.ErrorIs(t, err, integrations.ErrUncheckable)
}

// Kimi Code's key of a working folder, as its encodeWorkDirKey makes it
// (the expected hashes are sha256sum's of the paths).
func TestWorkDirKey(t *testing.T) {
	for dir, want := range map[string]string{
		"/var/tmp/defects-kimi/proj": "wd_proj_779f0094c057",
		"/home/u/My Project (v2)/":   "wd_my-project-v2_",
		"/":                          "wd_workspace_",
		"/x/..":                      "wd_workspace_",
		"/x/--A--":                   "wd_a_",
	} {
		got := workDirKey(dir)
		assert.True(t, strings.HasPrefix(got, want), "%s: %s", dir, got)
		assert.Len(t, got, len("wd_")+len(strings.Split(got[3:], "_")[0])+1+12, dir)
	}
	long := "/p/" + strings.Repeat("a", 39) + "-b"
	assert.True(t, strings.HasPrefix(workDirKey(long), "wd_"+strings.Repeat("a", 39)+"_"), "cut to 40, then trimmed of '-'")
}
