package manifest

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	toml "github.com/pelletier/go-toml/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/templates"
)

const minimal = `
name = "mini"
title = "Mini"
provider = "p"
command = "mini"
session_id_text = "from the wrapper"
[[instructions]]
path = "MINI.md"
kind = "block"
[hooks]
path = ".mini/hooks.json"
format = "json"
[[hooks.events]]
name = "PreToolUse"
run = "pre-edit"
matcher = "edit"
[payload]
paths = ["args.path", "args.paths"]
`

func mini(t testing.TB, extra string) *Agent {
	t.Helper()
	a, err := Load([]byte(minimal+extra), "mini.toml")
	require.NoError(t, err)
	return a
}

// A payload field that arrives as an object or as a JSON string holding
// one is read either way, and a path field may hold several paths.
func TestPayloadFieldsAreDecodedEitherWay(t *testing.T) {
	a := mini(t, "")
	for _, payload := range []string{
		`{"session_id":"s","cwd":"/r","tool_name":"edit","args":{"path":"a.go"}}`,
		`{"session_id":"s","cwd":"/r","tool_name":"edit","args":"{\"path\":\"a.go\"}"}`,
	} {
		in, err := a.DecodePayload([]byte(payload))
		require.NoError(t, err)
		assert.Equal(t, "s", in.SessionID)
		assert.Equal(t, "/r", in.Cwd)
		paths, err := a.EditedPaths(in)
		require.NoError(t, err)
		assert.Equal(t, []string{"a.go"}, paths, payload)
	}
	in, err := a.DecodePayload([]byte(`{"args":{"paths":["a","","b"]}}`))
	require.NoError(t, err)
	paths, err := a.EditedPaths(in)
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, paths)
	_, err = a.DecodePayload([]byte(`{not json`))
	assert.Error(t, err)
}

// edit_tools limits the tools whose paths are edits.
func TestEditToolsLimitTheGate(t *testing.T) {
	a := mini(t, "")
	a.m().EditTools = []string{"edit"}
	in, err := a.DecodePayload([]byte(`{"tool_name":"read","args":{"path":"a.go"}}`))
	require.NoError(t, err)
	paths, err := a.EditedPaths(in)
	require.NoError(t, err)
	assert.Empty(t, paths)
}

// Each deny form is the output its harness reads.
func TestDenyForms(t *testing.T) {
	for form, want := range map[string]string{
		"claude-json":    `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"a <b> & c"}}` + "\n",
		"gemini-json":    `{"decision":"deny","reason":"a <b> & c"}` + "\n",
		"top-level-json": `{"permissionDecision":"deny","permissionDecisionReason":"a <b> & c"}` + "\n",
	} {
		a := mini(t, "[deny]\nform = \""+form+"\"\n")
		out, err := a.DenyOutput("a <b> & c")
		require.NoError(t, err)
		assert.Equal(t, want, string(out), form)
	}
	_, err := mini(t, "").DenyOutput("x")
	assert.True(t, errors.Is(err, integrations.ErrExitDeny), "exit2 is the default")
	out, err := mini(t, "[deny]\nform = \"template\"\ntemplate = '{\"no\":{{json .Reason}}}'\n").DenyOutput(`say "no"`)
	require.NoError(t, err)
	assert.Equal(t, `{"no":"say \"no\""}`, string(out))
}

// The session context forms.
func TestSessionContextForms(t *testing.T) {
	out, err := mini(t, "").SessionContext("hi")
	require.NoError(t, err)
	assert.JSONEq(t, `{"hookSpecificOutput":{"hookEventName":"SessionStart","additionalContext":"hi"}}`, string(out))
	out, err = mini(t, "[session_context]\nform = \"top-level\"\n").SessionContext("hi")
	require.NoError(t, err)
	assert.JSONEq(t, `{"additionalContext":"hi"}`, string(out))
	out, err = mini(t, "[session_context]\nform = \"plain\"\n").SessionContext("hi")
	require.NoError(t, err)
	assert.Equal(t, "hi", string(out))
}

