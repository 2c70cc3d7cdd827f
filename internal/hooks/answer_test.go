package hooks

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/agentlock/agentlock/internal/agents/cursor"
	"github.com/agentlock/agentlock/internal/agents/manifest"
)

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("pipe closed") }

func TestAnswerDenies(t *testing.T) {
	res := Result{Deny: "a.go is locked by s2\x1b[2J", Warnings: []string{"w\x07"}}

	// Claude reads a structured denial on stdout, with exit 0.
	var out, errOut bytes.Buffer
	assert.False(t, Answer(manifest.Builtin("claude"), "pre-edit", res, &out, &errOut))
	assert.Contains(t, out.String(), `"permissionDecision":"deny"`)
	assert.Contains(t, out.String(), `a.go is locked by s2\\x1b[2J`, "the reason is escaped")
	assert.Equal(t, "agentlock: warning: w\\a\n", errOut.String())

	// Crush reads exit 2 and the reason on stderr.
	out.Reset()
	errOut.Reset()
	assert.True(t, Answer(manifest.Builtin("crush"), "pre-edit", Result{Deny: "held"}, &out, &errOut))
	assert.Empty(t, out.String())
	assert.Equal(t, "held\n", errOut.String())

	// Cursor reads both.
	out.Reset()
	errOut.Reset()
	assert.True(t, Answer(cursor.Agent{}, "pre-edit", Result{Deny: "held"}, &out, &errOut))
	assert.Contains(t, out.String(), `"permission":"deny"`)
	assert.Equal(t, "held\n", errOut.String())

	// A structured denial that cannot be written still denies: exit 2.
	errOut.Reset()
	assert.True(t, Answer(manifest.Builtin("claude"), "pre-edit", Result{Deny: "held"}, failWriter{}, &errOut))
	assert.Equal(t, "agentlock: warning: claude pre-edit hook: pipe closed\nheld\n", errOut.String())
}

func TestAnswerAllows(t *testing.T) {
	var out, errOut bytes.Buffer
	res := Result{Notices: []string{"a.go is changed in ../wt2 too"}, Output: []byte("ctx\n")}
	assert.False(t, Answer(manifest.Builtin("claude"), "pre-edit", res, &out, &errOut))
	assert.Contains(t, out.String(), "a.go is changed in ../wt2 too", "Claude takes the notice as context")
	assert.Contains(t, out.String(), "ctx\n")
	assert.Empty(t, errOut.String())

	// Without a structured form, the notice goes to stderr.
	out.Reset()
	assert.False(t, Answer(manifest.Builtin("crush"), "pre-edit", res, &out, &errOut))
	assert.Equal(t, "ctx\n", out.String())
	assert.Equal(t, "a.go is changed in ../wt2 too\n", errOut.String())

	// Output that cannot be written is a warning, not a denial.
	errOut.Reset()
	assert.False(t, Answer(manifest.Builtin("crush"), "session-start", Result{Output: []byte("x")}, failWriter{}, &errOut))
	assert.Equal(t, "agentlock: warning: crush session-start hook: pipe closed\n", errOut.String())
}
