package gemini

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ToolPath follows gemini-cli's resolveDefensiveToolPath case by case.
func TestToolPathAsGeminiResolvesIt(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"target.txt", "@literal.txt", "@scope/pkg.json"} {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, f)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, f), []byte("x"), 0o644))
	}
	for _, tc := range []struct{ in, want string }{
		{"target.txt", "target.txt"},
		{"@target.txt", "target.txt"},              // no literal @target.txt: the @ goes
		{"@literal.txt", "@literal.txt"},           // exists as written
		{"@/src/new.go", "src/new.go"},             // @/ and the slashes after it go
		{"@scope/other.json", "@scope/other.json"}, // a folder @scope exists
		{"@src/new.go", "src/new.go"},              // no folder @src
		{"tar\x00get.txt", "target.txt"},           // NUL bytes are removed
		{"@tar\x00get.txt", "target.txt"},          // both
		{"@", "@"},                                 // nothing after the @
		{filepath.Join(dir, "a.txt"), filepath.Join(dir, "a.txt")},
	} {
		assert.Equal(t, tc.want, ToolPath(tc.in, dir), "%q", tc.in)
	}
}