// TOML hooks are a valid TOML block holding each command exactly.
func TestTOMLHooksAreValidTOML(t *testing.T) {
	a := mini(t, "")
	a.m().Hooks.Format, a.m().Hooks.Command = "toml", "{{.Shell}}"
	arts, _, err := a.Plan(integrations.Env{Bin: "agentlock"})
	require.NoError(t, err)
	var hooks []integrations.Artifact
	for _, art := range arts {
		if art.Kind == integrations.TOMLBlock {
			hooks = append(hooks, art)
		}
	}
	require.Len(t, hooks, 1)
	var doc struct {
		Hooks []struct{ Event, Matcher, Command string }
	}
	require.NoError(t, toml.Unmarshal(hooks[0].Content, &doc), string(hooks[0].Content))
	require.Len(t, doc.Hooks, 1)
	assert.Equal(t, "sh -c 'command -v agentlock >/dev/null 2>&1 || exit 0; exec agentlock hook mini pre-edit'", doc.Hooks[0].Command)
}

// The JSON hooks are what agentlock's engine merges: valid JSON whose
// commands carry the fingerprint.
func TestJSONHooksAreValidJSON(t *testing.T) {
	arts, _, err := mini(t, "").Plan(integrations.Env{Bin: "agentlock"})
	require.NoError(t, err)
	for _, art := range arts {
		if art.Kind == integrations.JSONHooks {
			var v map[string]map[string][]map[string]any
			require.NoError(t, json.Unmarshal(art.Content, &v))
			assert.Contains(t, string(art.Content), "agentlock hook mini pre-edit")
		}
	}
}

// A malformed manifest is refused in one line naming the field.
func TestMalformedManifestsNameTheField(t *testing.T) {
	for _, c := range []struct{ from, to, field string }{
		{`name = "mini"`, `name = "Mini"`, "name"},
		{`name = "mini"`, `name = "all"`, "name"},
		{`kind = "block"`, `kind = "chunk"`, "instructions[0].kind"},
		{`format = "json"`, `format = "yaml"`, "hooks.format"},
		{`matcher = "edit"`, `matcher = ""`, "hooks.events[0].matcher"},
		{`paths = ["args.path", "args.paths"]`, `paths = []`, "payload.paths"},
		{`format = "json"`, "format = \"json\"\ncommand = \"true\"", "hooks.command"},
		{`command = "mini"`, `command = "mini; rm -rf ~"`, "command"},
		{`path = "MINI.md"`, `path = "/etc/MINI.md"`, "instructions[0].path"},
		{`command = "mini"`, "command = \"mini\"\nsession_env = \"HOME\"", "session_env"},
		{`command = "mini"`, "command = \"mini\"\nsession_env = \"AGENTLOCK_SESSION\"", "session_env"},
	} {
		text := strings.Replace(minimal, c.from, c.to, 1)
		require.NotEqual(t, minimal, text, c.from)
		_, err := Parse([]byte(text), "mini.toml")
		var fe *FieldError
		if assert.True(t, errors.As(err, &fe), "%s: %v", c.to, err) {
			assert.Equal(t, c.field, fe.Field, "%s: %v", c.to, err)
			assert.NotContains(t, err.Error(), "\n")
			assert.Contains(t, err.Error(), "mini.toml")
		}
	}
}

// User-scope hooks are planned only with the user's consent (--global);
// without it init says so, and the instructions do not claim a gate.
func TestUserScopeHooksNeedConsent(t *testing.T) {
	a := mini(t, "")
	a.m().Hooks.Scope = "user"
	arts, notes, err := a.Plan(integrations.Env{Bin: "agentlock"})
	require.NoError(t, err)
	for _, art := range arts {
		assert.NotEqual(t, integrations.JSONHooks, art.Kind, "no hooks without --global")
		assert.NotContains(t, string(art.Content), "hook of this repository also takes the lock")
	}
	require.NotEmpty(t, notes)
	assert.Contains(t, notes[0], "--global")
	arts, _, err = a.Plan(integrations.Env{Bin: "agentlock", Global: true})
	require.NoError(t, err)
	var hooks []integrations.Artifact
	for _, art := range arts {
		if art.Kind == integrations.JSONHooks {
			hooks = append(hooks, art)
		}
	}
	require.Len(t, hooks, 1)
	assert.Equal(t, integrations.User, hooks[0].Scope)
	assert.Equal(t, ".mini/hooks.json", hooks[0].Path)
}

