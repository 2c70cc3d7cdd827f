package integrations

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// The MCP entry goes in and out of a user's file byte for byte, whatever
// else the file holds.
func TestMCPEntryInstallsAndUninstallsByteExact(t *testing.T) {
	want, err := mcpJSON("agentlock")
	require.NoError(t, err)
	for name, user := range map[string]string{
		"no file":          "",
		"other servers":    "{\"mcpServers\": {\"other\": {\"command\": \"x\"}}}\n",
		"other keys":       "{\n\t\"theme\": \"dark\"\n}\n",
		"comments (JSONC)": "{\n  // the user's\n  \"mcpServers\": {\n    \"db\": {\"command\": \"db-mcp\"} /* kept */\n  }\n}\n",
	} {
		t.Run(name, func(t *testing.T) {
			got, err := installMCP([]byte(user), want)
			require.NoError(t, err)
			doc, err := parseJSONC(got)
			require.NoError(t, err, "%s", got)
			_, servers := doc.member("mcpServers")
			require.NotNil(t, servers, "%s", got)
			_, entry := servers.value.member(MCPServerName)
			require.NotNil(t, entry, "%s", got)
			require.True(t, ownMCPEntry(got, entry.value), "%s", got)

			again, err := installMCP(got, want)
			require.NoError(t, err)
			require.Equal(t, string(got), string(again), "installing twice changes nothing")

			back, err := removeMCP(got)
			require.NoError(t, err)
			require.Equal(t, user, string(back), "uninstall restores the file byte for byte")
		})
	}
}

func TestMCPEntryNotOursIsRefusedAndKept(t *testing.T) {
	want, err := mcpJSON("agentlock")
	require.NoError(t, err)
	user := []byte(`{"mcpServers": {"agentlock": {"command": "node", "args": ["my-agentlock.js"]}}}`)
	_, err = installMCP(user, want)
	require.ErrorIs(t, err, errForeignMCP)
	back, err := removeMCP(user)
	require.NoError(t, err)
	require.Equal(t, string(user), string(back), "uninit leaves an entry that is not agentlock's")
}

func TestMCPEntryWithHooksInOneFile(t *testing.T) {
	e := Engine{ProjectRoot: t.TempDir(), Fingerprint: HookFingerprint}
	hooks := []byte("{\n  \"hooks\": {\n    \"SessionStart\": [\n      {\"hooks\": [{\"type\": \"command\", \"command\": \"agentlock hook x session-start\"}]}\n    ]\n  }\n}\n")
	entry, err := mcpJSON("agentlock")
	require.NoError(t, err)
	a := Artifact{Path: "settings.json", Kind: JSONHooks, Content: hooks, MCP: entry}
	c, err := e.Install(a)
	require.NoError(t, err)
	require.NoError(t, e.Write(c))
	require.Contains(t, string(c.New), `"mcpServers"`)
	require.Contains(t, string(c.New), `"SessionStart"`)
	u, err := e.Uninstall(a)
	require.NoError(t, err)
	require.True(t, u.Delete, "a file agentlock created alone is removed whole:\n%s", u.New)
}
