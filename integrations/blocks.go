package integrations

import (
	"bytes"
	"fmt"
)

// blockMarkers returns the BEGIN and END lines of a managed block for a
// comment syntax ("<!--" or "#").
func blockMarkers(comment string) (begin, end string) {
	if comment == "#" {
		return "# BEGIN agentlock (managed by agentlock init; edits inside are lost)", "# END agentlock"
	}
	return "<!-- BEGIN agentlock (managed by agentlock init; edits inside are lost) -->", "<!-- END agentlock -->"
}

// beginPrefix is what identifies a BEGIN line, whatever follows it.
func beginPrefix(comment string) string {
	if comment == "#" {
		return "# BEGIN agentlock"
	}
	return "<!-- BEGIN agentlock"
}

// renderBlock returns the whole block: markers around body.
func renderBlock(comment string, body []byte) []byte {
	begin, end := blockMarkers(comment)
	var b bytes.Buffer
	b.WriteString(begin + "\n")
	b.Write(body)
	if len(body) > 0 && body[len(body)-1] != '\n' {
		b.WriteByte('\n')
	}
	b.WriteString(end + "\n")
	return b.Bytes()
}

// span is a byte range [start, end) of a file.
type span struct{ start, end int }

// findBlocks returns the complete BEGIN…END blocks of text, each span
// covering whole lines. A BEGIN without its END, or a BEGIN inside a
// block, is an error: the engine never guesses where a block ends.
func findBlocks(text []byte, comment string) ([]span, error) {
	prefix := beginPrefix(comment)
	_, end := blockMarkers(comment)
	var blocks []span
	open := -1
	for pos := 0; pos < len(text); {
		next := bytes.IndexByte(text[pos:], '\n')
		lineEnd := len(text)
		if next >= 0 {
			lineEnd = pos + next + 1
		}
		line := string(bytes.TrimSpace(text[pos:lineEnd]))
		switch {
		case len(line) >= len(prefix) && line[:len(prefix)] == prefix:
			if open >= 0 {
				return nil, fmt.Errorf("a %q line inside an agentlock block (line %d): fix the markers by hand", prefix, lineNumber(text, pos))
			}
			open = pos
		case line == end && open >= 0:
			blocks = append(blocks, span{open, lineEnd})
			open = -1
		}
		pos = lineEnd
	}
	if open >= 0 {
		return nil, fmt.Errorf("%q at line %d has no %q line: fix the markers by hand", prefix, lineNumber(text, open), end)
	}
	return blocks, nil
}

func lineNumber(text []byte, pos int) int { return bytes.Count(text[:pos], []byte("\n")) + 1 }

// installBlock returns text with the block set to body: the first existing
// block is replaced in place and duplicates are dropped; a file without a
// block gets it at the top (followed by a blank line) or at the bottom
// (after a blank line).
func installBlock(text []byte, a Artifact) ([]byte, error) {
	block := renderBlock(a.Comment, a.Content)
	blocks, err := findBlocks(text, a.Comment)
	if err != nil {
		return nil, err
	}
	if len(blocks) > 0 {
		var out bytes.Buffer
		prev := 0
		for i, b := range blocks {
			out.Write(text[prev:b.start])
			if i == 0 {
				out.Write(block)
			}
			prev = b.end
		}
		out.Write(text[prev:])
		return out.Bytes(), nil
	}
	switch {
	case len(text) == 0:
		return block, nil
	case a.Placement == Top:
		return concat(block, []byte("\n"), text), nil
	case text[len(text)-1] == '\n':
		return concat(text, []byte("\n"), block), nil
	default:
		return concat(text, []byte("\n\n"), block), nil
	}
}

// removeBlocks returns text without agentlock's blocks, and without the
// blank line installBlock put between a block and the user's content, so
// that install then uninstall gives the original bytes back.
func removeBlocks(text []byte, comment string) ([]byte, error) {
	blocks, err := findBlocks(text, comment)
	if err != nil {
		return nil, err
	}
	for i := len(blocks) - 1; i >= 0; i-- {
		b := blocks[i]
		start, end := b.start, b.end
		switch {
		case start == 0 && end < len(text) && text[end] == '\n':
			end++ // the blank line after a top block
		case end == len(text) && bytes.HasSuffix(text[:start], []byte("\n\n")):
			start-- // the blank line before a bottom block
		}
		text = concat(text[:start], text[end:])
	}
	return text, nil
}

func concat(parts ...[]byte) []byte {
	return bytes.Join(parts, nil)
}
