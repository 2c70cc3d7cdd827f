package integrations

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// The JSON hook merge edits settings files as text: it parses them (JSON
// with comments and trailing commas, as Gemini allows) only to find byte
// spans, and splices agentlock's hook groups in or out. Every byte outside
// those spans — the user's keys, hooks, comments and layout — is kept.

// jnode is a JSON value and its byte span.
type jnode struct {
	kind          byte // '{', '[', '"' or 'v' (number, true, false, null)
	start, end    int  // the value, brackets or quotes included
	members       []jmember
	elems         []*jnode
	trailingComma bool
}

// jmember is an object member; start is where its key begins.
type jmember struct {
	key   string
	start int
	value *jnode
}

func (n *jnode) member(key string) (int, *jmember) {
	for i := range n.members {
		if n.members[i].key == key {
			return i, &n.members[i]
		}
	}
	return -1, nil
}

// items returns the spans of an object's members or an array's elements.
func (n *jnode) items() []span {
	var out []span
	for _, m := range n.members {
		out = append(out, span{m.start, m.value.end})
	}
	for _, e := range n.elems {
		out = append(out, span{e.start, e.end})
	}
	return out
}

type jparser struct {
	text []byte
	pos  int
}

var errNotJSON = errors.New("not a JSON document")

func parseJSONC(text []byte) (*jnode, error) {
	p := &jparser{text: text}
	if err := p.space(); err != nil {
		return nil, err
	}
	n, err := p.value()
	if err != nil {
		return nil, err
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.pos != len(p.text) {
		return nil, p.errorf("unexpected text after the document")
	}
	return n, nil
}

func (p *jparser) errorf(format string, args ...any) error {
	return fmt.Errorf("%w: line %d: %s", errNotJSON, lineNumber(p.text, min(p.pos, len(p.text))), fmt.Sprintf(format, args...))
}

// space skips white space and // or /* */ comments.
func (p *jparser) space() error {
	for p.pos < len(p.text) {
		switch c := p.text[p.pos]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.pos++
		case bytes.HasPrefix(p.text[p.pos:], []byte("//")):
			if i := bytes.IndexByte(p.text[p.pos:], '\n'); i >= 0 {
				p.pos += i + 1
			} else {
				p.pos = len(p.text)
			}
		case bytes.HasPrefix(p.text[p.pos:], []byte("/*")):
			i := bytes.Index(p.text[p.pos+2:], []byte("*/"))
			if i < 0 {
				return p.errorf("unterminated comment")
			}
			p.pos += i + 4
		default:
			return nil
		}
	}
	return nil
}

func (p *jparser) value() (*jnode, error) {
	if p.pos >= len(p.text) {
		return nil, p.errorf("unexpected end")
	}
	switch p.text[p.pos] {
	case '{':
		return p.container('{', '}')
	case '[':
		return p.container('[', ']')
	case '"':
		return p.str()
	}
	start := p.pos
	for p.pos < len(p.text) && strings.IndexByte(" \t\r\n,]}/", p.text[p.pos]) < 0 {
		p.pos++
	}
	var v any
	if err := json.Unmarshal(p.text[start:p.pos], &v); err != nil || start == p.pos {
		return nil, p.errorf("invalid value %q", p.text[start:p.pos])
	}
	return &jnode{kind: 'v', start: start, end: p.pos}, nil
}

func (p *jparser) str() (*jnode, error) {
	start := p.pos
	for p.pos++; p.pos < len(p.text); p.pos++ {
		switch p.text[p.pos] {
		case '\\':
			p.pos++
		case '"':
			p.pos++
			return &jnode{kind: '"', start: start, end: p.pos}, nil
		case '\n':
			return nil, p.errorf("line break in a string")
		}
	}
	return nil, p.errorf("unterminated string")
}

