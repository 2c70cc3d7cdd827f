package kimi

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/integrations"
)

// hooksOf renders the user-wide hooks of one Kimi generation and decodes
// them as Kimi reads them.
func hooksOf(t *testing.T, kimiCode bool) []map[string]any {
	t.Helper()
	home := t.TempDir()
	env := integrations.Env{Bin: "agentlock", UserHome: home, Global: true,
		Exists: func(p string) bool { return kimiCode && p == filepath.Join(home, ".kimi-code") }}
	artifacts, _, err := Agent{}.Plan(env)
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

// Only events every version of each generation loads: SessionHeartbeat
// (Kimi Code 0.32.0 and later) would make an older Kimi drop the whole
// hooks section, the user's hooks included. Kimi Code gets the session id
// to the model through UserPromptSubmit, whose output it adds to the
// context (SessionStart's it does not).
func TestKimiHooksUseEventsEveryVersionLoads(t *testing.T) {
	code := events(hooksOf(t, true))
	assert.NotContains(t, code, "SessionHeartbeat")
	assert.Contains(t, code, "UserPromptSubmit")
	legacy := events(hooksOf(t, false))
	assert.NotContains(t, legacy, "SessionHeartbeat")
	assert.NotContains(t, legacy, "UserPromptSubmit", "kimi-cli adds no hook output to the context")
	for _, h := range hooksOf(t, true) {
		if h["event"] == "UserPromptSubmit" {
			assert.True(t, strings.HasSuffix(h["command"].(string), "agentlock hook kimi session-start'"), h["command"])
		}
	}
}

// Kimi expands a leading ~ of tool_input.path; the hook gates the same
// file.
func TestKimiPathTildeExpanded(t *testing.T) {
	in := func(p, home string) integrations.HookInput {
		data, _ := json.Marshal(map[string]string{"path": p, "content": "x"})
		return integrations.HookInput{ToolName: "WriteFile", ToolInput: data, UserHome: home}
	}
	got, err := Agent{}.EditedPaths(in("~/repo/a.go", "/home/u"))
	require.NoError(t, err)
	assert.Equal(t, []string{"/home/u/repo/a.go"}, got)
	got, err = Agent{}.EditedPaths(in("~", "/home/u"))
	require.NoError(t, err)
	assert.Equal(t, []string{"/home/u"}, got)
	got, err = Agent{}.EditedPaths(in("src/~a.go", "/home/u"))
	require.NoError(t, err)
	assert.Equal(t, []string{"src/~a.go"}, got)
	_, err = Agent{}.EditedPaths(in("~bob/a.go", "/home/u"))
	assert.ErrorIs(t, err, integrations.ErrUncheckable)
	_, err = Agent{}.EditedPaths(in("~/a.go", ""))
	assert.ErrorIs(t, err, integrations.ErrUncheckable)
}
