package report

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Escape makes s safe to print on a terminal for people: every control
// character (C0, DEL, C1 — a newline, a carriage return, an ESC that would
// start a terminal sequence), every bidirectional control (U+202A-202E,
// U+2066-2069, U+200E, U+200F, U+061C: they reorder the text around them,
// so that a line could show another owner or path than it holds), the line
// and paragraph separators U+2028 and U+2029, and every byte that is not
// UTF-8 is written as a Go escape (\n, \r, \x1b, \u0085, \u202e). Other text, backslashes included, is
// kept as it is, so that Escape of an escaped string changes nothing. JSON
// output never goes through it: it stays exact.
func Escape(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case unicode.IsControl(r):
			q := strconv.QuoteRune(r) // e.g. '\n', '\x1b', '\u0085'
			b.WriteString(q[1 : len(q)-1])
		case reorders(r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+size])
		}
		i += size
	}
	return b.String()
}

// EscapeLines is Escape for text of several lines: each line is escaped,
// the newlines between them are kept.
func EscapeLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = Escape(l)
	}
	return strings.Join(lines, "\n")
}

func needsEscape(s string) bool {
	// Most text is printable ASCII: a byte test answers for it, and the
	// first byte that is not ASCII hands the rest to the rune test.
	i := 0
	for ; i < len(s) && s[i] < utf8.RuneSelf; i++ {
		if s[i] < 0x20 || s[i] == 0x7f {
			return true
		}
	}
	for _, r := range s[i:] {
		if r == utf8.RuneError || unicode.IsControl(r) || reorders(r) {
			return true
		}
	}
	return false
}

// linef is fmt.Sprintf for a line for people: every string, error or
// Stringer argument is escaped first, so that a file name or a registry
// value cannot reach the terminal as a control sequence.
func linef(format string, args ...any) string {
	esc := make([]any, len(args))
	for i, a := range args {
		switch v := a.(type) {
		case string:
			esc[i] = Escape(v)
		case error:
			esc[i] = Escape(v.Error())
		case fmt.Stringer:
			esc[i] = Escape(v.String())
		default:
			esc[i] = a
		}
	}
	return fmt.Sprintf(format, esc...)
}

// Linef is linef for the front ends' own lines (hook denials, say).
func Linef(format string, args ...any) string { return linef(format, args...) }

// reorders reports whether r changes how a terminal lays out the text
// around it without being a control character: a bidirectional control, or
// a line or paragraph separator.
func reorders(r rune) bool {
	return unicode.Is(unicode.Bidi_Control, r) || r == '\u2028' || r == '\u2029'
}
