package report

import (
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"
)

// TableWidth is the width every table for people fits in: a terminal's
// 80 columns.
const TableWidth = 80

// maxIDWidth is the widest a session id is shown in a table; a longer one
// is shortened with an ellipsis (JSON output keeps it whole).
const maxIDWidth = 24

// ellipsis marks text left out.
const ellipsis = "…"

// Shorten returns s cut to width runes, its end replaced by an ellipsis
// when it is longer.
func Shorten(s string, width int) string {
	if width < 1 || utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)
	return string(r[:width-1]) + ellipsis
}

// wrap lays out prefix+text within width: when it does not fit, text is
// broken between words onto lines that start with indent. A word is never
// cut: one wider than the line stands whole on its own line. Lines end in
// "\n".
func wrap(prefix, text, indent string, width int) string {
	if utf8.RuneCountInString(prefix+text) <= width {
		return prefix + text + "\n"
	}
	var b strings.Builder
	line, words := prefix, 0
	for _, word := range strings.Fields(text) {
		if words > 0 && utf8.RuneCountInString(line)+1+utf8.RuneCountInString(word) > width {
			b.WriteString(line + "\n")
			line, words = indent, 0
		}
		if words > 0 {
			line += " "
		}
		line += word
		words++
	}
	b.WriteString(line + "\n")
	return b.String()
}

// shortenLeft is Shorten keeping the end of s, for paths: their file name
// is what tells them apart.
func shortenLeft(s string, width int) string {
	if width < 1 || utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)
	return ellipsis + string(r[len(r)-(width-1):])
}

// Rel shows a real path for people: relative to the project root when it
// is inside it, absolute otherwise.
func Rel(root, path string) string {
	if root == "" || path == "" {
		return path
	}
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path
	}
	if strings.HasSuffix(path, "/") && rel != "." {
		rel += "/" // an area
	} else if strings.HasSuffix(path, "/") {
		rel = "./"
	}
	return rel
}

// secondsDuration turns a record's seconds back into a duration, for Human.
func secondsDuration(s float64) time.Duration {
	return time.Duration(s * float64(time.Second))
}
