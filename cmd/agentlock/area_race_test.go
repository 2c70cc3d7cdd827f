package main_test

// Area locks under races (issue 15): separate agentlock processes racing
// behind a barrier for a folder and the paths below it. Whatever mix of
// requests races, the requests that exclude each other never both win,
// and every loser is told who holds what.

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// areaRaceProcs is how many processes race in each round.
const areaRaceProcs = 16

// areaRaceRounds is how many rounds each area race runs: 20, fewer under
// -short.
func areaRaceRounds() int {
	if testing.Short() {
		return 4
	}
	return 20
}

// raceRequests races areaRaceProcs processes, process i acquiring
// requests[i%len(requests)] as session "s-<i>", round after round. Every
// pair of requests excludes each other, so exactly one process must win
// each round; each loser names the winner as the holder of every path it
// was refused (and, with --json, the area it was refused through in via
// when one is involved). The winner's records are on disk, the losers'
// are not; the winner releases everything before the next round.
func raceRequests(t *testing.T, s *sandbox, requests [][]string) {
	t.Helper()
	for _, dir := range []string{"src/auth/deep/x", "src/lib"} {
		require.NoError(t, os.MkdirAll(s.path(dir), 0o755))
	}
	for round := range areaRaceRounds() {
		cmds := make([]proctest.Cmd, areaRaceProcs)
		for i := range cmds {
			args := append([]string{"acquire", "--json", "--session", fmt.Sprintf("s-%d", i)}, requests[i%len(requests)]...)
			cmds[i] = s.cmd(args...)
		}
		results := harness(t).Race(t, cmds)
		winner := oneWinner(t, round, results)
		want := fmt.Sprintf("s-%d", winner)
		held := map[any]bool{} // the winner's lock paths
		for _, rec := range jsonLines(t, results[winner]) {
			require.Equal(t, true, rec["locked"], "round %d: %s", round, results[winner])
			held[rec["path"]] = true
		}
		for i, r := range results {
			if i == winner {
				continue
			}
			requireExit(t, 1, r)
			refused := 0
			for _, rec := range jsonLines(t, r) {
				require.NotEqual(t, true, rec["locked"], "round %d: a loser took %v:\n%s", round, rec["path"], r)
				if holder, ok := rec["session_id"]; ok {
					refused++
					require.Equal(t, want, holder, "round %d: the loser is told the winner:\n%s", round, r)
					// Told what the winner holds: the path itself, or the
					// winner's lock or area it is refused through.
					if !held[rec["path"]] {
						require.True(t, held[rec["via"]], "round %d: refused through %v, not one of the winner's %v:\n%s", round, rec["via"], held, r)
					}
				}
			}
			require.Positive(t, refused, "round %d: the loser is told who holds what:\n%s", round, r)
		}
		// On disk: the winner's records, none of a loser's.
		for i := range results {
			for _, p := range requests[i%len(requests)] {
				real := s.path(strings.TrimSuffix(p, "/"))
				if info, err := os.Stat(real); strings.HasSuffix(p, "/") || (err == nil && info.IsDir()) {
					real += "/"
				}
				owner, _ := s.onDisk(real)
				if i%len(requests) == winner%len(requests) {
					require.Equal(t, want, owner, "round %d: %s on disk", round, real)
				} else if !sharedPath(requests[winner%len(requests)], p) {
					require.Empty(t, owner, "round %d: %s on disk holds a loser", round, real)
				}
			}
		}
		requireExit(t, 0, s.run("release", "--all", "--session", want))
	}
}

// sharedPath reports whether the request req names p too.
func sharedPath(req []string, p string) bool {
	for _, q := range req {
		if q == p {
			return true
		}
	}
	return false
}

func TestRaceFileAgainstAreaOverIt(t *testing.T) {
	raceRequests(t, newSandbox(t), [][]string{{"src/auth/login.py"}, {"src/auth/"}})
}

func TestRaceOverlappingAreas(t *testing.T) {
	// src/auth is an existing folder: written without "/", it is an area too.
	raceRequests(t, newSandbox(t), [][]string{{"src/"}, {"src/auth"}, {"src/auth/deep/"}, {"src/auth/deep/x/"}})
}

func TestRaceAreaAgainstFileInside(t *testing.T) {
	raceRequests(t, newSandbox(t), [][]string{{"src/auth/deep/x/y.py"}, {"src/auth/deep/"}, {"src/auth/deep/x/y.py"}, {"src/"}})
}

func TestRaceMixedMultiPathRequests(t *testing.T) {
	// Every pair of requests shares a path or an area over a path.
	raceRequests(t, newSandbox(t), [][]string{
		{"src/a.go", "src/auth/"},
		{"src/auth/k.go", "src/b.go"},
		{"src/b.go", "src/a.go"},
		{"src/"},
		{"src/auth/deep/", "src/b.go"},
		{"src/lib/", "src/a.go", "src/b.go"},
	})
}
