//go:build linux

package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The /tmp guard finds the litter names in a folder (a file, a folder, a
// dangling symbolic link), nothing else, and reports only the ones that
// were not there at the start.
func TestSlashTmpLitter(t *testing.T) {
	dir := t.TempDir()
	before, err := litterIn(dir)
	if err != nil || len(before) != 0 {
		t.Fatalf("an empty folder: %q, %v", before, err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".mcp.json"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if before, err = litterIn(dir); err != nil || !slices.Equal(before, []string{".mcp.json"}) {
		t.Fatalf("before the case: %q, %v; want [.mcp.json]", before, err)
	}
	for _, d := range []string{".git", "go-build123", ".cache"} {
		if err := os.Mkdir(filepath.Join(dir, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, ".claude")); err != nil {
		t.Fatal(err)
	}
	after, err := litterIn(dir)
	if err != nil || !slices.Equal(after, []string{".git", ".claude", ".mcp.json"}) {
		t.Fatalf("after the case: %q, %v; want [.git .claude .mcp.json]", after, err)
	}
	if got := newLitter(before, after); !slices.Equal(got, []string{".git", ".claude"}) {
		t.Errorf("new litter: %q, want [.git .claude] (.mcp.json was there before)", got)
	}
}
