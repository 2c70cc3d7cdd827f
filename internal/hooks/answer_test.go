package hooks

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/internal/agents/all"
)

func agentNamed(t *testing.T, name string) integrations.Agent {
	t.Helper()
	a, ok := all.Lookup(name)
	require.True(t, ok, name)
	return a
}

func TestRespondDeniesInEachHarnesssTerms(t *testing.T) {
	res := Result{Deny: "agentlock: a.go is locked by session s1\x1b[2J", Warnings: []string{"w"}}

	claude := Respond(agentNamed(t, "claude"), res)
	assert.False(t, claude.ExitDeny, "claude reads a structured denial with exit 0")
	assert.Contains(t, string(claude.Stdout), `"permissionDecision":"deny"`)
	assert.NotContains(t, string(claude.Stdout), "\x1b", "the reason is escaped")
	assert.Equal(t, "agentlock: warning: w\n", string(claude.Stderr))
	assert.NotEmpty(t, claude.Reason, "the fallback when stdout cannot be written")

	kimi := Respond(agentNamed(t, "kimi"), res)
	assert.True(t, kimi.ExitDeny, "kimi denies on exit 2")
	assert.Empty(t, kimi.Stdout)
	assert.Contains(t, string(kimi.Stderr), "a.go is locked by session s1")

	cursor := Respond(agentNamed(t, "cursor"), res)
	assert.True(t, cursor.ExitDeny, "cursor reads its denial only with exit 2")
	assert.NotEmpty(t, cursor.Stdout)
	assert.Contains(t, string(cursor.Stderr), "a.go is locked by session s1")
}

func TestRespondAllowsWithTheNoticesAndTheOutput(t *testing.T) {
	res := Result{Output: []byte("context\n"), Notices: []string{"a.go also changed in ../wt-b"}}
	kimi := Respond(agentNamed(t, "kimi"), res)
	assert.False(t, kimi.ExitDeny)
	assert.Equal(t, "context\n", string(kimi.Stdout))
	assert.Contains(t, string(kimi.Stderr), "also changed in ../wt-b", "no structured context: stderr")
	assert.Empty(t, kimi.Reason)
}
