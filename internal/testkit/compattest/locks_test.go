package compattest_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
	"github.com/agentlock/agentlock/store/filestore"
)

// 8 agentlock and 8 agent-registry 0.2 processes acquire one path at the
// same instant: exactly one of the sixteen holds it, and the lock file
// names that one.
func TestMixedLockRaceHasOneWinner(t *testing.T) {
	needPython(t)
	t.Parallel() // the long tests overlap: each waits on locks and processes much of its time
	s := newSandbox(t)
	_, locks := s.sharedByEnv()
	n := rounds(20)
	goWins := 0
	// A staircase: agentlock's racers start later after a round they won,
	// earlier after one they lost, so that rounds stay where the two kinds
	// of process reach the lock file together. It starts half a 0.2
	// process's run late, near where they meet.
	py := s.pyStart()
	step, delay := max(py/4, 5*time.Millisecond), py/2
	for round := range n {
		target := fmt.Sprintf("src/race%d.py", round)
		var cmds []proctest.Cmd
		for i := range 8 {
			cmds = append(cmds,
				s.raceCmd(false, delay, "acquire", "--json", target, fmt.Sprintf("go-%d", i)),
				s.raceCmd(true, 0, "acquire", target, fmt.Sprintf("py %d", i)))
		}
		var winners []string
		for _, r := range s.race(cmds) {
			rec := oneJSON(t, r)
			if rec["locked"] == true {
				require.Equal(t, 0, r.code, "%s", r)
				winners = append(winners, rec["owner"].(string))
			} else {
				require.Equal(t, 1, r.code, "round %d: a loser is refused, nothing else: %s", round, r)
			}
		}
		require.Len(t, winners, 1, "round %d: one winner among agentlock and 0.2 processes: %v", round, winners)
		if strings.HasPrefix(winners[0], "go-") {
			goWins++
			delay += step
		} else {
			delay = max(delay-step, 0)
		}
		real := filepath.Join(s.project, target)
		data, err := os.ReadFile(filepath.Join(locks, filestore.LockFileName(real)))
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(string(data), winners[0]+"|"), "round %d: the lock file names the winner: %q", round, data)
		assert.True(t, strings.HasSuffix(string(data), "|"+real), "round %d: %q", round, data)
	}
	t.Logf("%d rounds of 8 agentlock + 8 agent-registry 0.2 acquirers: one winner each (agentlock %d, 0.2 %d; delay step %s)",
		n, goWins, n-goWins, step.Round(time.Millisecond))
}

// A path whose name ends in a line break is one lock for both: recorded
// byte for byte by either, read back by the other, never corrupt.
func TestPathEndingInNewline(t *testing.T) {
	needPython(t)
	s := newSandbox(t)
	_, locks := s.sharedByEnv()
	requireExit(t, 0, s.al("acquire", "src/go\n", "go-1"))
	r := s.py("check", "src/go\n")
	requireExit(t, 1, r)
	assert.Equal(t, "go-1", oneJSON(t, r)["owner"])
	requireExit(t, 1, s.py("acquire", "src/go\n", "py-1"))
	requireExit(t, 0, s.py("acquire", "src/go", "py-1"), "the name without the line break is another file")

	requireExit(t, 0, s.py("acquire", "src/py\n", "py-1"))
	data, err := os.ReadFile(filepath.Join(locks, filestore.LockFileName(filepath.Join(s.project, "src/py\n"))))
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(string(data), "/src/py\n"), "0.2 writes the path as it is: %q", data)
	r = s.al("check", "--json", "src/py\n")
	requireExit(t, 1, r)
	assert.Equal(t, "py-1", oneJSON(t, r)["owner"])
	assert.Equal(t, filepath.Join(s.project, "src/py\n"), oneJSON(t, r)["path"])
	r = s.al("status", "--json")
	requireExit(t, 0, r)
	assert.NotContains(t, r.stdout, "corrupt")
	assert.Contains(t, r.stdout, `/src/py\n"`)
	requireExit(t, 0, s.al("release", "src/go\n", "go-1"))
	requireExit(t, 0, s.py("acquire", "src/go\n", "py-1"))
}

// A lock that 0.2 took and stopped renewing is taken over by agentlock once
// it is older than agentlock's timeout, and 0.2 then sees it lost. (0.2's
// timeout is 120 s: mixed fleets must keep agentlock's at 120 s too, see
// docs/mixed-fleet.md; this test shortens agentlock's to wait less.)
func TestStaleLockOf02IsTakenOver(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a lock to expire in real time")
	}
	needPython(t)
	s := newSandbox(t)
	s.sharedByEnv()
	requireExit(t, 0, s.py("acquire", "src/a.py", "py-1"))
	requireExit(t, 1, s.al("acquire", "--timeout", "0.5", "src/a.py", "go-1"))
	time.Sleep(700 * time.Millisecond)
	r := s.al("acquire", "--json", "--timeout", "0.5", "src/a.py", "go-1")
	requireExit(t, 0, r)
	assert.Equal(t, "py-1", oneJSON(t, r)["stale_owner"])
	r = s.py("heartbeat", "src/a.py", "py-1")
	requireExit(t, 1, r)
	assert.Equal(t, "go-1", oneJSON(t, r)["current_owner"])
}