// A manifest's [mcp] names the file where init registers agentlock mcp,
// beside the hooks when it is the same file; a bad one is a field error.
func TestManifestMCPFile(t *testing.T) {
	a := mini(t, "[mcp]\npath = \".mini/hooks.json\"\nformat = \"json\"\ntrust = \"always\"\n")
	f, ok := a.MCPFile(integrations.Env{})
	require.True(t, ok)
	require.Equal(t, integrations.MCPFile{Path: ".mini/hooks.json", Trust: "always"}, f)
	arts, _, err := integrations.Setup{Env: integrations.Env{Bin: "agentlock"}, Agents: []integrations.Agent{a}, MCP: true}.Plan()
	require.NoError(t, err)
	merged := false
	for _, art := range arts {
		if art.Path == ".mini/hooks.json" {
			merged = art.Kind == integrations.JSONHooks && art.MCP != nil
		}
	}
	require.True(t, merged, "the entry goes into the hooks artifact: %+v", arts)

	_, ok = mini(t, "").MCPFile(integrations.Env{})
	require.False(t, ok, "no [mcp], no file")

	for _, c := range []struct{ mcp, field string }{
		{"[mcp]\npath = \"/abs.json\"\nformat = \"json\"\n", "mcp.path"},
		{"[mcp]\npath = \"m.json\"\nformat = \"yaml\"\n", "mcp.format"},
		{"[mcp]\npath = \".mini/hooks.json\"\nformat = \"toml\"\n", "mcp.format"},
	} {
		_, err := Parse([]byte(minimal+c.mcp), "mini.toml")
		var fe *FieldError
		if assert.True(t, errors.As(err, &fe), "%s: %v", c.mcp, err) {
			assert.Equal(t, c.field, fe.Field)
		}
	}
}

// A patch field (Droid's ApplyPatch input) names every file of the patch,
// relative paths included; a patch that names no file is refused, not let
// through.
func TestPatchFieldsNameEveryFile(t *testing.T) {
	a := mini(t, "patches = [\"args.patch\"]\n")
	patch := "*** Begin Patch\n*** Update File: /r/a.go\n@@\n-a\n+b\n*** Add File: b.go\n+x\n*** End Patch\n"
	data, err := json.Marshal(map[string]any{"session_id": "s", "cwd": "/r", "tool_name": "edit", "args": map[string]any{"patch": patch}})
	require.NoError(t, err)
	in, err := a.DecodePayload(data)
	require.NoError(t, err)
	paths, err := a.EditedPaths(in)
	require.NoError(t, err)
	assert.Equal(t, []string{"/r/a.go", "b.go"}, paths)

	in, err = a.DecodePayload([]byte(`{"session_id":"s","cwd":"/r","tool_name":"edit","args":{"patch":"rewrite a.go please"}}`))
	require.NoError(t, err)
	_, err = a.EditedPaths(in)
	assert.ErrorContains(t, err, "names no file")

	// No patch field: the path fields still apply.
	in, err = a.DecodePayload([]byte(`{"session_id":"s","cwd":"/r","tool_name":"edit","args":{"path":"c.go"}}`))
	require.NoError(t, err)
	paths, err = a.EditedPaths(in)
	require.NoError(t, err)
	assert.Equal(t, []string{"c.go"}, paths)
}

// The flat layout writes each hook straight into its event's array.
func TestFlatHookLayout(t *testing.T) {
	a := mini(t, "")
	a.m().Hooks.Layout = "flat"
	a.m().Hooks.Events[0].Label = "agentlock"
	data, err := a.jsonHooks("agentlock")
	require.NoError(t, err)
	var doc struct {
		Hooks map[string][]map[string]any `json:"hooks"`
	}
	require.NoError(t, json.Unmarshal(data, &doc), "%s", data)
	entry := doc.Hooks["PreToolUse"][0]
	assert.Equal(t, "agentlock", entry["name"])
	assert.Equal(t, "edit", entry["matcher"])
	assert.Contains(t, entry["command"], "agentlock hook mini pre-edit")
	assert.NotContains(t, entry, "hooks")

	_, err = Load([]byte(strings.Replace(minimal, `format = "json"`, "format = \"json\"\nlayout = \"sideways\"", 1)), "mini.toml")
	assert.ErrorContains(t, err, "field hooks.layout")
}

