package doctor

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/workspace"
)

// The clock check says how far in the future the newest stamp is, in whole
// seconds, against the clock it is given; within the skew it is fine.
// (The script doctor_clock_future_stamp runs it against the real clock,
// where the figure depends on how long the script took.)
func TestClockSaysHowFarInTheFutureALockIsStamped(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	d := &run{opts: Options{Skew: DefaultSkew, Settings: workspace.Settings{Now: func() time.Time { return now }}}}
	old := core.State{Path: "/p/old", Owner: "agent-y", Stamp: now.Add(-time.Minute)}

	c := d.clock(Check{Name: "clock"}, []core.State{old, {Path: "/p/a", Owner: "agent-x", Stamp: now.Add(90*time.Second + 300*time.Millisecond)}})
	assert.Equal(t, Problem, c.Status)
	assert.Equal(t, "the lock on /p/a (agent-x) is stamped 1m30s in the future: a clock is wrong, this machine's or the one that wrote it", c.Detail)

	c = d.clock(Check{Name: "clock"}, []core.State{old, {Path: "/p/a", Owner: "agent-x", Stamp: now.Add(time.Second)}})
	assert.Equal(t, OK, c.Status, "a second ahead is within the skew: %s", c.Detail)

	c = d.clock(Check{Name: "clock"}, []core.State{old})
	assert.Equal(t, OK, c.Status)
	assert.Equal(t, "the newest lock stamp is 1m0s old", c.Detail)

	c = d.clock(Check{Name: "clock"}, nil)
	assert.Equal(t, "no lock stamp to compare with the clock", c.Detail)
}
