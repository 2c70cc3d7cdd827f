package integrations

import "strings"

// PatchPaths returns the files that patch texts in apply_patch's format
// ("*** Begin Patch" … "*** End Patch", Codex's, which Copilot CLI, Cline,
// OpenCode and Factory Droid use too) add, update, delete or move to, in
// order, each once.
func PatchPaths(texts []string) []string {
	return patchPaths(texts, "*** Add File:", "*** Update File:", "*** Delete File:", "*** Move to:")
}

// PatchWholePaths returns the files that patch texts in apply_patch's
// format write whole: those they add (over an existing file, an add
// replaces it) or delete, in order, each once.
func PatchWholePaths(texts []string) []string {
	return patchPaths(texts, "*** Add File:", "*** Delete File:")
}

// patchPaths returns the files named by the header lines of patch texts.
func patchPaths(texts []string, headers ...string) []string {
	var paths []string
	seen := map[string]bool{}
	for _, text := range texts {
		for _, line := range strings.Split(text, "\n") {
			// Trailing blanks and the tabs of an indented here-document
			// (<<-) only: a body line starts with a space, +, or -.
			line = strings.TrimLeft(strings.TrimRight(line, " \t\r"), "\t")
			for _, h := range headers {
				if p, ok := strings.CutPrefix(line, h); ok && strings.TrimSpace(p) != "" {
					p = strings.TrimSpace(p)
					if !seen[p] {
						seen[p] = true
						paths = append(paths, p)
					}
				}
			}
		}
	}
	return paths
}
