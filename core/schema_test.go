package core

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/agentlock/agentlock/store/filestore"
)

// written02 is a registry as agent-registry 0.2 writes it (yaml.safe_dump
// with sort_keys=False, default_flow_style=False): block style, single
// quotes only where needed, issues and handoff strings, started_at in Rome
// time without seconds, last_updated with microseconds and offset.
const written02 = `---
version: '1.0'
last_updated: '2026-11-30T19:20:22.359907+01:00'
agents:
- session_id: claude 1
  provider: anthropic
  ai_version: '4.5'
  started_at: 2026-11-30 19:20
  working_on: 'yes'
  todo:
    past: []
    present:
    - 'a: b'
    - split login()
    future: []
  space:
  - src/auth
  - 'src/x

    '
  do_not_touch: []
  status: OnWorking
  issues: ''
  handoff: notes.md
---

<!-- PROTOCOL:START -->
<!-- PROTOCOL:END -->

| Session ID | Provider | AI Version | Started At (Rome) | Working On | To Do Past | To Do Present | To Do Future | Space | Do Not Touch | Status | Issues | Handoff |
|---|---|---|---|---|---|---|---|---|---|---|---|---|
`

func want02() Session {
	return Session{SessionID: "claude 1", Provider: "anthropic", AIVersion: "4.5", StartedAt: "2026-11-30 19:20",
		WorkingOn: "yes", Todo: Todo{Past: []string{}, Present: []string{"a: b", "split login()"}, Future: []string{}},
		Space: []string{"src/auth", "src/x\n"}, DoNotTouch: []string{}, Status: "OnWorking", Issues: "", Handoff: "notes.md"}
}

// sessionJSON compares sessions by their exported fields.
func assertSession(t *testing.T, want, got Session) {
	t.Helper()
	got.foreign, got.Todo.foreign = foreign{}, foreign{}
	assert.Equal(t, want, got)
}

func TestReadsWhatAgentRegistry02Writes(t *testing.T) {
	doc, err := parseRegistry("registry.md", []byte(written02))
	require.NoError(t, err)
	assert.Equal(t, "1.0", doc.Version)
	assert.Equal(t, "2026-11-30T19:20:22.359907+01:00", doc.LastUpdated)
	require.Len(t, doc.Agents, 1)
	assertSession(t, want02(), doc.Agents[0])
}

// Line ends, a byte order mark and the order of keys change nothing.
func TestReadsAnyKeyOrderCRLFAndBOM(t *testing.T) {
	shuffled := `---
agents:
- handoff: notes.md
  todo: {future: [], present: ['a: b', split login()], past: []}
  status: OnWorking
  space: [src/auth, "src/x\n"]
  issues: ''
  do_not_touch: []
  working_on: 'yes'
  started_at: 2026-11-30 19:20
  ai_version: '4.5'
  provider: anthropic
  session_id: claude 1
last_updated: '2026-11-30T19:20:22.359907+01:00'
version: '1.0'
---
`
	for name, text := range map[string]string{
		"0.2":              written02,
		"shuffled":         shuffled,
		"crlf":             strings.ReplaceAll(written02, "\n", "\r\n"),
		"bom":              "\ufeff" + written02,
		"bom, crlf, order": "\ufeff" + strings.ReplaceAll(shuffled, "\n", "\r\n"),
		"fence spaces":     strings.Replace(strings.Replace(written02, "---\n", "--- \n", 1), "\n---\n", "\n---\t\n", 1),
	} {
		doc, err := parseRegistry("registry.md", []byte(text))
		require.NoError(t, err, name)
		require.Len(t, doc.Agents, 1, name)
		assertSession(t, want02(), doc.Agents[0])
		assert.Equal(t, "2026-11-30T19:20:22.359907+01:00", doc.LastUpdated, name)
	}
}

