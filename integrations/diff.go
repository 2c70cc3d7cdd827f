package integrations

import (
	"bytes"
	"fmt"
	"strings"
)

// Diff returns c as a unified diff of the file ("" when nothing changes),
// with paths shown relative to their root as label.
func Diff(c Change, label string) string {
	if !c.Changed() {
		return ""
	}
	from, to := "a/"+label, "b/"+label
	oldText, newText := c.Old, c.New
	switch {
	case !c.Existed:
		from = "/dev/null"
	case c.Delete:
		to, newText = "/dev/null", nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", from, to)
	writeHunks(&b, splitLines(oldText), splitLines(newText))
	return b.String()
}

func splitLines(text []byte) []string {
	if len(text) == 0 {
		return nil
	}
	lines := strings.SplitAfter(string(text), "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// edit is one line of a diff: ' ', '-' or '+'.
type edit struct {
	op   byte
	line string
}

// lineEdits computes a shortest edit script by longest common subsequence;
// settings and instruction files are small enough for the quadratic table.
func lineEdits(a, b []string) []edit {
	n, m := len(a), len(b)
	lcs := make([][]int32, n+1)
	for i := range lcs {
		lcs[i] = make([]int32, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var out []edit
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			out = append(out, edit{' ', a[i]})
			i, j = i+1, j+1
		case i < n && (j == m || lcs[i+1][j] >= lcs[i][j+1]):
			out = append(out, edit{'-', a[i]})
			i++
		default:
			out = append(out, edit{'+', b[j]})
			j++
		}
	}
	return out
}

// writeHunks prints the edits as unified hunks with three lines of context.
func writeHunks(b *strings.Builder, a, bl []string) {
	const context = 3
	edits := lineEdits(a, bl)
	for start := 0; start < len(edits); {
		// Find the next change.
		first := start
		for first < len(edits) && edits[first].op == ' ' {
			first++
		}
		if first == len(edits) {
			return
		}
		lo := max(first-context, start)
		// Extend the hunk while changes are within 2*context of each other.
		hi, lastChange := first, first
		for hi < len(edits) && hi-lastChange <= 2*context {
			if edits[hi].op != ' ' {
				lastChange = hi
			}
			hi++
		}
		hi = min(lastChange+context+1, len(edits))
		oldStart, newStart := 1, 1
		for _, e := range edits[:lo] {
			if e.op != '+' {
				oldStart++
			}
			if e.op != '-' {
				newStart++
			}
		}
		oldCount, newCount := 0, 0
		var body bytes.Buffer
		for _, e := range edits[lo:hi] {
			if e.op != '+' {
				oldCount++
			}
			if e.op != '-' {
				newCount++
			}
			body.WriteByte(e.op)
			body.WriteString(e.line)
			if !strings.HasSuffix(e.line, "\n") {
				body.WriteString("\n\\ No newline at end of file\n")
			}
		}
		if oldCount == 0 {
			oldStart--
		}
		if newCount == 0 {
			newStart--
		}
		fmt.Fprintf(b, "@@ -%d,%d +%d,%d @@\n", oldStart, oldCount, newStart, newCount)
		b.Write(body.Bytes())
		start = hi
	}
}
