//go:build etcd

package main_test

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// unanswered is docs/teams.md's wording of a cluster that did not answer.
const unanswered = "the cluster did not answer (unreachable, or no quorum)"

// rawEtcdError matches what an etcd client error looks like when it
// reaches a person as the client worded it.
var rawEtcdError = regexp.MustCompile(`etcdserver:|rpc error|\bEOF\b|context deadline exceeded|context canceled`)

// electionLimit bounds each wait of the disruptor for a leader, or for a
// moved leadership.
const electionLimit = 20 * time.Second

// Elections, forced while agentlock processes acquire, check, renew and
// release on a 3-member cluster: the leader is killed (then restarted)
// and moved, in turn. Every process exits 0 or 1, or 3 with docs/teams.md's
// wording when the cluster did not answer; no etcd error reaches stderr as
// the client worded it; and no path ever has two winners in a round.
func TestEtcdElectionsLeaveNoRawError(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and moves a cluster's leader for half a minute")
	}
	const kills, moves = 6, 6
	e := newEtcdTeam(t, 3, "30")
	e.cluster.WaitLeader(t, electionLimit)

	// The disruptor, in its own goroutine: it reports, never fails the
	// test (only the test's goroutine may). A test that fails first stops
	// it before the cluster is stopped.
	done, stop := make(chan error, 1), make(chan struct{})
	var killed, moved int
	go func() { done <- disrupt(e, kills, moves, stop, &killed, &moved) }()
	t.Cleanup(func() {
		select {
		case <-stop:
		default:
			close(stop)
			<-done
		}
	})

	const procs = 6
	sessions := func(i int) string { return fmt.Sprintf("s%d", i) }
	paths := func(i int) string { return fmt.Sprintf("src/f%d.go", i%2) }
	var all []proctest.Result
	codes := map[string]map[int]int{} // command -> exit code -> count
	record := func(rs ...proctest.Result) {
		for _, r := range rs {
			all = append(all, r)
			cmd := r.Cmd.Args[0]
			if codes[cmd] == nil {
				codes[cmd] = map[int]int{}
			}
			codes[cmd][r.Code]++
		}
	}
	rounds := 0
	var disruptorErr error
	for finished := false; !finished; rounds++ {
		select {
		case disruptorErr = <-done:
			finished = true
			close(stop)
		default:
		}
		// Each session acquires its path, racing the others; the winners
		// renew and check; then every session releases.
		var cmds []proctest.Cmd
		for i := range procs {
			dir := e.a
			if i%2 == 1 {
				dir = e.b
			}
			cmds = append(cmds, e.cmd(dir, "acquire", paths(i), "--session", sessions(i)))
		}
		acquired := harness(t).Race(t, cmds)
		record(acquired...)
		winners := map[string]int{}
		cmds = cmds[:0]
		for i, r := range acquired {
			if r.Code == 0 {
				winners[paths(i)]++
				cmds = append(cmds, e.cmd(r.Cmd.Dir, "heartbeat", "--all", "--session", sessions(i)), e.cmd(r.Cmd.Dir, "check", paths(i), "--session", sessions(i)))
			}
		}
		for path, n := range winners {
			require.Equal(t, 1, n, "round %d: %s has %d winners", rounds, path, n)
		}
		if len(cmds) > 0 {
			record(harness(t).Race(t, cmds)...)
		}
		cmds = cmds[:0]
		for i, r := range acquired {
			// A session that exited 3 may hold its path all the same
			// (the cluster applied the write, then did not answer).
			if r.Code != 1 {
				cmds = append(cmds, e.cmd(r.Cmd.Dir, "release", paths(i), "--session", sessions(i)))
			}
		}
		if len(cmds) > 0 {
			record(harness(t).Race(t, cmds)...)
		}
	}
	require.NoError(t, disruptorErr)

	exits := map[int]int{}
	var causes []string
	for _, r := range all {
		exits[r.Code]++
		assert.Contains(t, []int{0, 1, 3}, r.Code, "%s", r)
		if r.Code == 3 {
			assert.Contains(t, r.Stderr, unanswered, "an exit 3 says the documented reason: %s", r)
			causes = append(causes, strings.TrimSpace(r.Stderr))
		}
		for line := range strings.Lines(r.Stderr) {
			if rawEtcdError.MatchString(line) {
				assert.Contains(t, line, unanswered, "an etcd error reached stderr as the client worded it: %s", r)
			}
		}
	}
	require.Positive(t, codes["acquire"][0], "acquires succeeded across the elections")
	t.Logf("%d kills and %d moves of the leader; %d rounds, %d processes; exits by code %v; by command %v", killed, moved, rounds, len(all), exits, codes)
	for _, c := range causes {
		t.Logf("exit 3: %s", c)
	}
}

// disrupt kills (then restarts) and moves the leader of e's cluster, in
// turn, kills and moves times, at random intervals, until done or stopped;
// killed and moved count what it did.
func disrupt(e *etcdTeam, kills, moves int, stop <-chan struct{}, killed, moved *int) error {
	for i := range kills + moves {
		// Paced, so that processes run between two elections as well as
		// across them.
		select {
		case <-stop:
			return nil
		case <-time.After(300*time.Millisecond + rand.N(500*time.Millisecond)):
		}
		lead, err := e.cluster.AwaitLeader(electionLimit)
		if err != nil {
			return err
		}
		if i%2 == 1 {
			if _, err := e.cluster.MoveLeader(lead, electionLimit); err != nil {
				return err
			}
			*moved++
			continue
		}
		lead.Kill()
		*killed++
		if _, err := e.cluster.AwaitLeader(electionLimit); err != nil {
			return fmt.Errorf("after %s was killed: %w", lead.Name, err)
		}
		if err := lead.StartAgain(); err != nil {
			return err
		}
	}
	return nil
}
