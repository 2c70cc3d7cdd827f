package report

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/core"
)

// fields returns the JSON object a record encodes to.
func fields(t *testing.T, rec any) map[string]any {
	t.Helper()
	data, err := json.Marshal(rec)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m))
	return m
}

// The refusal keeps agent-registry 0.2's field names: the holder is
// session_id, the age is in seconds.
func TestAcquireRefusedKeeps02FieldNames(t *testing.T) {
	held := &core.HeldError{Path: "/p/a.go", Owner: "claude-1", Age: 1500 * time.Millisecond, Left: 118500 * time.Millisecond}
	rec, line := AcquireRefused(held, 0, "")
	m := fields(t, rec)
	assert.Equal(t, map[string]any{"kind": "lock", "path": "/p/a.go", "locked": false, "session_id": "claude-1", "age": 1.5,
		"expires_in": 118.5, "note": "held by another session"}, m)
	assert.Contains(t, line, "/p/a.go is locked by claude-1 (renewed 1.5s ago")
}

func TestCheckedStates(t *testing.T) {
	free, _ := Checked(core.Check{State: core.State{Path: "/p"}, OK: true})
	assert.Equal(t, "free", free.State)
	mine, line := Checked(core.Check{State: core.State{Path: "/p", Owner: "me", Left: time.Minute}, OK: true})
	assert.Equal(t, "locked-by-me", mine.State)
	assert.Equal(t, "/p: locked by you (me), expires in 1m0s", line)
	theirs, _ := Checked(core.Check{State: core.State{Path: "/p", Owner: "other"}})
	assert.Equal(t, "locked", theirs.State)
	assert.Equal(t, "other", fields(t, theirs)["owner"])
	stale, _ := Checked(core.Check{State: core.State{Path: "/p", Owner: "gone", Stale: true}, OK: true})
	assert.Equal(t, "stale", stale.State)
	assert.Equal(t, "gone", stale.StaleOwner)
	// An unreadable record unwritten for longer than the timeout is
	// stale, never free; who held it is unknown.
	unreadable, line := Checked(core.Check{State: core.State{Path: "/p", Stale: true, Age: time.Hour,
		Corrupt: &core.CorruptError{Ref: "/l/p.lock", Reason: "no '|'"}}, OK: true})
	assert.Equal(t, "stale", unreadable.State)
	assert.Empty(t, unreadable.StaleOwner)
	assert.True(t, unreadable.OK)
	assert.Equal(t, "/p: stale (an unreadable lock record, not written for 1h0m0s)", line)
}

func TestStatusesListHeldThenUnreadable(t *testing.T) {
	states := []core.State{
		{Path: "/p/a", Ref: "/l/a.lock", Owner: "s", Age: time.Second, Left: -time.Second, Stale: true},
		{Path: "/p/b", Ref: "/l/b.lock"},
	}
	problems := []error{&core.CorruptError{Ref: "/l/c.lock", Reason: "no '|'"}, errors.New("permission denied")}
	recs := Statuses(states, problems, false)
	require.Len(t, recs, 3, "free locks are left out without withFree")
	assert.Equal(t, "stale", recs[0].State)
	assert.Equal(t, 0.0, *recs[0].ExpiresIn, "time left is never negative")
	assert.Equal(t, Status{Kind: KindLock, File: "/l/c.lock", State: "corrupt", Error: "no '|'"}, recs[1])
	assert.Equal(t, "corrupt", recs[2].State)
	assert.Len(t, Statuses(states, nil, true), 2)
}

func TestHumanAndShellQuote(t *testing.T) {
	assert.Equal(t, "3.2s", Human(3240*time.Millisecond))
	assert.Equal(t, "2m5s", Human(125*time.Second+400*time.Millisecond))
	assert.Equal(t, "0s", Human(-time.Second))
	assert.Equal(t, `'it'\''s here'`, ShellQuote("it's here"))
}

