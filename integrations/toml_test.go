package integrations

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kimiHooks is a TOMLBlock artifact like Kimi's, in a user home of its own.
func kimiHooks(t *testing.T) (Engine, Artifact, string) {
	t.Helper()
	dir := t.TempDir()
	e := Engine{ProjectRoot: dir, UserHome: dir, Fingerprint: fingerprint}
	a := Artifact{Path: "config.toml", Scope: User, Kind: TOMLBlock, Content: []byte("[[hooks]]\nevent = \"X\"\n"), Comment: "#", Placement: Bottom}
	return e, a, filepath.Join(dir, "config.toml")
}

func TestValidateTOMLNamesTheLine(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		line       int // 0: valid
	}{
		{"valid", "a = 1\n[t]\nb = \"x\"\n", 0},
		{"empty", "", 0},
		{"syntax error", "a = 1\nb = \"open\nc = 2\n", 2},
		{"key defined twice", "a = 1\n\n[t]\nk = 1\nk = 2\n", 5},
		{"twice, after a multi-line string", "s = \"\"\"\nx\ny\n\"\"\"\nk = 1\nk = 2\n", 6},
		{"twice, no final newline", "k = 1\nk = 2", 2},
		{"table then array of tables", "[hooks]\nx = 1\n\n[[hooks]]\n", 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := validateTOML([]byte(tc.text))
			if tc.line == 0 {
				assert.Nil(t, bad)
				return
			}
			require.NotNil(t, bad)
			assert.Equal(t, tc.line, bad.Line, bad.Error())
		})
	}
}

// A config.toml that does not parse is refused before anything is
// computed, naming the file and the line, and never quoting the line (it
// may be an API key).
func TestTOMLBlockRefusesAnInvalidUserFile(t *testing.T) {
	e, a, path := kimiHooks(t)
	for _, tc := range []struct {
		name, user, want string
	}{
		{"unterminated string", "default_model = \"k2\"\napi_key = \"sk-secret\n", "not valid TOML: line 2: basic strings cannot have new lines"},
		{"key defined twice", "[providers.moonshot]\napi_key = \"sk-secret\"\napi_key = \"sk-other\"\n", "not valid TOML: line 3: key api_key is already defined"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, os.WriteFile(path, []byte(tc.user), 0o600))
			_, err := e.Install(a)
			require.Error(t, err)
			assert.ErrorContains(t, err, path+": "+tc.want)
			assert.NotContains(t, err.Error(), "sk-")
		})
	}
}

// A valid config.toml that agentlock's block would break is refused with
// the line of the result; a hooks key the user wrote is named by its own
// line, as before the parser checked the result.
func TestTOMLBlockRefusesAFileItWouldBreak(t *testing.T) {
	e, a, path := kimiHooks(t)
	for _, tc := range []struct {
		name, user, want string
	}{
		{"hooks key", "model = \"k2\"\nhooks = []\n", "line 2 defines hooks as a key or a table"},
		{"hooks table", "[hooks]\nx = 1\n", "line 1 defines hooks as a key or a table"},
		// [hooks.x] escapes the hooks pattern; the parser finds the first
		// [[hooks]] of the block: user lines 1-2, a blank, BEGIN, then it.
		{"hooks sub-table", "[hooks.x]\na = 1\n", "with agentlock's block the file would not be valid TOML: line 5 of the result: key table already exists"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, os.WriteFile(path, []byte(tc.user), 0o600))
			_, err := e.Install(a)
			assert.ErrorContains(t, err, path+": "+tc.want)
		})
	}
}

// The parser, not the hooks pattern, decides: a hooks key inside another
// table is no conflict and the result is valid TOML.
func TestTOMLBlockAcceptsHooksKeyOfAnotherTable(t *testing.T) {
	e, a, path := kimiHooks(t)
	require.NoError(t, os.WriteFile(path, []byte("[ui]\nhooks = true\n"), 0o600))
	c, err := e.Install(a)
	require.NoError(t, err)
	assert.Nil(t, validateTOML(c.New))
	assert.Contains(t, string(c.New), "[[hooks]]")
}

