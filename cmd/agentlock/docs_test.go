package main_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var update = flag.Bool("update", false, "rewrite docs/cli.md from the command tree")

// docs/cli.md is generated from the cobra tree; this fails when a command,
// flag or help text changed without regenerating it.
func TestCLIReferenceIsCurrent(t *testing.T) {
	r := newSandbox(t).run("docs")
	requireExit(t, 0, r)
	path := filepath.Join("..", "..", "docs", "cli.md")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(r.Stdout), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run go test ./cmd/agentlock -run TestCLIReference -update")
	assert.Equal(t, string(want), r.Stdout, "docs/cli.md is stale: go test ./cmd/agentlock -run TestCLIReference -update")
	for _, cmd := range []string{"acquire", "release", "check", "heartbeat", "status", "register", "update", "finish",
		"handoff", "show", "init", "uninit", "hook", "whoami", "env"} {
		assert.Contains(t, r.Stdout, "## agentlock "+cmd+"\n")
	}
}
