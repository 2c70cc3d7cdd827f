package integrations

import (
	"fmt"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// diffContext is the number of unchanged lines shown around each change.
const diffContext = 3

// Diff returns c as a unified diff of the file ("" when nothing changes),
// with paths shown relative to their root as label. Hunk headers always
// carry both counts ("@@ -1,4 +1,5 @@"), and a line without its final
// newline is followed by "\ No newline at end of file", as in git diff.
//
// The edit script comes from go-udiff (the Go tools' diff, Myers' algorithm
// with a bound on its search): its cost stays near linear on a large
// settings file, where it may give up minimality but never correctness.
func Diff(c Change, label string) string {
	if !c.Changed() {
		return ""
	}
	from, to := "a/"+label, "b/"+label
	oldText, newText := string(c.Old), string(c.New)
	switch {
	case !c.Existed:
		from = "/dev/null"
	case c.Delete:
		to, newText = "/dev/null", ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", from, to)
	for _, h := range hunks(oldText, newText) {
		writeHunk(&b, h)
	}
	return b.String()
}

// hunks returns the hunks that turn oldText into newText.
func hunks(oldText, newText string) []*udiff.Hunk {
	u, err := udiff.ToUnifiedDiff("", "", oldText, udiff.Lines(oldText, newText), diffContext)
	if err == nil {
		return u.Hunks
	}
	// The edits come from the same text, so this cannot happen; should it,
	// replacing every line is still a true diff.
	h := &udiff.Hunk{FromLine: 1, ToLine: 1}
	for _, l := range lines(oldText) {
		h.Lines = append(h.Lines, udiff.Line{Kind: udiff.Delete, Content: l})
	}
	for _, l := range lines(newText) {
		h.Lines = append(h.Lines, udiff.Line{Kind: udiff.Insert, Content: l})
	}
	return []*udiff.Hunk{h}
}

// lines splits text after each newline; a last line without one is kept.
func lines(text string) []string {
	out := strings.SplitAfter(text, "\n")
	if out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// writeHunk prints one hunk. A side with no lines starts at the line
// before the hunk (0 in an empty file), as diff -u numbers it.
func writeHunk(b *strings.Builder, h *udiff.Hunk) {
	oldCount, newCount := 0, 0
	for _, l := range h.Lines {
		if l.Kind != udiff.Insert {
			oldCount++
		}
		if l.Kind != udiff.Delete {
			newCount++
		}
	}
	oldStart, newStart := h.FromLine, h.ToLine
	if oldCount == 0 {
		oldStart--
	}
	if newCount == 0 {
		newStart--
	}
	fmt.Fprintf(b, "@@ -%d,%d +%d,%d @@\n", oldStart, oldCount, newStart, newCount)
	for _, l := range h.Lines {
		op := byte(' ')
		switch l.Kind {
		case udiff.Delete:
			op = '-'
		case udiff.Insert:
			op = '+'
		}
		b.WriteByte(op)
		b.WriteString(l.Content)
		if !strings.HasSuffix(l.Content, "\n") {
			b.WriteString("\n\\ No newline at end of file\n")
		}
	}
}
