package report

import (
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/core"
)

func TestAcquireRefusalsAllOrNone(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	a, b := filepath.Join(dir, "a.go"), filepath.Join(dir, "b.go")
	held := &core.HeldError{Path: b, Owner: "s2", Age: time.Second, Left: time.Minute}
	err = fmt.Errorf("acquire: %w", errors.Join(core.ErrLocked, held))
	refusals, rerr := AcquireRefusals([]string{a, b}, errors.Join(err), 0, nil)
	require.NoError(t, rerr)
	require.Len(t, refusals, 2)
	assert.False(t, refusals[0].Held)
	assert.Equal(t, AcquireNotTaken(a), refusals[0].Record)
	assert.Empty(t, refusals[0].Line)
	assert.True(t, refusals[1].Held)
	rec, line := AcquireRefused(held, 0, "")
	assert.Equal(t, Refusal{Record: rec, Line: line, Held: true}, refusals[1])

	// One refusal, not joined.
	refusals, rerr = AcquireRefusals([]string{b}, held, 0, nil)
	require.NoError(t, rerr)
	assert.True(t, refusals[0].Held)

	// Where the holder works is named after it; the record is the same.
	refusals, rerr = AcquireRefusals([]string{b}, held, 0, map[string]string{"s2": " (worktree ../wt-b, branch feat-b)"})
	require.NoError(t, rerr)
	assert.Contains(t, refusals[0].Line, b+" is locked by s2 (worktree ../wt-b, branch feat-b) (renewed")
	assert.Contains(t, refusals[0].Line, "or ask s2.", "the one to ask is the session")
	assert.Equal(t, rec, refusals[0].Record)
}

func TestAcquireNotes(t *testing.T) {
	leases := []core.Lease{{Path: "/other/x.go"}, {Path: "/other/y.go", Renewed: true}, {Path: "/p/z.go"}}
	redirected := func(p string) string {
		if filepath.Dir(p) == "/other" {
			return "/other"
		}
		return ""
	}
	notes := AcquireNotes(leases, "/home/locks", redirected)
	assert.Equal(t, []string{"note: /other/x.go is in /other, which is not set up for agentlock: its lock is in /home/locks, " +
		"where only sessions of this home see it (run agentlock init in /other to coordinate its files there)"}, notes,
		"a renewal is no news")

	leases = []core.Lease{{Path: "/p/a", Corrupt: &core.CorruptError{Ref: "/p/a.lock", Content: "bad\x1b", Reason: "no JSON"}},
		{Path: "/p/b"}}
	leases[0].Unindexed = &core.IndexRepairedError{Session: "s1", Missed: 1, Err: errors.New("x")}
	notes = AcquireNotes(leases, "/l", func(string) string { return "" })
	require.Len(t, notes, 2)
	assert.Contains(t, notes[0], "warning: took over an unreadable lock record nobody had written for longer than the timeout: ")
	assert.NotContains(t, notes[0], "\x1b", "escaped")
	assert.Equal(t, "warning: "+Escape(leases[0].Unindexed.Error()), notes[1])
}

func TestWaitingSaysWhoHoldsOrIsAhead(t *testing.T) {
	held := &core.HeldError{Path: "/p/a.go", Owner: "s2", Age: time.Second}
	assert.Equal(t, core.HeldBy("/p/a.go", "", "s2")+"; waiting up to 1m30s...", Waiting(held, 90*time.Second))
	held.Queued = true
	assert.Equal(t, QueuedFor("/p/a.go", "s2", time.Second)+"; waiting up to 5s...", Waiting(held, 5*time.Second))
}
