package main_test

// Scenarios of the file-locking specification (../shared/seeds/000_*.txt)
// that a script cannot say: separate agentlock processes racing behind a
// barrier, and a heartbeat loop renewing in real time. The others are the
// scripts in testdata/script.

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// Requirement: mutual exclusion between one-shot processes.

func TestConcurrentAcquisitionsElectOneWinner(t *testing.T) {
	s := newSandbox(t)
	const n = 32
	target := s.path("src/shared.go")
	for round := range raceRounds() {
		cmds := make([]proctest.Cmd, n)
		for i := range cmds {
			cmds[i] = s.cmd("acquire", "--json", "src/shared.go", fmt.Sprintf("agent-%d", i))
		}
		results := harness(t).Race(t, cmds)
		var winners []string
		for i, r := range results {
			rec := oneJSON(t, r)
			if rec["locked"] == true {
				requireExit(t, 0, r)
				winners = append(winners, fmt.Sprintf("agent-%d", i))
			} else {
				requireExit(t, 1, r)
			}
		}
		require.Len(t, winners, 1, "round %d: exactly one winner", round)
		for _, r := range results {
			if rec := oneJSON(t, r); rec["locked"] != true {
				require.Equal(t, winners[0], rec["session_id"], "round %d: losers are told the winner", round)
			}
		}
		owner, _ := s.onDisk(target)
		require.Equal(t, winners[0], owner, "round %d: the file on disk names the winner", round)
		requireExit(t, 0, s.run("release", "src/shared.go", winners[0]))
	}
}

func TestDistinctPathsDoNotInterfere(t *testing.T) {
	s := newSandbox(t)
	const n = 16
	cmds := make([]proctest.Cmd, n)
	for i := range cmds {
		cmds[i] = s.cmd("acquire", fmt.Sprintf("src/file%d.go", i), fmt.Sprintf("agent-%d", i))
	}
	for i, r := range harness(t).Race(t, cmds) {
		requireExit(t, 0, r)
		owner, _ := s.onDisk(s.path(fmt.Sprintf("src/file%d.go", i)))
		assert.Equal(t, fmt.Sprintf("agent-%d", i), owner)
	}
}

// Requirement: expiry of abandoned locks.

func TestRaceOnStaleLockElectsOneWinner(t *testing.T) {
	s := newSandbox(t)
	const n = 32
	target := s.path("src/stale.go")
	for round := range raceRounds() {
		s.plant(target, record("crashed-agent", time.Hour, target))
		cmds := make([]proctest.Cmd, n)
		for i := range cmds {
			cmds[i] = s.cmd("acquire", "--json", "src/stale.go", fmt.Sprintf("agent-%d", i))
		}
		winners := 0
		var winner string
		for i, r := range harness(t).Race(t, cmds) {
			rec := oneJSON(t, r)
			if rec["locked"] == true {
				winners++
				winner = fmt.Sprintf("agent-%d", i)
				assert.Equal(t, "crashed-agent", rec["stale_owner"])
			}
		}
		require.Equal(t, 1, winners, "round %d: exactly one process takes the stale lock", round)
		owner, _ := s.onDisk(target)
		require.Equal(t, winner, owner, "round %d", round)
	}
}

// Requirement: renewal only by the owner.

func TestRenewalPreventsExpiry(t *testing.T) {
	if testing.Short() {
		t.Skip("renews a lock in real time for longer than its timeout")
	}
	s := newSandbox(t)
	const timeout = "0.5"
	requireExit(t, 0, s.run("acquire", "--timeout", timeout, "src/auth.py", "agent-a"))

	// The heartbeat loop watches this process and stops when it exits.
	watched := proctest.Start(t, "sleep", proctest.Cmd{Args: []string{"60"}, Env: s.env})
	loop := s.start("heartbeat", "--every", "100ms", "--pid", fmt.Sprint(watched.Pid()), "src/auth.py", "agent-a")

	for i := range 8 { // 8 × 250ms = 2s, four timeouts
		time.Sleep(250 * time.Millisecond)
		r := s.run("acquire", "--json", "--timeout", timeout, "src/auth.py", fmt.Sprintf("agent-b%d", i))
		requireExit(t, 1, r)
		require.Equal(t, "agent-a", oneJSON(t, r)["session_id"])
	}
	require.NoError(t, watched.Signal(os.Kill))
	watched.Wait(t)
	requireExit(t, 0, loop.Wait(t))
}