// Data is the template data of the agent planning in env.
func TestData(t *testing.T) {
	a, err := Load([]byte(strings.Replace(minimal, `command = "mini"`, "command = \"mini\"\nsession_env = \"MINI_SESSION\"", 1)), "mini.toml")
	require.NoError(t, err)
	got := a.Data(integrations.Env{Bin: "/opt/agentlock", UserHome: "/home/u", Global: true})
	assert.Equal(t, templates.AgentData{Bin: "/opt/agentlock", Agent: "mini", Title: "Mini", Command: "mini", Provider: "p",
		Wrapper: "scripts/agentlock-mini", PreEditHook: true, SessionVar: "MINI_SESSION", SessionIDText: "from the wrapper"}, got)
}

// A template denial with exit 2 gives its output and asks for exit 2 too
// (Cursor's); the help names each form.
func TestDenyTemplateWithExit2(t *testing.T) {
	a := mini(t, "[deny]\nform = \"template\"\ntemplate = '{\"no\":{{json .Reason}}}'\nexit = 2\n")
	out, err := a.DenyOutput("held")
	assert.ErrorIs(t, err, integrations.ErrExitDenyWithOutput)
	assert.Equal(t, `{"no":"held"}`, string(out))
	assert.Equal(t, `exit 2, {"no":...} on stdout and the line on stderr`, a.DenyForm())
	assert.Equal(t, "exit 2 and the line on stderr", mini(t, "").DenyForm())
	_, err = Parse([]byte(minimal+"[deny]\nform = \"exit2\"\nexit = 2\n"), "mini.toml")
	assert.ErrorContains(t, err, "field deny.exit")
}