// Keys the user added after agentlock's block belong to its last table;
// cutting the block would move them into the user's table before it.
func TestTOMLBlockUninstallRefusesToBreakTheFile(t *testing.T) {
	e, a, path := kimiHooks(t)
	installed, err := installBlock([]byte("[p]\nextra = 2\n"), a)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, append(installed, "extra = 1\n"...), 0o600))
	_, err = e.Uninstall(a)
	assert.ErrorContains(t, err, path+": without agentlock's block the file would not be valid TOML: line 4 of the result: key extra is already defined")

	// A file that was invalid already still loses agentlock's block.
	require.NoError(t, os.WriteFile(path, append(installed, "x = \"open\n"...), 0o600))
	c, err := e.Uninstall(a)
	require.NoError(t, err)
	assert.Equal(t, "[p]\nextra = 2\n\nx = \"open\n", string(c.New), "the blank line before a block that is not last stays")
}

// Kimi rewrites config.toml without comments (on login, setup, a model
// change): agentlock's tables lose their markers and Kimi's serialiser may
// order their keys its own way. init replaces them by one block, never a
// second copy, and uninit removes them; the user's own hooks and keys stay.
func TestTOMLHooksFoundByFingerprintAfterKimiRewrote(t *testing.T) {
	e, _, path := kimiHooks(t)
	a := Artifact{Path: "config.toml", Scope: User, Kind: TOMLBlock, Comment: "#", Placement: Bottom,
		Content: []byte("[[hooks]]\nevent = \"PreToolUse\"\nmatcher = \"Write|Edit\"\ncommand = \"sh -c 'exec agentlock hook kimi pre-edit'\"\ntimeout = 30\n\n" +
			"[[hooks]]\nevent = \"SessionEnd\"\ncommand = \"sh -c 'exec agentlock hook kimi session-end'\"\ntimeout = 5\n")}
	rewritten := "default_model = \"kimi-k2\"\n\n" +
		"[[hooks]]\ncommand = \"./my-own-hook.sh\"\nevent = \"PreToolUse\"\ntimeout = 10\n\n" +
		"[[hooks]]\ncommand = \"sh -c 'exec agentlock hook kimi pre-edit'\"\nevent = \"PreToolUse\"\nmatcher = \"Write|Edit\"\ntimeout = 30\n\n" +
		"[[hooks]]\ncommand = \"sh -c 'exec agentlock hook kimi session-end'\"\nevent = \"SessionEnd\"\ntimeout = 5\n\n" +
		"[providers.moonshot]\napi_key = \"sk-secret\"\n"
	require.NoError(t, os.WriteFile(path, []byte(rewritten), 0o600))

	c, err := e.Install(a)
	require.NoError(t, err)
	assert.Nil(t, validateTOML(c.New))
	assert.Equal(t, 2, strings.Count(string(c.New), "agentlock hook kimi"), "one copy of agentlock's hooks:\n%s", c.New)
	assert.Contains(t, string(c.New), "[[hooks]]\ncommand = \"./my-own-hook.sh\"\nevent = \"PreToolUse\"\ntimeout = 10\n")
	assert.Contains(t, string(c.New), "[providers.moonshot]\napi_key = \"sk-secret\"\n")

	c, err = e.Uninstall(a)
	require.NoError(t, err)
	assert.NotContains(t, string(c.New), "agentlock hook")
	assert.Equal(t, "default_model = \"kimi-k2\"\n\n[[hooks]]\ncommand = \"./my-own-hook.sh\"\nevent = \"PreToolUse\"\ntimeout = 10\n\n[providers.moonshot]\napi_key = \"sk-secret\"\n", string(c.New))
}