func TestShellArgShortenRel(t *testing.T) {
	assert.Equal(t, "/p/src/a.go", ShellArg("/p/src/a.go"))
	assert.Equal(t, `'/p/my dir/it'\''s'`, ShellArg("/p/my dir/it's"))
	assert.Equal(t, `'/p/$HOME'`, ShellArg("/p/$HOME"))
	assert.Equal(t, "agentlock acquire --wait 90s /p/a.go", WaitCommand("/p/a.go"))
	assert.Equal(t, "abc", Shorten("abc", 3))
	assert.Equal(t, "ab…", Shorten("abcd", 3))
	assert.Equal(t, "…cd", shortenLeft("abcd", 3))
	assert.Equal(t, "src/a.go", Rel("/p", "/p/src/a.go"))
	assert.Equal(t, "/q/a.go", Rel("/p", "/q/a.go"))
	assert.Equal(t, "/p/a.go", Rel("", "/p/a.go"))
}

func TestShellWordQuotesOnlyWhatNeedsIt(t *testing.T) {
	assert.Equal(t, "src/a.go", ShellWord("src/a.go"))
	assert.Equal(t, `"my file.go"`, ShellWord("my file.go"), "double quotes read well inside a message's single quotes")
	assert.Equal(t, `'$HOME/x'`, ShellWord("$HOME/x"))
	assert.Equal(t, `""`, ShellWord(""))
	assert.Equal(t, `a.go "b c" 'it'\''s$'`, ShellWords([]string{"a.go", "b c", "it's$"}))
}

func TestNestPutsSubAgentsUnderTheirParent(t *testing.T) {
	sessions := []core.Session{
		{SessionID: "claude-1/a", Parent: "claude-1"},
		{SessionID: "codex-2"},
		{SessionID: "claude-1"},
		{SessionID: "gone/b", Parent: "gone"},
		{SessionID: "claude-1/b", Parent: "claude-1"},
		{SessionID: "x", Parent: "y"},
		{SessionID: "y", Parent: "x"},
	}
	var got []string
	for _, n := range Nest(sessions) {
		id := sessions[n.Index].SessionID
		if n.Child {
			id = "  " + id
		}
		got = append(got, id)
	}
	assert.Equal(t, []string{"codex-2", "claude-1", "  claude-1/a", "  claude-1/b", "gone/b", "x", "  y"}, got)

	var b strings.Builder
	require.NoError(t, WriteSessionTable(&b, sessions[:3], nil, ""))
	assert.Contains(t, b.String(), "\nclaude-1  -  - -  started -\n")
	assert.Contains(t, b.String(), "\n      do not touch  -\n", "a sub-agent's fields are shifted right")
	assert.Contains(t, b.String(), "\n  └ sub-agent claude-1/a  -")
	assert.Less(t, strings.Index(b.String(), "claude-1  -"), strings.Index(b.String(), "└ sub-agent claude-1/a"))
}

func TestStatusNestsSubAgentsHoldingLocks(t *testing.T) {
	records := []Status{
		{Path: "/p/a", SessionID: "claude-1/a7", State: "locked"},
		{Path: "/p/b", SessionID: "claude-1", State: "locked"},
		{Path: "/p/c", SessionID: "claude-1/b8", State: "locked"},
		{Path: "/p/d", SessionID: "claude-1/a7", State: "locked"},
		{Path: "/p/e", SessionID: "codex-2", State: "locked"},
		{Path: "/p/f", SessionID: "old/x", State: "stale"},
	}
	var b strings.Builder
	require.NoError(t, WriteStatusTable(&b, records, "/p"))
	assert.Contains(t, b.String(), "\nsub-agents holding locks, under their session:\n"+
		"  claude-1  1 lock\n    └ claude-1/a7  2 locks\n    └ claude-1/b8  1 lock\n")
	assert.NotContains(t, b.String(), "└ old/x", "a stale lock holds nothing")

	b.Reset()
	require.NoError(t, WriteStatusTable(&b, records[4:5], "/p"))
	assert.NotContains(t, b.String(), "sub-agents", "no sub-agent: the table alone, as before")
}
