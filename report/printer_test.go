package report

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/workspace"
)

func TestPrinterForPeopleAndMachines(t *testing.T) {
	var out, errOut bytes.Buffer
	p := Printer{Out: &out, ErrOut: &errOut}
	require.NoError(t, p.Emit(Renewed("a.go")))
	require.NoError(t, p.Diagnose(RenewNoLock("b.go")))
	p.Change("created", "x", "", "created x\x1b")
	p.Text("no lock of %s to renew", "s\x1b")
	p.Say("note %s", "n")
	p.Warnf("%s", "w")
	p.Warn(nil)
	p.Warn(&workspace.MirrorError{Err: errors.New("registry busy")})
	p.WarnProblems([]error{errors.New(`AGENTLOCK_TIMEOUT="-5": want 1s..`)})
	p.WarnLegacyHeld("/h", nil)
	_, line := Renewed("a.go")
	_, refusal := RenewNoLock("b.go")
	assert.Equal(t, line+"\ncreated x\\x1b\nno lock of s\\x1b to renew\n", out.String())
	assert.Equal(t, refusal+"\nnote n\nagentlock: warning: w\n"+
		"agentlock: warning: the lock operation succeeded, but the registry was not updated: registry busy\n"+
		`agentlock: warning: AGENTLOCK_TIMEOUT="-5": want 1s..; using the default here, but other commands refuse to run until it is fixed`+"\n",
		errOut.String())

	out.Reset()
	errOut.Reset()
	p.JSON = true
	require.NoError(t, p.Emit(Renewed("a.go")))
	require.NoError(t, p.Diagnose(RenewNoLock("b.go")))
	p.Change("created", "x", "", "created x")
	p.Text("not for machines")
	rec, _ := Renewed("a.go")
	no, _ := RenewNoLock("b.go")
	var want bytes.Buffer
	for _, r := range []any{rec, no, Change{Action: "created", Path: "x"}} {
		require.NoError(t, WriteJSON(&want, r))
	}
	assert.Equal(t, want.String(), out.String())
	assert.Empty(t, errOut.String())

	p.WarnLegacyHeld("/h", []core.State{{Path: "a.go", Owner: "s"}})
	assert.Equal(t, "agentlock: warning: "+LegacyHeld("/h", []core.State{{Path: "a.go", Owner: "s"}})+"\n", errOut.String())
}

func TestWriteJSONOneLine(t *testing.T) {
	var b bytes.Buffer
	require.NoError(t, WriteJSON(&b, map[string]int{"a": 1}))
	assert.Equal(t, "{\"a\":1}\n", b.String())
	assert.ErrorContains(t, WriteJSON(&b, func() {}), "encode output")
}
