package integrations

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const fingerprint = "agentlock hook "

// settingsWant is a hooks file as agentlock renders it alone.
const settingsWant = `{
  "hooks": {
    "PreToolUse": [
      {
        "matcher": "Edit|Write",
        "hooks": [
          {
            "type": "command",
            "command": "agentlock hook claude pre-edit"
          }
        ]
      }
    ],
    "SessionEnd": [
      {
        "hooks": [
          {
            "type": "command",
            "command": "agentlock hook claude session-end"
          }
        ]
      }
    ]
  }
}
`

// userSettings are settings files people write: their bytes must come back
// unchanged after install then uninstall.
var userSettings = map[string]string{
	"empty object": "{}\n",
	"other keys": `{
  "permissions": {"allow": ["Bash(ls)"]},
  "model": "opus"
}
`,
	"own hooks on the same event": `{
  "hooks": {
    "PreToolUse": [
      {"matcher": "Bash", "hooks": [{"type": "command", "command": "my-check"}]}
    ]
  }
}
`,
	"own hooks on other events, four-space indent": `{
    "hooks": {
        "Stop": [
            {
                "hooks": [{"type": "command", "command": "notify-send done"}]
            }
        ]
    },
    "env": {"A": "1"}
}
`,
	"JSONC with comments": `// Gemini settings
{
  /* the theme */
  "theme": "dark", // trailing comment
  "hooks": {
    // mine
    "BeforeTool": [
      {"matcher": "run_shell_command", "hooks": [{"type": "command", "command": "guard"}]}
    ]
  }
}
`,
	"no trailing newline": `{"a": 1}`,
	"tab indent":          "{\n\t\"a\": [1, 2],\n\t\"hooks\": {\"Stop\": []}\n}\n",
}

// An empty "hooks": {} that was there before install cannot be told from
// one agentlock emptied, and goes with agentlock's hooks: the one known
// difference, documented in docs/integrations.md.
func TestJSONHooksEmptyHooksObjectIsRemoved(t *testing.T) {
	installed, err := installHooks([]byte("{\"a\": 1, \"hooks\": {}}\n"), []byte(settingsWant), fingerprint)
	require.NoError(t, err)
	removed, err := removeHooks(installed, fingerprint)
	require.NoError(t, err)
	assert.Equal(t, "{\"a\": 1}\n", string(removed))
}

func TestJSONHooksRoundTripKeepsUserBytes(t *testing.T) {
	for name, user := range userSettings {
		t.Run(name, func(t *testing.T) {
			installed, err := installHooks([]byte(user), []byte(settingsWant), fingerprint)
			require.NoError(t, err)
			doc, err := parseJSONC(installed)
			require.NoError(t, err, "installed file parses:\n%s", installed)
			_, hooks := doc.member("hooks")
			require.NotNil(t, hooks)
			for _, event := range []string{"PreToolUse", "SessionEnd"} {
				_, ev := hooks.value.member(event)
				require.NotNil(t, ev, "event %s installed:\n%s", event, installed)
				own := 0
				for _, g := range ev.value.elems {
					if ownHookGroup(installed, g, fingerprint) {
						own++
					}
				}
				assert.Equal(t, 1, own, "one agentlock group in %s", event)
			}

			again, err := installHooks(installed, []byte(settingsWant), fingerprint)
			require.NoError(t, err)
			assert.Equal(t, string(installed), string(again), "a second install changes nothing")

			removed, err := removeHooks(installed, fingerprint)
			require.NoError(t, err)
			if user == "{}\n" {
				assert.Empty(t, strings.TrimSpace(string(removed)), "a file that held only agentlock's hooks is emptied")
				return
			}
			assert.Equal(t, user, string(removed), "uninstall gives the user's bytes back")
		})
	}
}

func TestJSONHooksReplacesAnOutdatedGroup(t *testing.T) {
	installed, err := installHooks(nil, []byte(settingsWant), fingerprint)
	require.NoError(t, err)
	outdated := strings.Replace(string(installed), `"matcher": "Edit|Write"`, `"matcher": "Edit"`, 1)
	updated, err := installHooks([]byte(outdated), []byte(settingsWant), fingerprint)
	require.NoError(t, err)
	assert.Equal(t, settingsWant, string(updated))
}

func TestJSONHooksRefusesWhatItCannotEditSafely(t *testing.T) {
	for name, text := range map[string]string{
		"trailing comma":   "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"x\", \"hooks\": []},\n    ]\n  }\n}\n",
		"not an object":    "[1, 2]\n",
		"hooks not object": "{\"hooks\": []}\n",
		"broken":           "{\"a\": }\n",
	} {
		_, err := installHooks([]byte(text), []byte(settingsWant), fingerprint)
		assert.Error(t, err, name)
	}
}

