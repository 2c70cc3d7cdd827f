//go:build linux

package e2e

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// slashTmp is the temporary folder every process of the machine shares.
// The runs of a case live in a folder of their own (caseRoot), under the
// test's TMPDIR; an agent CLI's sandbox may still write to /tmp itself
// (see codexConfig).
const slashTmp = "/tmp"

// litterNames are what a run of an agent CLI, or of agentlock in it, may
// leave directly in /tmp: each one makes /tmp the project of every folder
// made under it later (its git toplevel, its agent settings, its lock
// registry). Only these names are checked: other processes of the machine
// make other entries in /tmp all the time.
var litterNames = []string{".git", ".codex", ".agents", ".aws", ".claude", ".agent-registry", ".mcp.json", ".gitignore"}

// caseRoot is the folder of one case's run (homes, TMPDIRs, repository),
// removed when t ends; t fails if by then one of litterNames appeared in
// /tmp that was not there when it started.
func caseRoot(t *testing.T) string {
	t.Helper()
	guardSlashTmp(t, slashTmp)
	root, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	latest.watch(t)
	return root
}

// guardSlashTmp fails t, naming the entry, if one of litterNames appears
// in dir between now and the end of t (its last cleanup).
func guardSlashTmp(t *testing.T, dir string) {
	t.Helper()
	before, err := litterIn(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(before) > 0 {
		t.Logf("already in %s before the case (from an earlier run or another process): %q", dir, before)
	}
	t.Cleanup(func() {
		after, err := litterIn(dir)
		if err != nil {
			t.Error(err)
			return
		}
		for _, name := range newLitter(before, after) {
			t.Errorf("the case left %s behind: a run wrote to %s (remove it: a folder made under %s later may take %s as its project)",
				filepath.Join(dir, name), dir, dir, dir)
		}
	})
}

// newLitter returns the names of after that are not in before.
func newLitter(before, after []string) []string {
	var added []string
	for _, name := range after {
		if !slices.Contains(before, name) {
			added = append(added, name)
		}
	}
	return added
}

// litterIn returns which of litterNames are in dir.
func litterIn(dir string) ([]string, error) {
	var found []string
	for _, name := range litterNames {
		_, err := os.Lstat(filepath.Join(dir, name))
		switch {
		case err == nil:
			found = append(found, name)
		case !errors.Is(err, fs.ErrNotExist):
			return nil, fmt.Errorf("look for litter in %s: %w", dir, err)
		}
	}
	return found, nil
}