func (p *jparser) container(open, close byte) (*jnode, error) {
	n := &jnode{kind: open, start: p.pos}
	p.pos++
	for {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos < len(p.text) && p.text[p.pos] == close {
			p.pos++
			n.end = p.pos
			return n, nil
		}
		if len(n.members)+len(n.elems) > 0 {
			if p.pos >= len(p.text) || p.text[p.pos] != ',' {
				return nil, p.errorf("expected ',' or '%c'", close)
			}
			p.pos++
			if err := p.space(); err != nil {
				return nil, err
			}
			if p.pos < len(p.text) && p.text[p.pos] == close {
				n.trailingComma = true
				continue
			}
		}
		if open == '[' {
			v, err := p.value()
			if err != nil {
				return nil, err
			}
			n.elems = append(n.elems, v)
			continue
		}
		keyStart := p.pos
		if p.pos >= len(p.text) || p.text[p.pos] != '"' {
			return nil, p.errorf("expected a member name")
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		var key string
		if err := json.Unmarshal(p.text[k.start:k.end], &key); err != nil {
			return nil, p.errorf("invalid member name")
		}
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.pos >= len(p.text) || p.text[p.pos] != ':' {
			return nil, p.errorf("expected ':' after %q", key)
		}
		p.pos++
		if err := p.space(); err != nil {
			return nil, err
		}
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		n.members = append(n.members, jmember{key: key, start: keyStart, value: v})
	}
}

// parseObject parses a settings file whose top level must be an object.
func parseObject(text []byte) (*jnode, error) {
	doc, err := parseJSONC(text)
	if err != nil {
		return nil, err
	}
	if doc.kind != '{' {
		return nil, fmt.Errorf("%w: the top level is not an object", errNotJSON)
	}
	return doc, nil
}

// indentUnit guesses the file's indentation from its first indented line.
func indentUnit(text []byte) string {
	for _, line := range bytes.Split(text, []byte("\n")) {
		trimmed := bytes.TrimLeft(line, " \t")
		if len(trimmed) > 0 && len(trimmed) < len(line) {
			return string(line[:len(line)-len(trimmed)])
		}
	}
	return "  "
}

// reindent rewrites the two-space indentation of agentlock's templates
// with unit.
func reindent(text []byte, unit string) []byte {
	if unit == "  " {
		return text
	}
	lines := bytes.Split(text, []byte("\n"))
	for i, line := range lines {
		n := 0
		for n+1 < len(line) && line[n] == ' ' && line[n+1] == ' ' {
			n += 2
		}
		lines[i] = concat([]byte(strings.Repeat(unit, n/2)), line[n:])
	}
	return bytes.Join(lines, []byte("\n"))
}

// insertItem adds item (an object member or an array element, already
// indented for depth) as the last item of container c at depth.
func insertItem(text []byte, c *jnode, item []byte, depth int, unit string) ([]byte, error) {
	if c.trailingComma {
		return nil, errors.New("the file uses trailing commas, which agentlock does not edit")
	}
	items := c.items()
	if len(items) == 0 {
		return concat(text[:c.start+1], []byte("\n"+strings.Repeat(unit, depth)), item,
			[]byte("\n"+strings.Repeat(unit, depth-1)), text[c.end-1:]), nil
	}
	last := items[len(items)-1].end
	return concat(text[:last], []byte(",\n"+strings.Repeat(unit, depth)), item, text[last:]), nil
}

// removeItem removes item i of container c with its separator: the exact
// inverse of insertItem for the last item.
func removeItem(text []byte, c *jnode, i int) []byte {
	items := c.items()
	switch {
	case len(items) == 1:
		return concat(text[:c.start+1], text[c.end-1:])
	case i == len(items)-1:
		return concat(text[:items[i-1].end], text[items[i].end:])
	default:
		return concat(text[:items[i].start], text[items[i+1].start:])
	}
}

// ownHookGroup reports whether a hook group (an element of an event's
// array) is agentlock's: one of its hooks runs a command containing
// fingerprint. A group with a "command" of its own is a hook of the flat
// layout (Crush's and Cursor's), with no "hooks" array.
func ownHookGroup(text []byte, group *jnode, fingerprint string) bool {
	if group.kind != '{' {
		return false
	}
	entries := []*jnode{group}
	if _, hooks := group.member("hooks"); hooks != nil && hooks.value.kind == '[' {
		entries = hooks.value.elems
	}
	for _, h := range entries {
		if h.kind != '{' {
			continue
		}
		_, cmd := h.member("command")
		if cmd == nil || cmd.value.kind != '"' {
			continue
		}
		var s string
		if json.Unmarshal(text[cmd.value.start:cmd.value.end], &s) == nil && strings.Contains(s, fingerprint) {
			return true
		}
	}
	return false
}

// installHooks merges the hook groups of want (the settings file agentlock
// would write alone) into text. Each event gets agentlock's group: added
// when missing, replaced when it differs. Nothing else changes.
func installHooks(text, want []byte, fingerprint string) ([]byte, error) {
	tmpl, err := parseJSONC(want)
	if err != nil {
		return nil, fmt.Errorf("agentlock's template: %w", err)
	}
	_, tHooks := tmpl.member("hooks")
	if len(bytes.TrimSpace(text)) == 0 {
		return want, nil
	}
	unit := indentUnit(text)
	piece := func(s span) []byte { return reindent(want[s.start:s.end], unit) }
	for _, tEvent := range tHooks.value.members {
		wantGroup := piece(span{tEvent.value.elems[0].start, tEvent.value.elems[0].end})
		doc, err := parseObject(text)
		if err != nil {
			return nil, err
		}
		_, hooks := doc.member("hooks")
		if hooks == nil {
			return insertItem(text, doc, piece(span{tHooks.start, tHooks.value.end}), 1, unit)
		}
		if hooks.value.kind != '{' {
			return nil, fmt.Errorf("%w: \"hooks\" is not an object", errNotJSON)
		}
		_, event := hooks.value.member(tEvent.key)
		if event == nil {
			if text, err = insertItem(text, hooks.value, piece(span{tEvent.start, tEvent.value.end}), 2, unit); err != nil {
				return nil, err
			}
			continue
		}
		if event.value.kind != '[' {
			return nil, fmt.Errorf("%w: hooks.%s is not an array", errNotJSON, tEvent.key)
		}
		ours := -1
		for i, g := range event.value.elems {
			if ownHookGroup(text, g, fingerprint) {
				ours = i
				break
			}
		}
		if ours < 0 {
			if text, err = insertItem(text, event.value, wantGroup, 3, unit); err != nil {
				return nil, err
			}
			continue
		}
		g := event.value.elems[ours]
		if !bytes.Equal(text[g.start:g.end], wantGroup) {
			text = concat(text[:g.start], wantGroup, text[g.end:])
		}
	}
	return text, nil
}

// removeHooks removes every agentlock hook group from text, then the event
// arrays and the "hooks" object that this leaves empty. An empty result
// means the file held nothing else.
func removeHooks(text []byte, fingerprint string) ([]byte, error) {
	if len(bytes.TrimSpace(text)) == 0 {
		return text, nil
	}
	removed := false // empty containers are removed only when agentlock emptied them
	for {
		doc, err := parseObject(text)
		if err != nil {
			return nil, err
		}
		hi, hooks := doc.member("hooks")
		if hooks == nil || hooks.value.kind != '{' {
			return text, nil
		}
		if len(hooks.value.members) == 0 && removed {
			text = removeItem(text, doc, hi)
			if doc, err = parseJSONC(text); err == nil && (len(doc.members) == 0 || onlyVersion(text, doc)) {
				return nil, nil
			}
			return text, err
		}
		changed := false
		for ei, event := range hooks.value.members {
			if event.value.kind != '[' {
				continue
			}
			for gi, g := range event.value.elems {
				if ownHookGroup(text, g, fingerprint) {
					if len(event.value.elems) == 1 {
						text = removeItem(text, hooks.value, ei)
					} else {
						text = removeItem(text, event.value, gi)
					}
					changed = true
					break
				}
			}
			if changed {
				break
			}
		}
		if !changed {
			return text, nil
		}
		removed = true
	}
}

// onlyVersion reports whether a hooks file holds nothing but its schema
// version ({"version": 1}, Cursor's layout): what agentlock's own file is
// once its hooks are gone, and nothing of the user's.
func onlyVersion(text []byte, doc *jnode) bool {
	if len(doc.members) != 1 {
		return false
	}
	_, v := doc.member("version")
	return v != nil && string(bytes.TrimSpace(text[v.value.start:v.value.end])) == "1"
}

// StripJSONComments blanks the // and /* */ comments of a JSONC text
// (Qwen Code's, Gemini CLI's and Factory Droid's settings allow them),
// outside strings, for encoding/json to read it.
func StripJSONComments(data []byte) []byte {
	out := append([]byte(nil), data...)
	for i := 0; i < len(out); i++ {
		switch {
		case out[i] == '"':
			for i++; i < len(out) && out[i] != '"'; i++ {
				if out[i] == '\\' {
					i++
				}
			}
		case out[i] == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case out[i] == '/' && i+1 < len(out) && out[i+1] == '*':
			j := i
			for ; j < len(out) && !(out[j] == '*' && j+1 < len(out) && out[j+1] == '/' && j > i+1); j++ {
				if out[j] != '\n' {
					out[j] = ' '
				}
			}
			for k := j; k < len(out) && k < j+2; k++ {
				out[k] = ' '
			}
			i = j + 1
		}
	}
	return out
}