func TestBlocksRoundTripKeepsUserBytes(t *testing.T) {
	body := []byte("## agentlock\n\nAcquire before editing.\n")
	for _, user := range []string{"", "# Project\n\nRules.\n", "\nstarts with a blank line\n", "no final newline", "a\n\n\n"} {
		for _, placement := range []Placement{Top, Bottom} {
			for _, comment := range []string{"<!--", "#"} {
				a := Artifact{Content: body, Comment: comment, Placement: placement}
				installed, err := installBlock([]byte(user), a)
				require.NoError(t, err)
				blocks, err := findBlocks(installed, comment)
				require.NoError(t, err)
				require.Len(t, blocks, 1)
				again, err := installBlock(installed, a)
				require.NoError(t, err)
				assert.Equal(t, string(installed), string(again), "idempotent")
				removed, err := removeBlocks(installed, comment)
				require.NoError(t, err)
				want := user
				if placement == Bottom && user == "no final newline" {
					want = user + "\n" // the one byte a bottom block cannot give back
				}
				assert.Equal(t, want, string(removed), "user %q placement %v comment %q", user, placement, comment)
			}
		}
	}
}

func TestBlocksReplaceInPlaceAndDropDuplicates(t *testing.T) {
	begin, end := blockMarkers("<!--")
	text := "intro\n" + begin + "\nold\n" + end + "\nmiddle\n" + begin + "\ndup\n" + end + "\noutro\n"
	out, err := installBlock([]byte(text), Artifact{Content: []byte("new\n"), Comment: "<!--"})
	require.NoError(t, err)
	assert.Equal(t, "intro\n"+begin+"\nnew\n"+end+"\nmiddle\noutro\n", string(out))
}

func TestBlocksRefuseUnmatchedMarkers(t *testing.T) {
	begin, _ := blockMarkers("#")
	_, err := installBlock([]byte("a\n"+begin+"\nno end\n"), Artifact{Content: []byte("x\n"), Comment: "#"})
	assert.ErrorContains(t, err, "has no")
	_, err = removeBlocks([]byte(begin+"\n"+begin+"\n# END agentlock\n"), "#")
	assert.ErrorContains(t, err, "inside an agentlock block")
}

func TestTOMLBlockRefusesAnInlineHooksKey(t *testing.T) {
	dir := t.TempDir()
	e := Engine{ProjectRoot: dir, UserHome: dir, Fingerprint: fingerprint}
	a := Artifact{Path: "config.toml", Scope: User, Kind: TOMLBlock, Content: []byte("[[hooks]]\nevent = \"X\"\n"), Comment: "#", Placement: Bottom}
	for _, user := range []string{"hooks = []\n", "api_key = \"k\"\n[hooks]\nx = 1\n"} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, "config.toml"), []byte(user), 0o600))
		_, err := e.Install(a)
		assert.ErrorContains(t, err, "defines hooks", user)
	}
	user := "default_model = \"k2\"\n\n[providers.moonshot]\napi_key = \"sk-secret\" # keep\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "config.toml"), []byte(user), 0o600))
	c, err := e.Install(a)
	require.NoError(t, err)
	require.NoError(t, e.Write(c))
	info, err := os.Stat(filepath.Join(dir, "config.toml"))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm(), "the file keeps its permissions")
	c, err = e.Uninstall(a)
	require.NoError(t, err)
	require.NoError(t, e.Write(c))
	data, err := os.ReadFile(filepath.Join(dir, "config.toml"))
	require.NoError(t, err)
	assert.Equal(t, user, string(data))
}

func TestEngineRefusesLinksAndForeignFiles(t *testing.T) {
	root := t.TempDir()
	outside := t.TempDir()
	e := Engine{ProjectRoot: root, Fingerprint: fingerprint}
	owned := Artifact{Path: ".claude/rules/agentlock.md", Kind: OwnedFile, Content: []byte("<!-- " + Marker + " -->\nx\n")}

	require.NoError(t, os.Symlink(outside, filepath.Join(root, ".claude")))
	_, err := e.Install(owned)
	assert.ErrorContains(t, err, "symbolic link")
	require.NoError(t, os.Remove(filepath.Join(root, ".claude")))

	require.NoError(t, os.MkdirAll(filepath.Join(root, ".claude/rules"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, ".claude/rules/agentlock.md"), []byte("my own notes\n"), 0o644))
	_, err = e.Install(owned)
	assert.ErrorContains(t, err, "not written by agentlock")
	c, err := e.Uninstall(owned)
	require.NoError(t, err)
	assert.False(t, c.Changed(), "a file without the marker is never deleted")

	_, err = e.Install(Artifact{Path: "../escape.md", Kind: OwnedFile})
	assert.ErrorContains(t, err, "outside")
}

