package core

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// hardValues covers every character class writeQuoted escapes or passes raw.
var hardValues = []string{
	"", "plain", `say "hi"`, `back\slash\`, "tab\there", "line\nbreak", "cr\rlf\r\n",
	"# not a comment", "key: value", "[flow], {map}", "'single'", "- dash", "null", "~", "yes", "1.0", "0x1F",
	"\x00nul\x01\x1f", "del\x7f", "c1\u0080\u0085\u009f", "ls\u2028ps\u2029", "bom\ufeff", "nonchar\uffff\ufffe",
	"ü é ß", "😀 emoji", "a|b", "trailing space ", " leading", "\\u0041 literal backslash-u", `\x41`,
}

func hardDocument() Document {
	doc := Document{Version: RegistryVersion, LastUpdated: "2026-11-29T23:00:00+01:00"}
	for i, v := range hardValues {
		doc.Agents = append(doc.Agents, Session{
			SessionID: "s" + string(rune('a'+i%26)), Provider: v, AIVersion: v, StartedAt: v, WorkingOn: v,
			Todo:  Todo{Past: []string{}, Present: []string{v, v + "2"}, Future: []string{v}},
			Space: []string{v}, DoNotTouch: []string{}, Status: v, Issues: v, Handoff: v + "h",
		})
	}
	return doc
}

func frontOf(t testing.TB, doc Document) string {
	t.Helper()
	var b bytes.Buffer
	if err := encodeFrontmatter(&b, doc); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The fast path and the YAML decoder read the writer's output to the same
// document, and that document is the one written.
func TestFrontmatterFastPathAgreesWithYAML(t *testing.T) {
	doc := hardDocument()
	front := frontOf(t, doc)

	fast, ok := decodeOwnFrontmatter(front)
	require.True(t, ok, "the fast path reads what the writer wrote")
	assert.Equal(t, doc, fast)

	var general Document
	require.NoError(t, yaml.Unmarshal([]byte(front), &general))
	assert.Equal(t, doc, general, "the writer's output is YAML with the same meaning")
}

// Files written by agent-registry 0.2 (block style, plain scalars) or edited
// by hand go through the YAML decoder.
func TestFrontmatterFallsBackForOtherShapes(t *testing.T) {
	front := `version: 1.0
last_updated: 2026-11-29T23:00:00+01:00
agents:
  - session_id: claude-1
    provider: anthropic
    ai_version: opus
    started_at: '2026-11-29T22:00:00+01:00'
    working_on: the parser   # a person's comment
    todo:
      past: []
      present:
        - one
      future: []
    space: [src]
    do_not_touch: []
    status: OnWorking
    issues: []
    handoff: []
`
	_, ok := decodeOwnFrontmatter(front)
	assert.False(t, ok)
	doc, err := decodeFrontmatter(front)
	require.NoError(t, err)
	require.Len(t, doc.Agents, 1)
	assert.Equal(t, "the parser", doc.Agents[0].WorkingOn)
	assert.Equal(t, []string{"one"}, doc.Agents[0].Todo.Present)
	assert.Equal(t, "1.0", doc.Version)

	// One changed line in our own shape is enough to leave the fast path.
	own := frontOf(t, hardDocument())
	for _, edit := range []struct{ from, to string }{
		{`    status: "`, `    status:  "`},
		{`      past: []`, `      past: [ ]`},
		{`, `, `,`},
		{`    handoff: "`, `    handoff:  "`},
		{`    issues: "plain"`, `    issues: "plain" # done`},
		{`    provider: "plain"`, `    provider: 'plain'`},
	} {
		changed := strings.Replace(own, edit.from, edit.to, 1)
		require.NotEqual(t, own, changed, edit.from)
		_, ok := decodeOwnFrontmatter(changed)
		assert.False(t, ok, "fast path must refuse %q", edit.to)
		_, err := decodeFrontmatter(changed)
		assert.NoError(t, err, "the YAML decoder still reads %q", edit.to)
	}
}

// FuzzFrontmatterRoundTrip: any value, written and read back by either
// decoder, is unchanged (invalid UTF-8 becomes U+FFFD, as YAML has no
// spelling for it).
func FuzzFrontmatterRoundTrip(f *testing.F) {
	for _, v := range hardValues {
		f.Add(v, v+"x")
	}
	f.Add("\xff\xfe", "ok")
	f.Fuzz(func(t *testing.T, a, b string) {
		build := func(norm func(string) string) Document {
			ab := norm(a + b)
			a, b := norm(a), norm(b)
			s := Session{SessionID: "s", Provider: a, AIVersion: b, StartedAt: "", WorkingOn: ab,
				Todo: Todo{Past: []string{a}, Present: []string{b, a}, Future: []string{}}, Space: []string{},
				DoNotTouch: []string{a}, Status: b, Issues: ab, Handoff: b}
			return Document{Version: a, LastUpdated: b, Agents: []Session{s}}
		}
		doc := build(func(v string) string { return v })
		front := frontOf(t, doc)
		// Each byte that is not UTF-8 reads back as U+FFFD.
		want := build(func(v string) string { return string([]rune(v)) })
		if utf8.ValidString(a) && utf8.ValidString(b) {
			fast, ok := decodeOwnFrontmatter(front)
			if !ok {
				t.Fatalf("fast path refused its own output:\n%s", front)
			}
			if !assert.Equal(t, doc, fast) {
				return
			}
		}
		var general Document
		if err := yaml.Unmarshal([]byte(front), &general); err != nil {
			t.Fatalf("writer output is not YAML: %v\n%s", err, front)
		}
		assert.Equal(t, want, general, "YAML reads back the written values")
		if fast, ok := decodeOwnFrontmatter(front); ok {
			assert.Equal(t, want, fast)
		}
	})
}