func TestCorruptOnlyWhenNotYAMLOrWithoutAgentsList(t *testing.T) {
	for name, front := range map[string]string{
		"not YAML":          "agents: [ {session_id: a, oops\n",
		"no agents":         "version: '1.0'\nlast_updated: ''\n",
		"agents not a list": "agents: {a: 1}\n",
		"agents a string":   "agents: nobody\n",
		"not a mapping":     "- a\n- b\n",
		"only comments":     "# nothing\n",
		"empty":             "",
	} {
		_, err := parseRegistry("registry.md", []byte("---\n"+front+"---\n"))
		assert.ErrorIs(t, err, ErrCorruptRegistry, name)
	}
	for name, text := range map[string]string{
		"empty file":      "",
		"blank file":      " \n\n",
		"null agents":     "---\nagents:\n---\n",
		"no version":      "---\nagents: []\n---\n",
		"wrong types":     "---\nversion: [1]\nlast_updated: {a: b}\nagents:\n- session_id: [x]\n  todo: 3\n  space: {a: b}\n---\n",
		"not a mapping":   "---\nagents:\n- just a string\n- [a, list]\n---\n",
		"no closing body": "---\nagents: []\n---",
	} {
		_, err := parseRegistry("registry.md", []byte(text))
		assert.NoError(t, err, name)
	}
}

// A value of an unexpected type is read; converted to 0.2's type when
// nothing is lost, else kept as found and written back unchanged.
func TestWrongTypesAreReadAndKept(t *testing.T) {
	tests := []struct {
		name, yaml string
		check      func(t *testing.T, s Session)
		keptAs     string // the value written back as found; empty when converted
	}{
		{"number where a string belongs", "working_on: 42", func(t *testing.T, s Session) { assert.Equal(t, "42", s.WorkingOn) }, ""},
		{"null string", "provider: null", func(t *testing.T, s Session) { assert.Equal(t, "", s.Provider) }, ""},
		{"list of strings as issues", "issues: [a, b]", func(t *testing.T, s Session) { assert.Equal(t, "a, b", s.Issues) }, ""},
		{"list as handoff, as agentlock 0.x wrote", "handoff: [notes.md]", func(t *testing.T, s Session) { assert.Equal(t, "notes.md", s.Handoff) }, ""},
		{"one string as a list", "space: src", func(t *testing.T, s Session) { assert.Equal(t, []string{"src"}, s.Space) }, ""},
		{"null list", "do_not_touch: ~", func(t *testing.T, s Session) { assert.Equal(t, []string{}, s.DoNotTouch) }, ""},
		{"mapping as a string", "working_on: {task: x, step: 2}",
			func(t *testing.T, s Session) { assert.Equal(t, "{task: x, step: 2}", s.WorkingOn) }, "working_on: {task: x, step: 2}"},
		{"mapping as a list", "space: {a: 1}",
			func(t *testing.T, s Session) { assert.Equal(t, []string{"{a: 1}"}, s.Space) }, "space: {a: 1}"},
		{"nested list", "do_not_touch: [a, [b, c]]",
			func(t *testing.T, s Session) { assert.Equal(t, []string{"a", "[b, c]"}, s.DoNotTouch) }, "do_not_touch: [a, [b, c]]"},
		{"todo as a string", "todo: write the tests",
			func(t *testing.T, s Session) { assert.Equal(t, []string{"write the tests"}, s.Todo.Present) }, "todo: write the tests"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := "---\nagents:\n- session_id: s\n  " + tt.yaml + "\n---\n"
			doc, err := parseRegistry("registry.md", []byte(text))
			require.NoError(t, err)
			tt.check(t, doc.Agents[0])
			out, err := renderRegistry(doc, "")
			require.NoError(t, err)
			front, _ := frontmatterOf(string(out))
			if tt.keptAs != "" {
				assert.Contains(t, front, "\n    "+tt.keptAs+"\n", "kept as found")
			}
			again, err := parseRegistry("registry.md", out)
			require.NoError(t, err)
			assertSession(t, stripForeign(doc.Agents[0]), again.Agents[0])
		})
	}

	// Once agentlock sets a kept field, its value is agentlock's.
	doc, err := parseRegistry("registry.md", []byte("---\nagents:\n- session_id: s\n  working_on: {a: 1}\n---\n"))
	require.NoError(t, err)
	doc.Agents[0].WorkingOn = "now text"
	out, err := renderRegistry(doc, "")
	require.NoError(t, err)
	assert.Contains(t, string(out), `working_on: "now text"`)
}

func stripForeign(s Session) Session {
	s.foreign, s.Todo.foreign = foreign{}, foreign{}
	return s
}

