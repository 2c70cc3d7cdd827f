package report

import (
	"bytes"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

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

func TestPrinterRefusals(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	a, b := filepath.Join(dir, "a.go"), filepath.Join(dir, "b.go")
	held := &core.HeldError{Path: b, Owner: "s2", Age: time.Second, Left: time.Minute}
	refused := fmt.Errorf("acquire: %w", errors.Join(core.ErrLocked, held))
	rec, line := AcquireRefused(held, 0, "")

	var out, errOut bytes.Buffer
	p := Printer{Out: &out, ErrOut: &errOut}
	assert.ErrorIs(t, p.Refusals([]string{a, b}, refused, 0, nil), ErrReported)
	assert.Empty(t, out.String())
	assert.Equal(t, line+"\nagentlock: nothing was acquired (several paths are taken all together or not at all).\n", errOut.String())

	out.Reset()
	errOut.Reset()
	p.JSON = true
	assert.ErrorIs(t, p.Refusals([]string{a, b}, refused, 0, nil), ErrReported)
	var want bytes.Buffer
	require.NoError(t, WriteJSON(&want, AcquireNotTaken(a)))
	require.NoError(t, WriteJSON(&want, rec))
	assert.Equal(t, want.String(), out.String(), "all or none: the free path is not taken either")
	assert.Empty(t, errOut.String())
}

func TestPrinterRenewals(t *testing.T) {
	var out, errOut bytes.Buffer
	p := Printer{Out: &out, ErrOut: &errOut}
	notOwner := &core.NotOwnerError{Path: "/p/b.go", Owner: "s2"}
	renewals := []workspace.Renewal{{Path: "/p/a.go", Lease: core.Lease{Path: "/p/a.go"}}, {Path: "/p/b.go", Refused: notOwner}, {Path: "/p/c.go", NoLock: true}}
	lost, err := p.Renewals(renewals, "s1", false)
	require.NoError(t, err)
	assert.True(t, lost)
	_, refusedLine := RenewRefused(notOwner, "s1")
	_, noLockLine := RenewNoLock("/p/c.go")
	_, renewedLine := Renewed("/p/a.go")
	assert.Empty(t, out.String(), "a renewal is printed only when verbose")
	assert.Equal(t, refusedLine+"\n"+noLockLine+"\n", errOut.String())

	out.Reset()
	errOut.Reset()
	lost, err = p.Renewals(renewals[:1], "s1", true)
	require.NoError(t, err)
	assert.False(t, lost)
	assert.Equal(t, renewedLine+"\n", out.String())

	out.Reset()
	errOut.Reset()
	require.NoError(t, p.SessionRenewed(nil, []error{errors.New("x.lock: corrupt")}, "s1", false))
	assert.Empty(t, out.String())
	assert.Equal(t, "agentlock: warning: x.lock: corrupt\n", errOut.String())
	require.NoError(t, p.SessionRenewed(nil, nil, "s1", true))
	assert.Equal(t, "no lock of s1 to renew\n", out.String())
	out.Reset()
	require.NoError(t, p.SessionRenewed([]core.State{{Path: "/p/a.go"}}, nil, "s1", true))
	assert.Equal(t, renewedLine+"\n", out.String())
	p.JSON = true
	out.Reset()
	require.NoError(t, p.SessionRenewed(nil, nil, "s1", true))
	assert.Empty(t, out.String(), "the records say there was none")
}

func TestWriteStatusJSONOrText(t *testing.T) {
	records := []Status{{Kind: KindLock, Path: "/p/a.go", File: "/p/.agent-registry/locks/a.lock", State: "locked", SessionID: "s1"}}
	var js, text, want bytes.Buffer
	require.NoError(t, WriteStatus(&js, true, records, "/p/.agent-registry/locks", "/p"))
	require.NoError(t, WriteJSON(&want, records[0]))
	assert.Equal(t, want.String(), js.String())
	want.Reset()
	require.NoError(t, WriteStatus(&text, false, records, "/p/.agent-registry/locks", "/p"))
	require.NoError(t, WriteStatusText(&want, records, "/p/.agent-registry/locks", "/p"))
	assert.Equal(t, want.String(), text.String())
	assert.Contains(t, text.String(), "s1")
	js.Reset()
	require.NoError(t, WriteStatus(&js, true, nil, "/p/l", "/p"))
	assert.Empty(t, js.String(), "no records, no lines")
}

func TestForcedFromOwnerNamesTheOwnerEscaped(t *testing.T) {
	prev := core.State{Path: "/p/a.go", Owner: "s\x1b1", Age: 3 * time.Second}
	assert.Equal(t, "/p/a.go was renewed 3s ago, within the project's timeout of 2m0s: s\\x1b1 is probably still working on it, "+
		"is not told, and may go on editing it; tell it, or wait until the lock goes stale.", ForcedFromOwner(prev, 2*time.Minute))
}
