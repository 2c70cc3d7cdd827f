package main_test

// The per-session index of held locks, which lets the renew hook and
// heartbeat --all read only the session's own lock files: it must stay
// right when one session's acquisitions, releases and renewals race with
// other sessions taking the same paths over, in real processes.

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
	"github.com/agentlock/agentlock/store/filestore"
)

// ownedOnDisk lists the paths among paths whose lock file names owner.
func (s *sandbox) ownedOnDisk(owner string, paths []string) []string {
	var owned []string
	for _, p := range paths {
		if o, _ := s.onDisk(p); o == owner {
			owned = append(owned, p)
		}
	}
	slices.Sort(owned)
	return owned
}

// renewedPaths runs heartbeat --all for session and returns the paths it
// renewed.
func (s *sandbox) renewedPaths(session string) []string {
	s.t.Helper()
	r := s.run("heartbeat", "--all", "--json", "--session", session)
	requireExit(s.t, 0, r)
	var paths []string
	for _, rec := range jsonLines(s.t, r) {
		require.Equal(s.t, true, rec["ok"], "%v", rec)
		paths = append(paths, rec["path"].(string))
	}
	slices.Sort(paths)
	return paths
}

func TestSessionIndexFollowsRacingAcquisitionsAndTakeovers(t *testing.T) {
	s := newSandbox(t)
	const me = "me"
	var paths []string
	for i := range 8 {
		paths = append(paths, s.path(fmt.Sprintf("src/f%d.go", i)))
	}
	// The session's first renewal finds its locks by a scan; the index
	// is complete from then on, and the races below run on it.
	assert.Empty(t, s.renewedPaths(me))
	for round := range raceRounds() {
		// Some paths hold a dead agent's lock, for takeovers; some hold
		// ours, for releases and for takeovers by others once stale.
		for i, p := range paths {
			switch i % 4 {
			case 0:
				s.plant(p, record("crashed", time.Hour, p))
			case 1:
				requireExit(t, 0, s.run("acquire", p, me))
			}
		}
		var cmds []proctest.Cmd
		for i, p := range paths {
			cmds = append(cmds,
				s.cmd("acquire", p, me),
				s.cmd("acquire", p, me),
				s.cmd("acquire", p, fmt.Sprintf("other-%d", i)),
			)
			if i%2 == 1 {
				cmds = append(cmds, s.cmd("release", p, me))
			}
		}
		// Renewals race with the acquisitions: one that reads the index
		// between a record's write and its listing must not lose it.
		for range 4 {
			cmds = append(cmds, s.cmd("heartbeat", "--all", "--session", me))
		}
		cmds = append(cmds, s.cmd("acquire", "--session", me, paths[6], paths[7]))
		for _, r := range harness(t).Race(t, cmds) {
			require.Contains(t, []int{0, 1}, r.Code, "%s", r)
		}

		owned := s.ownedOnDisk(me, paths)
		require.Equal(t, owned, s.renewedPaths(me), "round %d: the renewal renews exactly the session's locks", round)
		var listed []string
		for _, p := range owned {
			listed = append(listed, lockName(p))
		}
		assert.ElementsMatch(t, listed, s.indexNames(me), "round %d: the renewal leaves the index naming exactly them", round)

		r := s.run("finish", "--json", me)
		require.Contains(t, []int{0, 1}, r.Code, "%s", r) // 1: not registered
		assert.Empty(t, s.ownedOnDisk(me, paths), "round %d: finish releases every lock of the session", round)
		assert.Empty(t, s.indexNames(me), "round %d: and empties its index", round)
		for i, p := range paths {
			requireExit(t, 0, s.run("release", p, fmt.Sprintf("other-%d", i)))
		}
	}
}

// indexNames reads the lock file names listed in the session's index
// file.
func (s *sandbox) indexNames(session string) []string {
	s.t.Helper()
	data, err := os.ReadFile(filepath.Join(s.locks, filestore.IndexFileName(session)))
	require.NoError(s.t, err)
	var names []string
	for _, line := range strings.Split(string(data), "\n") {
		if filepath.Ext(line) == ".lock" {
			names = append(names, line)
		}
	}
	return names
}

// Renewing a session's locks reads only the lock files the session took:
// a damaged lock file elsewhere in the folder, which a scan of every file
// would report, is none of its business.
func TestRenewReadsOnlyTheSessionsLocks(t *testing.T) {
	s := newSandbox(t)
	mine := s.path("src/mine.go")
	requireExit(t, 0, s.run("acquire", mine, "me"))
	require.Equal(t, []string{mine}, s.renewedPaths("me"))
	s.plant(s.path("src/other.go"), "not a lock record")
	assert.Equal(t, []string{mine}, s.renewedPaths("me"), "no scan: the damaged file is not read")
}