// frontmatterMap reads the frontmatter of a registry file as plain YAML.
func frontmatterMap(t *testing.T, data []byte) map[string]any {
	t.Helper()
	front, ok := frontmatterOf(string(data))
	require.True(t, ok, "%s", data)
	var m map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(front), &m))
	return m
}

// withUnknown is a registry with keys agentlock does not know at every
// level, anchors and a version written as a number.
const withUnknown = `---
version: 1.0
last_updated: '2026-11-30T19:20:22+01:00'
owner: &team {name: core, members: [a, b]}
agents:
- session_id: s1
  provider: p
  ai_version: v
  started_at: 2026-11-30 19:20
  working_on: w
  todo:
    past: []
    present: [t]
    future: []
    blocked: [x, {y: 1}]
  space: []
  do_not_touch: []
  status: OnWorking
  issues: ''
  handoff: ''
  pid: 123
  cmdline: [python, registry_manager.py, register]
  note: |
    line one

      indented line three
  team: *team
- plain entry, not a session
notes: "yes"
---
`

func TestUnknownKeysAndVersionSurviveEveryWrite(t *testing.T) {
	path := filepath.Join(t.TempDir(), "registry.md")
	require.NoError(t, os.WriteFile(path, []byte(withUnknown), 0o644))
	r := NewRegistry(&filestore.Document{Path: path}, RegistryOptions{})
	before := frontmatterMap(t, []byte(withUnknown))

	_, err := r.Register(t.Context(), Session{SessionID: "s2", Provider: "p", AIVersion: "v", WorkingOn: "other"})
	require.NoError(t, err)
	_, err = r.Update(t.Context(), "s1", func(s *Session) { s.WorkingOn = "changed"; s.Todo.Past = []string{"done"} })
	require.NoError(t, err)
	ok, err := r.HoldPaths(t.Context(), "s1", "/p/a.go")
	require.NoError(t, err)
	require.True(t, ok)
	_, err = r.Register(t.Context(), Session{SessionID: "s1", Provider: "p2", AIVersion: "v2", WorkingOn: "again"})
	require.NoError(t, err)
	_, err = r.AddHandoffRef(t.Context(), "s1", "n1.md")
	require.NoError(t, err)
	_, err = r.AddHandoffRef(t.Context(), "s1", "n2.md")
	require.NoError(t, err)
	_, err = r.Finish(t.Context(), "s1")
	require.NoError(t, err)

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	after := frontmatterMap(t, data)
	assert.Equal(t, 1.0, after["version"], "version kept as found, a number")
	assert.Equal(t, before["owner"], after["owner"])
	assert.Equal(t, "yes", after["notes"])
	agents := after["agents"].([]any)
	require.Len(t, agents, 3)
	s1 := agents[0].(map[string]any)
	for _, k := range []string{"pid", "cmdline", "note", "team"} {
		assert.Equal(t, before["agents"].([]any)[0].(map[string]any)[k], s1[k], k)
	}
	assert.Equal(t, "line one\n\n  indented line three\n", s1["note"])
	assert.Equal(t, []any{"x", map[string]any{"y": 1}}, s1["todo"].(map[string]any)["blocked"])
	assert.Equal(t, "n2.md", s1["handoff"], "handoff replaces")
	assert.Equal(t, "Finished", s1["status"])
	assert.Equal(t, "plain entry, not a session", agents[1])
	assert.Equal(t, "s2", agents[2].(map[string]any)["session_id"])

	// 0.2's keys come first, in 0.2's order, with 0.2's types; unknown
	// keys follow.
	var root yaml.Node
	front, _ := frontmatterOf(string(data))
	require.NoError(t, yaml.Unmarshal([]byte(front), &root))
	assert.Equal(t, []string{"version", "last_updated", "agents", "owner", "notes"}, keysOf(root.Content[0]))
	first := root.Content[0].Content[5].Content[0]
	assert.Equal(t, append(append([]string{}, sessionKeys...), "pid", "cmdline", "note", "team"), keysOf(first))
	for i := 0; i < len(first.Content); i += 2 {
		switch first.Content[i].Value {
		case "issues", "handoff", "status", "working_on":
			assert.Equal(t, "!!str", first.Content[i+1].ShortTag(), first.Content[i].Value)
		}
	}

	doc, err := r.Load(t.Context())
	require.NoError(t, err)
	_, found := doc.Find("plain entry, not a session")
	assert.False(t, found, "an entry that is not a mapping is no session")
}

