package core

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// The frontmatter is written in one fixed shape: every scalar a
// double-quoted YAML string, every list a one-line flow sequence, the keys
// of agent-registry 0.2 in 0.2's order. That is plain YAML (yaml.safe_load
// of agent-registry 0.2 reads it) and it lets the reader take a fast path:
// decodeOwnFrontmatter parses exactly that shape in one pass, and anything
// else — a file written by agent-registry 0.2, or edited by a person — goes
// through the general YAML decoder (Document.UnmarshalYAML). Both give the
// same Document for the same text; a test holds them to it.
//
// What the fixed shape cannot hold — keys agentlock does not know, values
// kept as found — the general YAML encoder writes at its place (see
// encode.go). Such a file leaves the fast path when it is read again.

// sessionField is one line of a session in the fixed shape: its
// indentation, its key and where its value goes.
type sessionField struct {
	indent string
	key    string
	str    func(*Session) *string
	list   func(*Session) *[]string
	header bool // a mapping key with nested lines ("todo:")
	todo   bool // a key of the todo mapping
}

// sessionFields is the order of a session's lines in the fixed shape.
var sessionFields = []sessionField{
	{indent: "  - ", key: "session_id", str: func(s *Session) *string { return &s.SessionID }},
	{indent: "    ", key: "provider", str: func(s *Session) *string { return &s.Provider }},
	{indent: "    ", key: "ai_version", str: func(s *Session) *string { return &s.AIVersion }},
	{indent: "    ", key: "started_at", str: func(s *Session) *string { return &s.StartedAt }},
	{indent: "    ", key: "working_on", str: func(s *Session) *string { return &s.WorkingOn }},
	{indent: "    ", key: "todo", header: true},
	{indent: "      ", key: "past", todo: true, list: func(s *Session) *[]string { return &s.Todo.Past }},
	{indent: "      ", key: "present", todo: true, list: func(s *Session) *[]string { return &s.Todo.Present }},
	{indent: "      ", key: "future", todo: true, list: func(s *Session) *[]string { return &s.Todo.Future }},
	{indent: "    ", key: "space", list: func(s *Session) *[]string { return &s.Space }},
	{indent: "    ", key: "do_not_touch", list: func(s *Session) *[]string { return &s.DoNotTouch }},
	{indent: "    ", key: "status", str: func(s *Session) *string { return &s.Status }},
	{indent: "    ", key: "issues", str: func(s *Session) *string { return &s.Issues }},
	{indent: "    ", key: "handoff", str: func(s *Session) *string { return &s.Handoff }},
}

// writeQuoted writes v as a YAML double-quoted scalar. Everything YAML 1.1
// readers (PyYAML) refuse to see raw — control characters, DEL, C1 codes,
// U+FEFF, U+FFFE/U+FFFF, the line and paragraph separators — and invalid
// UTF-8 bytes are escaped, so the file is printable and each value reads
// back byte for byte.
func writeQuoted(b *bytes.Buffer, v string) {
	b.WriteByte('"')
	if plainQuoted(v) {
		b.WriteString(v)
		b.WriteByte('"')
		return
	}
	for i := 0; i < len(v); {
		r, size := utf8.DecodeRuneInString(v[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			// A byte that is not UTF-8 has no spelling in YAML, whose
			// streams are Unicode: it becomes U+FFFD, as in JSON. Lock
			// files keep exact paths; the registry is their view.
			b.WriteString(`\uFFFD`)
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || (r >= 0x7f && r <= 0x9f):
			fmt.Fprintf(b, `\x%02X`, r)
		case needsUnicodeEscape(r):
			fmt.Fprintf(b, `\u%04X`, r)
		default:
			b.WriteString(v[i : i+size])
		}
		i += size
	}
	b.WriteByte('"')
}

// decodeFrontmatter parses the frontmatter text: the fixed shape by the
// fast path, anything else by the YAML decoder (Document.UnmarshalYAML).
func decodeFrontmatter(front string) (Document, error) {
	if doc, ok := decodeOwnFrontmatter(front); ok {
		return doc, nil
	}
	var n yaml.Node
	if err := yaml.NewDecoder(strings.NewReader(front)).Decode(&n); err != nil {
		if errors.Is(err, io.EOF) { // nothing but blanks and comments
			return Document{}, fmt.Errorf("the frontmatter has no agents list")
		}
		return Document{}, err
	}
	root := &n
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		root = n.Content[0]
	}
	// Aliases are followed when values are read and copied when they are
	// written back: a few lines of nested aliases (a "billion laughs")
	// would expand to billions of nodes and hang every command.
	if budget := maxExpandedNodes; !expandsWithin(root, &budget, 0, false) {
		return Document{}, fmt.Errorf("the frontmatter's aliases expand to more than %d values (an alias bomb?)", maxExpandedNodes)
	}
	var doc Document
	if err := doc.UnmarshalYAML(root); err != nil {
		return Document{}, err
	}
	return doc, nil
}

// maxExpandedNodes bounds how many values the frontmatter's aliases
// expand to, beyond the values written out: a registry's aliases, when it
// has any, stand for a few values each. The values written out are
// bounded by the registry's size, not by this: a registry of thousands of
// sessions, written by another tool, loads.
const maxExpandedNodes = 100_000

// expandsWithin reports whether the aliases below n, every one expanded,
// stand for no more nodes than *budget, which it spends on the nodes
// reached through an alias (aliased is set below one). It stops as soon as
// the budget is spent.
func expandsWithin(n *yaml.Node, budget *int, depth int, aliased bool) bool {
	if aliased {
		if *budget--; *budget < 0 {
			return false
		}
	}
	if depth > 200 {
		return true // expandAliases cuts deeper nesting
	}
	if n.Kind == yaml.AliasNode && n.Alias != nil {
		return expandsWithin(n.Alias, budget, depth+1, true)
	}
	for _, c := range n.Content {
		if !expandsWithin(c, budget, depth+1, aliased) {
			return false
		}
	}
	return true
}

