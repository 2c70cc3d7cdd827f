package integrations

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	toml "github.com/pelletier/go-toml/v2"
)

// TOML files (Kimi's config.toml) are never re-serialised: they hold the
// user's API keys and comments. agentlock edits them as text, by its
// marked block, and parses them only to check that the text is, and stays,
// valid TOML: a file that would not load is worse than one without hooks.

// tomlError is why a TOML text does not parse. The message of go-toml is
// kept, never the offending line itself, which may hold a secret.
type tomlError struct {
	Line int
	Err  error
}

func (e *tomlError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.reason()) }

func (e *tomlError) reason() string { return strings.TrimPrefix(e.Err.Error(), "toml: ") }

func (e *tomlError) Unwrap() error { return e.Err }

// parseTOML decodes text and throws the result away.
func parseTOML(text []byte) error {
	var doc map[string]any
	return toml.Unmarshal(text, &doc)
}

// validateTOML returns nil when text is valid TOML, else where and why not.
func validateTOML(text []byte) *tomlError {
	err := parseTOML(text)
	if err == nil {
		return nil
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, _ := de.Position()
		return &tomlError{Line: line, Err: err}
	}
	// Errors found while decoding, such as a key defined twice, carry no
	// position. The decoder reads expressions in order and stops at the
	// first error, so every prefix of whole lines from the offending one on
	// fails with the same message and every shorter one does not (it
	// parses, or fails differently where it is cut): bisect for that line.
	lines := bytes.SplitAfter(text, []byte("\n"))
	lo, hi := 1, len(lines)
	for lo < hi {
		mid := (lo + hi) / 2
		if e := parseTOML(bytes.Join(lines[:mid], nil)); e != nil && e.Error() == err.Error() {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return &tomlError{Line: lo, Err: err}
}

// tomlHooksKey finds a hooks key or [hooks] table the user wrote: a block
// of [[hooks]] tables appended after it is not valid TOML. It only words
// the refusal once the parser has found the result invalid (a hooks key
// inside another table is no conflict).
var tomlHooksKey = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^[ \t]*(hooks[ \t]*=|\[[ \t]*hooks[ \t]*\][ \t]*(#.*)?$)`)
})

// installTOMLBlock returns text with a's block installed, as installBlock,
// after checking that the user's file is valid TOML and that it stays so
// with the block: either way a refusal names the line.
//
// agentlock's [[hooks]] tables found outside the block (by the fingerprint
// in their command) are replaced by the block: Kimi rewrites its
// config.toml without comments, markers included, and the tables would
// otherwise be installed twice.
func installTOMLBlock(text []byte, a Artifact, fingerprint string) ([]byte, error) {
	if bad := validateTOML(text); bad != nil {
		return nil, fmt.Errorf("not valid TOML: %w; fix the file, then run init again", bad)
	}
	text, err := removeStrayTOMLHooks(text, a.Comment, fingerprint)
	if err != nil {
		return nil, err
	}
	out, err := installBlock(text, a)
	if err != nil {
		return nil, err
	}
	bad := validateTOML(out)
	if bad == nil {
		return out, nil
	}
	if outside, err := removeBlocks(text, a.Comment); err == nil {
		if loc := tomlHooksKey().FindIndex(outside); loc != nil {
			return nil, fmt.Errorf("line %d defines hooks as a key or a table; agentlock adds [[hooks]] tables, which cannot follow it: "+
				"turn it into [[hooks]] tables, or add agentlock's [[hooks]] tables by hand", lineNumber(outside, loc[0]))
		}
	}
	return nil, fmt.Errorf("with agentlock's block the file would not be valid TOML: line %d of the result: %s; fix the file, or add the block by hand",
		bad.Line, bad.reason())
}

// removeTOMLBlock returns text without agentlock's blocks, as removeBlocks,
// and without agentlock's [[hooks]] tables that lost their block's markers
// (found by the fingerprint in their command), refusing a result that
// would no longer parse when the file did.
func removeTOMLBlock(text []byte, comment, fingerprint string) ([]byte, error) {
	out, err := removeStrayTOMLHooks(text, comment, fingerprint)
	if err == nil {
		out, err = removeBlocks(out, comment)
	}
	if err != nil || validateTOML(text) != nil {
		return out, err // a file that was already invalid is not made worse
	}
	if bad := validateTOML(out); bad != nil {
		return nil, fmt.Errorf("without agentlock's block the file would not be valid TOML: line %d of the result: %s; remove the block by hand",
			bad.Line, bad.reason())
	}
	return out, nil
}

// tomlTableHeader is a line that opens a table or an array of tables.
var tomlTableHeader = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[ \t]*\[`) })

// tomlHooksHeader is a line that opens one [[hooks]] table.
var tomlHooksHeader = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[ \t]*\[\[[ \t]*hooks[ \t]*\]\][ \t]*(#.*)?$`) })

// removeStrayTOMLHooks removes the [[hooks]] tables outside agentlock's
// marked blocks whose text holds fingerprint ("agentlock hook "): what is
// left of agentlock's block after a program rewrote the file without its
// comments. A table runs from its header to the next table header or the
// end of the file; the user's other tables are kept byte for byte.
func removeStrayTOMLHooks(text []byte, comment, fingerprint string) ([]byte, error) {
	blocks, err := findBlocks(text, comment)
	if err != nil {
		return nil, err
	}
	inBlock := func(pos int) bool {
		for _, b := range blocks {
			if pos >= b.start && pos < b.end {
				return true
			}
		}
		return false
	}
	lines := bytes.SplitAfter(text, []byte("\n"))
	var out bytes.Buffer
	droppedLast := false
	for i, pos := 0, 0; i < len(lines); {
		line := lines[i]
		if !tomlHooksHeader().Match(bytes.TrimRight(line, "\r\n")) || inBlock(pos) {
			out.Write(line)
			pos += len(line)
			i++
			continue
		}
		// The table: its header and every line up to the next header.
		j, end := i+1, pos+len(line)
		for j < len(lines) && !tomlTableHeader().Match(lines[j]) {
			end += len(lines[j])
			j++
		}
		if !bytes.Contains(text[pos:end], []byte(fingerprint)) {
			out.Write(text[pos:end])
			droppedLast = false
		} else {
			droppedLast = end == len(text)
		}
		i, pos = j, end
	}
	if b := out.Bytes(); droppedLast && bytes.HasSuffix(b, []byte("\n\n")) {
		// The blank lines before the last table, gone, separated it
		// from the table above.
		return append(bytes.TrimRight(b, "\r\n"), '\n'), nil
	}
	return out.Bytes(), nil
}
