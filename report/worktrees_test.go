package report

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/audit"
	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/workspace"
)

func TestOverlapped(t *testing.T) {
	ov := workspace.Overlap{Rel: "src/a.go", In: []workspace.OverlapIn{
		{Name: "../wt-b", Branch: "feat-b", How: "uncommitted"}, {Name: "../wt-c", How: "committed"}}}
	rec, line := Overlapped(ov)
	assert.Equal(t, "conflict", rec.Kind)
	assert.Equal(t, "src/a.go: changed in ../wt-b (feat-b) uncommitted, ../wt-c committed", line)
	ov.Predicted = []string{"../wt-b+../wt-c"}
	_, line = Overlapped(ov)
	assert.Equal(t, "src/a.go: changed in ../wt-b (feat-b) uncommitted, ../wt-c committed; merge conflict predicted between ../wt-b+../wt-c", line)
}

func TestMarkConflicts(t *testing.T) {
	records := []Status{{Path: "/r/a.go"}, {Path: "/r/b.go"}}
	MarkConflicts(records, []workspace.Conflict{{Path: "/r/a.go", Name: "../wt-b", Branch: "x"}, {Path: "/r/a.go", Name: "../wt-c"}})
	assert.Equal(t, []string{"../wt-b (x)", "../wt-c"}, records[0].AlsoChangedIn)
	assert.Empty(t, records[1].AlsoChangedIn)
}

func TestAuditLine(t *testing.T) {
	at := time.Date(2026, 12, 2, 1, 2, 3, 0, time.UTC)
	e := audit.Entry{Time: at.Format(time.RFC3339Nano), Action: audit.ActionFinish, Who: "s1", Released: 2}
	assert.Equal(t, at.Local().Format("2006-01-02 15:04:05")+"  finish by s1, 2 lock(s) released", AuditLine(e))
	e = audit.Entry{Time: "garbled", Action: audit.ActionForceRelease, Path: "a.go", Who: "person", PreviousOwner: "s2"}
	assert.Equal(t, "garbled  "+audit.ActionForceRelease+" a.go by person (held by s2)", AuditLine(e))
}

func TestWatchFrame(t *testing.T) {
	frame, err := WatchFrame(nil, "/r/.agent-registry/locks", "/r")
	require.NoError(t, err)
	assert.Equal(t, "agentlock status --watch  0 held, 0 stale  (Ctrl-C stops)\n\nno locks in /r/.agent-registry/locks\n", string(frame))

	frame, err = WatchFrame([]Status{{Path: "/r/a.go", State: "locked", SessionID: "s1"}, {Path: "/r/b.go", State: "stale", SessionID: "s2"}}, "", "/r")
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSuffix(string(frame), "\n"), "\n")
	assert.Equal(t, "agentlock status --watch  1 held, 1 stale  (Ctrl-C stops)", lines[0])
	for _, l := range lines {
		assert.LessOrEqual(t, len(l), TableWidth)
	}
	assert.Contains(t, string(frame), "a.go")
}

func TestVersionLineAndBuilt(t *testing.T) {
	assert.Equal(t, "agentlock v1.2.3", Version{Version: "v1.2.3"}.Line())
	assert.Equal(t, "agentlock devel (commit 0123456789ab, 2026-12-01T22:00:00Z)",
		Version{Version: "devel", Commit: "0123456789abcdef", Date: "2026-12-01T22:00:00Z"}.Line())
	assert.Equal(t, "agentlock v1 (commit abc)", Version{Version: "v1", Commit: "abc"}.Line())
	v := Built("v9.9.9", "c", "d")
	assert.Equal(t, Version{Version: "v9.9.9", Commit: "c", Date: "d"}, v, "stamped values win")
	assert.NotEmpty(t, Built("", "", "").Version, "unstamped: the build information, or devel")
}

func TestMarkOrphans(t *testing.T) {
	states := []core.State{{Ref: "a.lock", Owner: "gone"}, {Ref: "b.lock", Owner: "here"}, {Ref: "c.lock"}}
	records := []Status{{File: "a.lock"}, {File: "b.lock"}, {File: "c.lock"}}
	asked := 0
	owners := func() (func(core.State) bool, error) {
		asked++
		return func(st core.State) bool { return st.Owner == "gone" }, nil
	}
	require.NoError(t, MarkOrphans(records, states, owners))
	assert.Equal(t, []bool{true, false, false}, []bool{records[0].Orphaned, records[1].Orphaned, records[2].Orphaned})

	// Nothing held: the registry is not read.
	require.NoError(t, MarkOrphans([]Status{{File: "c.lock"}}, []core.State{{Ref: "c.lock"}}, owners))
	assert.Equal(t, 1, asked)

	failed := errors.New("registry unreadable")
	assert.ErrorIs(t, MarkOrphans(records, states, func() (func(core.State) bool, error) { return nil, failed }), failed)
}