// decodeOwnFrontmatter parses text in exactly the shape encodeFrontmatter
// writes. It reports false at the first line that differs in any way, and
// the caller falls back to the general decoder.
func decodeOwnFrontmatter(front string) (Document, bool) {
	var doc Document
	lines := strings.Split(strings.TrimSuffix(front, "\n"), "\n")
	if len(lines) < 3 {
		return doc, false
	}
	var ok bool
	if doc.Version, ok = quotedValue(lines[0], "version: "); !ok {
		return doc, false
	}
	if doc.LastUpdated, ok = quotedValue(lines[1], "last_updated: "); !ok {
		return doc, false
	}
	switch lines[2] {
	case "agents: []":
		if len(lines) != 3 {
			return doc, false
		}
		doc.Agents = []Session{}
		return doc, true
	case "agents:":
	default:
		return doc, false
	}
	rest := lines[3:]
	if len(rest) == 0 || len(rest)%len(sessionFields) != 0 {
		return doc, false
	}
	doc.Agents = make([]Session, 0, len(rest)/len(sessionFields))
	for len(rest) > 0 {
		var s Session
		for i, f := range sessionFields {
			value, ok := strings.CutPrefix(rest[i], f.indent)
			if ok {
				value, ok = strings.CutPrefix(value, f.key)
			}
			if ok {
				value, ok = strings.CutPrefix(value, ":")
			}
			if !ok {
				return doc, false
			}
			switch {
			case f.header:
				if value != "" {
					return doc, false
				}
			case f.str != nil:
				if *f.str(&s), ok = quotedValue(value, " "); !ok {
					return doc, false
				}
			default:
				if *f.list(&s), ok = flowList(value); !ok {
					return doc, false
				}
			}
		}
		doc.Agents = append(doc.Agents, s)
		rest = rest[len(sessionFields):]
	}
	return doc, true
}

// plainQuoted reports whether v is printable ASCII without '"' or '\\', the
// common case that needs no escaping at all.
func plainQuoted(v string) bool {
	for i := 0; i < len(v); i++ {
		if c := v[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// needsUnicodeEscape reports the code points above U+009F that YAML readers
// refuse raw or read as line breaks.
func needsUnicodeEscape(r rune) bool {
	return r == 0x2028 || r == 0x2029 || r == 0xFEFF || r == 0xFFFE || r == 0xFFFF
}

// quotedValue returns the string of line when line is prefix followed by
// one double-quoted scalar and nothing else.
func quotedValue(line, prefix string) (string, bool) {
	if !strings.HasPrefix(line, prefix) {
		return "", false
	}
	v, rest, ok := unquote(line[len(prefix):])
	if !ok || rest != "" {
		return "", false
	}
	return v, true
}

// flowList parses ` ["a", "b"]`: a flow sequence of double-quoted scalars
// separated by ", ".
func flowList(value string) ([]string, bool) {
	if !strings.HasPrefix(value, " [") || !strings.HasSuffix(value, "]") {
		return nil, false
	}
	body := value[2 : len(value)-1]
	list := []string{}
	for body != "" {
		item, rest, ok := unquote(body)
		if !ok {
			return nil, false
		}
		list = append(list, item)
		if rest == "" {
			break
		}
		if body = strings.TrimPrefix(rest, ", "); len(body) == len(rest) || body == "" {
			return nil, false
		}
	}
	return list, true
}

// unquote reads one double-quoted scalar at the start of s, with the
// escapes writeQuoted produces, and returns it with the text after it. It
// refuses any other escape and any raw character a YAML reader would treat
// differently, leaving those to the general decoder.
func unquote(s string) (string, string, bool) {
	if !strings.HasPrefix(s, `"`) {
		return "", "", false
	}
	if end := strings.IndexByte(s[1:], '"') + 1; end > 0 && plainQuoted(s[1:end]) {
		return s[1:end], s[end+1:], true
	}
	var b strings.Builder
	for i := 1; i < len(s); {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), s[i+1:], true
		case c == '\\':
			if i+1 >= len(s) {
				return "", "", false
			}
			n := 0
			switch s[i+1] {
			case '"':
				b.WriteByte('"')
			case '\\':
				b.WriteByte('\\')
			case 'n':
				b.WriteByte('\n')
			case 't':
				b.WriteByte('\t')
			case 'r':
				b.WriteByte('\r')
			case 'x':
				n = 2
			case 'u':
				n = 4
			default:
				return "", "", false
			}
			if n == 0 {
				i += 2
				continue
			}
			if i+2+n > len(s) {
				return "", "", false
			}
			code, err := strconv.ParseUint(s[i+2:i+2+n], 16, 32)
			if err != nil {
				return "", "", false
			}
			if code >= 0xD800 && code <= 0xDFFF {
				return "", "", false // a lone surrogate: not ours
			}
			b.WriteRune(rune(code))
			i += 2 + n
		case c < 0x20 || c == 0x7f:
			return "", "", false
		case c >= 0x80:
			r, size := utf8.DecodeRuneInString(s[i:])
			if (r == utf8.RuneError && size == 1) || r <= 0x9f || needsUnicodeEscape(r) {
				return "", "", false
			}
			b.WriteString(s[i : i+size])
			i += size
		default:
			b.WriteByte(c)
			i++
		}
	}
	return "", "", false
}