// The claude-json denial comes with Claude Code's edit context unless the
// manifest says the harness shows none (Codex).
func TestEditContextForms(t *testing.T) {
	out, err := mini(t, "[deny]\nform = \"claude-json\"\n").EditContext("note")
	require.NoError(t, err)
	assert.JSONEq(t, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","additionalContext":"note"}}`, string(out))
	_, err = mini(t, "[deny]\nform = \"claude-json\"\n[edit_context]\nform = \"stderr\"\n").EditContext("note")
	assert.ErrorIs(t, err, integrations.ErrNoEditContext)
	_, err = mini(t, "").EditContext("note")
	assert.ErrorIs(t, err, integrations.ErrNoEditContext)
}

// The after-tool context is none unless declared; the hook-specific form
// names its event, which it requires; the top-level form has none; the
// template form is its template with .Text (the text itself for the
// OpenCode plugin, Cline's control JSON), and requires one that runs.
func TestAfterToolContextForms(t *testing.T) {
	out, err := mini(t, "[after_tool_context]\nform = \"hook-specific\"\nevent = \"AfterTool\"\n").AfterToolContext("note")
	require.NoError(t, err)
	assert.JSONEq(t, `{"hookSpecificOutput":{"hookEventName":"AfterTool","additionalContext":"note"}}`, string(out))
	out, err = mini(t, "[after_tool_context]\nform = \"top-level\"\n").AfterToolContext("note")
	require.NoError(t, err)
	assert.JSONEq(t, `{"additionalContext":"note"}`, string(out))
	out, err = mini(t, "[after_tool_context]\nform = \"template\"\ntemplate = \"{{.Text}}\\n\"\n").AfterToolContext("a \"note\"")
	require.NoError(t, err)
	assert.Equal(t, "a \"note\"\n", string(out))
	out, err = mini(t, "[after_tool_context]\nform = \"template\"\ntemplate = '{\"contextModification\":{{json .Text}}}'\n").AfterToolContext("a \"note\"")
	require.NoError(t, err)
	assert.Equal(t, `{"contextModification":"a \"note\""}`, string(out))
	_, err = mini(t, "[deny]\nform = \"claude-json\"\n").AfterToolContext("note")
	assert.ErrorIs(t, err, integrations.ErrNoAfterToolContext)
	for extra, field := range map[string]string{
		"[after_tool_context]\nform = \"template\"\n":                                  "after_tool_context.template",
		"[after_tool_context]\nform = \"template\"\ntemplate = \"{{.Nope}}\"\n":        "after_tool_context.template",
		"[after_tool_context]\nform = \"template\"\ntemplate = \"{{\"\n":               "after_tool_context.template",
		"[after_tool_context]\nform = \"top-level\"\ntemplate = \"x\"\n":               "after_tool_context.template",
		"[after_tool_context]\nform = \"template\"\ntemplate = \"x\"\nevent = \"E\"\n": "after_tool_context.event",
		"[after_tool_context]\nform = \"hook-specific\"\n":                             "after_tool_context.event",
		"[after_tool_context]\nevent = \"PostToolUse\"\n":                              "after_tool_context.event",
		"[after_tool_context]\nform = \"stderr\"\n":                                    "after_tool_context.form",
		"[after_tool_context]\nform = \"top-level\"\nevent = \"X\"\n":                  "after_tool_context.event",
	} {
		_, err := Parse([]byte(minimal+extra), "mini.toml")
		assert.ErrorContains(t, err, "field "+field, extra)
	}
}

// A member of the wrong type reads as absent, the others are read; the
// tool's input is tool_input, for a Go extension to read.
func TestPayloadMembersOfTheWrongType(t *testing.T) {
	in, err := mini(t, "").DecodePayload([]byte(`{"session_id":7,"cwd":"/r","tool_name":"edit","tool_input":{"path":"a"}}`))
	require.NoError(t, err)
	assert.Empty(t, in.SessionID)
	assert.Equal(t, "/r", in.Cwd)
	assert.JSONEq(t, `{"path":"a"}`, string(in.ToolInput))
}

// A user's manifest has no Go code and no templates of its own: naming
// them is refused in one line naming the field.
func TestUserManifestsHaveNoExtensionsOrTemplates(t *testing.T) {
	for _, c := range []struct{ from, to, field string }{
		{`command = "mini"`, "command = \"mini\"\nextensions = [\"checks\"]", "extensions"},
		{`kind = "block"`, "kind = \"owned\"\ntemplate = \"rule.mdc.tmpl\"", "instructions[0].template"},
	} {
		_, err := Load([]byte(strings.Replace(minimal, c.from, c.to, 1)), "mini.toml")
		var fe *FieldError
		if assert.True(t, errors.As(err, &fe), "%s: %v", c.to, err) {
			assert.Equal(t, c.field, fe.Field)
		}
	}
	for _, c := range []struct{ extra, field string }{
		{"extensions = [\"teleport\"]\n", "extensions[0]"},
		{"dir_vars = [\"MINI_HOME\"]\n", "dir_vars"},
		{"extensions = [\"checks\"]\nenv_vars = [\"HOME\"]\n", "env_vars[0]"},
	} {
		_, err := Parse([]byte(strings.Replace(minimal, `command = "mini"`, `command = "mini"`+"\n"+c.extra, 1)), "mini.toml")
		var fe *FieldError
		if assert.True(t, errors.As(err, &fe), "%s: %v", c.extra, err) {
			assert.Equal(t, c.field, fe.Field)
		}
	}
}

// A built-in agent's Go extension is the one its manifest names.
func TestCheckExtension(t *testing.T) {
	m, err := Parse([]byte(strings.Replace(minimal, `command = "mini"`, "command = \"mini\"\nextensions = [\"checks\"]", 1)), "mini.toml")
	require.NoError(t, err)
	checks := func(*Agent, integrations.DoctorEnv) []integrations.Check { return nil }
	d := Declared{Head: HeadOf(m), Manifest: func() *Manifest { return m }}
	assert.NoError(t, Builtin(d, nil, Extension{Checks: checks}).CheckExtension())
	assert.Error(t, Builtin(d, nil, Extension{}).CheckExtension())
	assert.Error(t, Builtin(d, nil, Extension{Checks: checks, EditedPaths: func(integrations.HookInput) ([]string, error) { return nil, nil }}).CheckExtension())
}

// BenchmarkWritePayload reads a pre-edit hook's fields from a Write of a
// 64 KB file, the size of payload a hook is given for every new file: the
// payload is decoded once for all the fields read (docs/speed.md).
func BenchmarkWritePayload(b *testing.B) {
	a := mini(b, "")
	data, err := json.Marshal(map[string]any{"session_id": "s", "cwd": "/r", "hook_event_name": "PreToolUse", "tool_name": "edit",
		"args": map[string]any{"path": "a.go", "content": strings.Repeat("func f() { return \"x\" }\n", 64<<10/25)}})
	require.NoError(b, err)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		in, err := a.DecodePayload(data)
		if err != nil {
			b.Fatal(err)
		}
		if paths, err := a.EditedPaths(in); err != nil || len(paths) != 1 {
			b.Fatal(paths, err)
		}
	}
}
