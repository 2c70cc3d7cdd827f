package core

import (
	"bytes"
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// encodeFrontmatter writes doc's YAML (without the --- lines). The known
// keys are written in the fixed shape (see frontmatter.go), in
// agent-registry 0.2's order. What agentlock keeps as found — keys it does
// not know, values of a type it could not convert — falls back to the
// general YAML encoder: unknown keys after the known ones of their mapping,
// kept values in their key's place. Such output is parsed again before it
// is returned, so that a registry is never replaced by text that does not
// read back.
func encodeFrontmatter(b *bytes.Buffer, doc Document) error {
	start := b.Len()
	general := !doc.foreign.empty()
	if err := writeString(b, "", "version", &doc.foreign, doc.Version); err != nil {
		return err
	}
	b.WriteString("last_updated: ")
	writeQuoted(b, doc.LastUpdated)
	b.WriteByte('\n')
	if len(doc.Agents) == 0 {
		b.WriteString("agents: []\n")
	} else {
		b.WriteString("agents:\n")
	}
	for i := range doc.Agents {
		s := &doc.Agents[i]
		general = general || !s.IsSession() || !s.foreign.empty() || !s.Todo.foreign.empty()
		if err := writeSession(b, s); err != nil {
			return err
		}
	}
	if err := writeExtra(b, "", doc.extra); err != nil {
		return err
	}
	if general {
		if _, err := decodeFrontmatter(b.String()[start:]); err != nil {
			return fmt.Errorf("render registry: the frontmatter would not read back (nothing was changed): %w", err)
		}
	}
	return nil
}

// writeSession writes one entry of the agents list.
func writeSession(b *bytes.Buffer, s *Session) error {
	if !s.IsSession() {
		return writeNode(b, "  ", &yaml.Node{Kind: yaml.SequenceNode, Content: []*yaml.Node{s.opaque}})
	}
	first := b.Len()
	todoAsFound := false
	for _, f := range sessionFields {
		// Every key is written at the session's indentation; the first
		// line then becomes the list item ("  - ").
		indent := f.indent
		if indent == "  - " {
			indent = "    "
		}
		fg := &s.foreign
		if f.todo {
			if todoAsFound {
				continue
			}
			fg = &s.Todo.foreign
		}
		var err error
		switch {
		case f.header:
			node, ok := s.found("todo", s.Todo)
			if todoAsFound = ok; ok {
				err = writePair(b, indent, f.key, node)
			} else {
				writeKey(b, indent, f.key)
				b.WriteByte('\n')
			}
		case f.str != nil:
			err = writeString(b, indent, f.key, fg, *f.str(s))
		default:
			err = writeList(b, indent, f.key, fg, *f.list(s))
		}
		if err == nil && f.key == "future" {
			err = writeExtra(b, indent, s.Todo.extra)
		}
		if err != nil {
			return err
		}
	}
	for _, kv := range [][2]string{{"worktree", s.Worktree}, {"branch", s.Branch}, {"parent", s.Parent}} {
		if kv[1] == "" {
			continue
		}
		if err := writeString(b, "    ", kv[0], &s.foreign, kv[1]); err != nil {
			return err
		}
	}
	if err := writeExtra(b, "    ", s.extra); err != nil {
		return err
	}
	b.Bytes()[first+2] = '-'
	return nil
}

// writeString writes "key: value" at indent: the value found for key when
// it is kept and unchanged, else value as a double-quoted string.
func writeString(b *bytes.Buffer, indent, key string, fg *foreign, value string) error {
	if node, ok := fg.found(key, value); ok {
		return writePair(b, indent, key, node)
	}
	writeKey(b, indent, key)
	b.WriteByte(' ')
	writeQuoted(b, value)
	b.WriteByte('\n')
	return nil
}

// writeKey writes "key:" at indent, with no allocation: a registry of 200
// sessions has 3,000 keys to write.
func writeKey(b *bytes.Buffer, indent, key string) {
	b.WriteString(indent)
	b.WriteString(key)
	b.WriteByte(':')
}

// writeList is writeString for a list, written as a flow sequence.
func writeList(b *bytes.Buffer, indent, key string, fg *foreign, list []string) error {
	if node, ok := fg.found(key, list); ok {
		return writePair(b, indent, key, node)
	}
	writeKey(b, indent, key)
	b.WriteString(" [")
	for j, item := range list {
		if j > 0 {
			b.WriteString(", ")
		}
		writeQuoted(b, item)
	}
	b.WriteString("]\n")
	return nil
}

// writePair writes "key: <node>" at indent with the YAML encoder.
func writePair(b *bytes.Buffer, indent, key string, value *yaml.Node) error {
	k := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key}
	return writeNode(b, indent, &yaml.Node{Kind: yaml.MappingNode, Content: []*yaml.Node{k, value}})
}

// writeExtra writes, at indent, the pairs that agentlock does not know.
func writeExtra(b *bytes.Buffer, indent string, extra []*yaml.Node) error {
	if len(extra) == 0 {
		return nil
	}
	return writeNode(b, indent, &yaml.Node{Kind: yaml.MappingNode, Content: extra})
}

// writeNode writes a mapping or a sequence in block style with the YAML
// encoder, every line shifted right by indent. Shifting keeps the meaning
// of nested blocks and multi-line scalars, whose indentation is relative;
// blank lines are left blank.
func writeNode(b *bytes.Buffer, indent string, n *yaml.Node) error {
	var out bytes.Buffer
	enc := yaml.NewEncoder(&out)
	enc.SetIndent(2)
	if err := enc.Encode(expandAliases(n, 0)); err != nil {
		return fmt.Errorf("render registry: %w", err)
	}
	if err := enc.Close(); err != nil {
		return fmt.Errorf("render registry: %w", err)
	}
	for _, line := range strings.SplitAfter(out.String(), "\n") {
		if strings.TrimSpace(line) != "" {
			b.WriteString(indent)
		}
		b.WriteString(line)
	}
	return nil
}
