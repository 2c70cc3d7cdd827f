package all_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/integrations/all"
	"github.com/agentlock/agentlock/integrations/manifest"
)

func TestAgentDirsAreAbsolute(t *testing.T) {
	t.Chdir(t.TempDir())
	wd, err := os.Getwd()
	require.NoError(t, err)
	env := map[string]string{"KIMI_CODE_HOME": "kimi", "PI_CODING_AGENT_DIR": "/abs/pi"}
	dirs, err := all.Agents().AgentDirs(func(name string) string { return env[name] })
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"KIMI_CODE_HOME": filepath.Join(wd, "kimi"), "PI_CODING_AGENT_DIR": "/abs/pi"}, dirs)
}

func TestDefaultSources(t *testing.T) {
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.Mkdir(filepath.Join(root, ".git"), 0o755))
	require.NoError(t, os.Mkdir(filepath.Join(root, "sub"), 0o755))
	src := all.DefaultSources(func(string) string { return "" }, "/home/u", filepath.Join(root, "sub"))
	assert.Equal(t, all.Sources{User: "/home/u/.config/agentlock/agents", Project: filepath.Join(root, filepath.FromSlash(manifest.ProjectDir))}, src)
}

func TestAgentOfAndProviderOf(t *testing.T) {
	assert.Equal(t, "claude", all.AgentOf("claude-abc"))
	assert.Empty(t, all.AgentOf("nobody-abc"))
	assert.Empty(t, all.AgentOf("claude"), "no prefix")
	claude, _ := all.Agents().Lookup("claude")
	codex, _ := all.Agents().Lookup("codex")
	assert.Equal(t, claude.Provider(), all.ProviderOf("claude-abc", ""))
	assert.Equal(t, codex.Provider(), all.ProviderOf("claude-abc", "codex"), "the record's agent first")
	assert.Empty(t, all.ProviderOf("alice", ""), "a person's session")
}