func TestDiffIsUnified(t *testing.T) {
	c := Change{Existed: true, Old: []byte("a\nb\nc\nd\n"), New: []byte("a\nB\nc\nd\ne\n")}
	assert.Equal(t, "--- a/f\n+++ b/f\n@@ -1,4 +1,5 @@\n a\n-b\n+B\n c\n d\n+e\n", Diff(c, "f"))
	assert.Equal(t, "", Diff(Change{Existed: true, Old: []byte("x"), New: []byte("x")}, "f"))
	assert.Equal(t, "--- /dev/null\n+++ b/f\n@@ -0,0 +1,1 @@\n+x\n", Diff(Change{New: []byte("x\n")}, "f"))
	assert.Equal(t, "--- a/f\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n", Diff(Change{Existed: true, Old: []byte("x\ny\n"), Delete: true}, "f"))
	assert.Equal(t, "--- a/f\n+++ b/f\n@@ -1,1 +1,2 @@\n-x\n\\ No newline at end of file\n+x\n+y\n",
		Diff(Change{Existed: true, Old: []byte("x"), New: []byte("x\ny\n")}, "f"))
}

// Changes far apart are separate hunks, each with three lines of context.
func TestDiffSplitsDistantChanges(t *testing.T) {
	var old, changed strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&old, "%d\n", i)
		if i == 2 || i == 18 {
			fmt.Fprintf(&changed, "%d!\n", i)
		} else {
			fmt.Fprintf(&changed, "%d\n", i)
		}
	}
	want := "--- a/f\n+++ b/f\n" +
		"@@ -1,5 +1,5 @@\n 1\n-2\n+2!\n 3\n 4\n 5\n" +
		"@@ -15,6 +15,6 @@\n 15\n 16\n 17\n-18\n+18!\n 19\n 20\n"
	assert.Equal(t, want, Diff(Change{Existed: true, Old: []byte(old.String()), New: []byte(changed.String())}, "f"))
}

// Two large files with nothing in common: a quadratic table of their lines
// would take gigabytes; the bounded diff answers at once.
func TestDiffOfLargeUnrelatedFilesIsBounded(t *testing.T) {
	const n = 50_000
	var old, changed strings.Builder
	for i := range n {
		fmt.Fprintf(&old, "old %d\n", i)
		fmt.Fprintf(&changed, "new %d\n", i)
	}
	d := Diff(Change{Existed: true, Old: []byte(old.String()), New: []byte(changed.String())}, "f")
	assert.Equal(t, 2*n, strings.Count(d, "\n-")+strings.Count(d, "\n+")-1, "every line removed and added") // -1: the "+++" header
}

func TestUninstallOfAMissingFileDoesNothing(t *testing.T) {
	root := t.TempDir()
	e := Engine{ProjectRoot: root, Fingerprint: fingerprint}
	for _, kind := range []Kind{OwnedFile, ManagedBlock, JSONHooks} {
		c, err := e.Uninstall(Artifact{Path: "x/f", Kind: kind, Comment: "#"})
		require.NoError(t, err)
		assert.False(t, c.Changed(), "%v", kind)
		require.NoError(t, e.Write(c))
	}
	assert.NoDirExists(t, filepath.Join(root, "x"))
}

// Crush's flat layout: each hook is an element of the event's array with
// its own "command", no "hooks" array. The user's flat hooks beside
// agentlock's are kept byte for byte, and a second install changes
// nothing.
func TestJSONHooksFlatLayoutRoundTrip(t *testing.T) {
	want := "{\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\n        \"name\": \"agentlock\",\n        \"matcher\": \"^(edit|write)$\",\n" +
		"        \"command\": \"exec agentlock hook crush pre-edit\",\n        \"timeout\": 30\n      }\n    ]\n  }\n}\n"
	user := "{\n  // mine\n  \"hooks\": {\n    \"PreToolUse\": [\n      {\"matcher\": \"^bash$\", \"command\": \"./no-haskell.sh\"}\n    ]\n  },\n  \"options\": {\"debug\": true}\n}\n"
	installed, err := installHooks([]byte(user), []byte(want), "agentlock hook ")
	require.NoError(t, err)
	assert.Contains(t, string(installed), "./no-haskell.sh")
	assert.Contains(t, string(installed), "agentlock hook crush pre-edit")
	doc, err := parseJSONC(installed)
	require.NoError(t, err, "installed file parses:\n%s", installed)
	_, hooks := doc.member("hooks")
	_, ev := hooks.value.member("PreToolUse")
	own := 0
	for _, g := range ev.value.elems {
		if ownHookGroup(installed, g, "agentlock hook ") {
			own++
		}
	}
	assert.Equal(t, 1, own, "one agentlock entry, the user's is not agentlock's:\n%s", installed)
	again, err := installHooks(installed, []byte(want), "agentlock hook ")
	require.NoError(t, err)
	assert.Equal(t, string(installed), string(again), "a second install changes nothing")
	removed, err := removeHooks(installed, "agentlock hook ")
	require.NoError(t, err)
	assert.Equal(t, user, string(removed), "uninstall gives the user's bytes back")
}
