package hooks

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/all"
)

func agentNamed(t *testing.T, name string) integrations.Agent {
	t.Helper()
	a, ok := all.Agents().Lookup(name)
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

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("pipe closed") }

func TestAnswerWrite(t *testing.T) {
	var out, errOut bytes.Buffer
	assert.False(t, Answer{Stdout: []byte("ctx\n"), Stderr: []byte("w\n")}.Write(&out, &errOut, "claude", "session-start"))
	assert.Equal(t, "ctx\n", out.String())
	assert.Equal(t, "w\n", errOut.String())

	errOut.Reset()
	assert.True(t, Answer{Stderr: []byte("held\n"), ExitDeny: true, Reason: "held"}.Write(&out, &errOut, "crush", "pre-edit"))
	assert.Equal(t, "held\n", errOut.String())

	// A structured denial that cannot be written still denies: exit 2.
	errOut.Reset()
	assert.True(t, Answer{Stdout: []byte("{}"), Reason: "held"}.Write(failWriter{}, &errOut, "claude", "pre-edit"))
	assert.Equal(t, "agentlock: warning: claude pre-edit hook: pipe closed\nheld\n", errOut.String())

	// Output that cannot be written is a warning, not a denial.
	errOut.Reset()
	assert.False(t, Answer{Stdout: []byte("x")}.Write(failWriter{}, &errOut, "crush", "session-start"))
	assert.Equal(t, "agentlock: warning: crush session-start hook: pipe closed\n", errOut.String())
}