func keysOf(m *yaml.Node) []string {
	var keys []string
	for i := 0; i < len(m.Content); i += 2 {
		keys = append(keys, m.Content[i].Value)
	}
	return keys
}

func TestWritesAgentRegistry02Schema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "registry.md")
	r := NewRegistry(&filestore.Document{Path: path}, RegistryOptions{})
	_, err := r.Register(t.Context(), Session{SessionID: "s", Provider: "p", AIVersion: "v", WorkingOn: "w"})
	require.NoError(t, err)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	m := frontmatterMap(t, data)
	assert.Equal(t, "1.0", m["version"])
	a := m["agents"].([]any)[0].(map[string]any)
	assert.Equal(t, "", a["issues"])
	assert.Equal(t, "", a["handoff"])
	assert.Equal(t, map[string]any{"past": []any{}, "present": []any{}, "future": []any{}}, a["todo"])
	var root yaml.Node
	front, _ := frontmatterOf(string(data))
	require.NoError(t, yaml.Unmarshal([]byte(front), &root))
	assert.Equal(t, sessionKeys, keysOf(root.Content[0].Content[5].Content[0]))
	doc, err := decodeFrontmatter(front)
	require.NoError(t, err)
	_, fast := decodeOwnFrontmatter(front)
	assert.True(t, fast, "a registry with nothing foreign stays on the fast path")
	assert.Len(t, doc.Agents, 1)
}

func TestTableHasAgentRegistry02Columns(t *testing.T) {
	doc, err := parseRegistry("registry.md", []byte(written02))
	require.NoError(t, err)
	doc.Agents[0].Issues = "flaky | test"
	doc.Agents[0].Todo.Past = []string{"one", "two"}
	out, err := renderRegistry(doc, "")
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	header, row := lines[len(lines)-3], lines[len(lines)-1]
	assert.Equal(t, "| Session ID | Provider | AI Version | Started At | Working On | To Do Past | To Do Present | To Do Future | Space | Do Not Touch | Status | Issues | Handoff |", header)
	assert.Equal(t, `| claude 1 | anthropic | 4.5 | 2026-11-30 19:20 | yes | one, two | a: b, split login() |  | src/auth, src/x<br> |  | OnWorking | flaky \| test | notes.md |`, row)
}

// FuzzUnknownKeysRoundTrip: a key agentlock does not know, with any string
// value, at the top level, in a session and in its todo, is written back
// by the general encoder and reads back unchanged (invalid UTF-8 aside:
// YAML cannot hold it).
func FuzzUnknownKeysRoundTrip(f *testing.F) {
	for _, v := range hardValues {
		f.Add("k", v)
	}
	f.Add("- tricky: key", "multi\nline\n\n  indented\n")
	f.Add("", "|")
	f.Fuzz(func(t *testing.T, key, value string) {
		if !utf8.ValidString(key) || !utf8.ValidString(value) || sessionKeysOrTopKeys(key) {
			return
		}
		pair := func() []*yaml.Node {
			return []*yaml.Node{{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}, {Kind: yaml.ScalarNode, Tag: "!!str", Value: value}}
		}
		s := Session{SessionID: "s"}
		s.extra, s.Todo.extra = pair(), pair()
		doc := Document{Version: RegistryVersion, Agents: []Session{s}}
		doc.extra = pair()
		var b bytes.Buffer
		if err := encodeFrontmatter(&b, doc); err != nil {
			t.Fatalf("%v\n%s", err, b.String())
		}
		back, err := decodeFrontmatter(b.String())
		require.NoError(t, err, b.String())
		for _, extra := range [][]*yaml.Node{back.extra, back.Agents[0].extra, back.Agents[0].Todo.extra} {
			require.Len(t, extra, 2, b.String())
			assert.Equal(t, key, extra[0].Value)
			assert.Equal(t, value, extra[1].Value)
		}
	})
}

func sessionKeysOrTopKeys(k string) bool {
	for _, known := range append(append(append([]string{}, topKeys...), sessionKeys...), todoKeys...) {
		if k == known {
			return true
		}
	}
	return false
}
