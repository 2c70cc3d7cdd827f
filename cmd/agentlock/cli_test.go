package main_test

// Command-line scenarios that a script cannot say: processes racing behind
// a barrier, and processes watched while they run.

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

func TestMultiPathRacesNeitherDeadlockNorSplit(t *testing.T) {
	s := newSandbox(t)
	sets := [][]string{
		{"src/x.go", "src/y.go"},
		{"src/y.go", "src/x.go"}, // the same set in the opposite order
		{"src/y.go", "src/z.go"},
		{"src/z.go", "src/x.go"},
	}
	const n = 16
	rounds := raceRounds() / 2
	for round := range rounds {
		cmds := make([]proctest.Cmd, n)
		for i := range cmds {
			args := append([]string{"acquire", "--json", "--session", fmt.Sprintf("agent-%d", i)}, sets[i%len(sets)]...)
			cmds[i] = s.cmd(args...)
		}
		held := map[string]string{} // path -> winner
		winners := 0
		for i, r := range harness(t).Race(t, cmds) {
			if r.Code != 0 {
				requireExit(t, 1, r)
				continue
			}
			winners++
			for _, p := range sets[i%len(sets)] {
				require.Empty(t, held[p], "round %d: %s won by two processes", round, p)
				held[p] = fmt.Sprintf("agent-%d", i)
			}
		}
		// Any two sets overlap, so exactly one process wins.
		require.Equal(t, 1, winners, "round %d", round)
		for _, p := range []string{"src/x.go", "src/y.go", "src/z.go"} {
			owner, _ := s.onDisk(s.path(p))
			require.Equal(t, held[p], owner, "round %d: %s on disk", round, p)
			if owner != "" {
				requireExit(t, 0, s.run("release", p, owner))
			}
		}
	}
}

// waitLimit bounds a wait for a running process to print or exit.
const waitLimit = 10 * time.Second

func TestAcquireWaitSucceedsOnceReleased(t *testing.T) {
	s := newSandbox(t)
	requireExit(t, 0, s.run("acquire", "src/auth.py", "agent-a"))
	waiter := s.start("acquire", "--wait", "30s", "src/auth.py", "agent-b")
	waiter.WaitStderr(t, "waiting", waitLimit)
	assert.Contains(t, waiter.Stderr(), "agent-a", "the progress line names the holder")

	requireExit(t, 0, s.run("release", "src/auth.py", "agent-a"))
	requireExit(t, 0, waiter.Wait(t))
	owner, _ := s.onDisk(s.path("src/auth.py"))
	assert.Equal(t, "agent-b", owner)
}

func TestHeartbeatLoopStopsWhenLockIsLost(t *testing.T) {
	s := newSandbox(t)
	requireExit(t, 0, s.run("acquire", "src/auth.py", "agent-a"))
	watched := proctest.Start(t, "sleep", proctest.Cmd{Args: []string{"60"}, Env: s.env})
	loop := s.start("heartbeat", "--every", "100ms", "--pid", fmt.Sprint(watched.Pid()), "src/auth.py", "agent-a")
	requireExit(t, 0, s.run("release", "--force", "src/auth.py"))
	requireExit(t, 0, s.run("acquire", "src/auth.py", "agent-b"))
	r := loop.Wait(t)
	requireExit(t, 1, r)
	// Depending on when it last woke, the loop found the lock gone or taken.
	assert.Regexp(t, "locked by agent-b|has no lock", r.Stderr)
}

// A command line that names its command builds that command alone (for
// speed); its help, usage errors and flags must be what the whole tree
// gives.
func TestOneCommandTreeMatchesWholeTree(t *testing.T) {
	p := newProject(t)
	root := p.run("--help")
	requireExit(t, 0, root)
	_, list, ok := strings.Cut(root.Stdout, "Available Commands:\n")
	require.True(t, ok, root.Stdout)
	list, _, _ = strings.Cut(list, "\n\n")
	var names []string
	for _, line := range strings.Split(list, "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] != "help" && f[0] != "completion" {
			names = append(names, f[0])
		}
	}
	require.Contains(t, names, "acquire")
	for _, name := range names {
		alone := p.run(name, "--help")
		whole := p.run("help", name)
		requireExit(t, 0, alone)
		assert.Equal(t, whole.Stdout, alone.Stdout, "%s --help", name)
		bad := p.run(name, "--no-such-flag")
		want := 2
		if name == "hook" {
			want = 1 // a malformed hook line is no deny (exit 2 would be)
		}
		assert.Equal(t, want, bad.Code, "%s --no-such-flag", name)
		assert.Contains(t, bad.Stderr, "see 'agentlock "+name+" --help'", name)
	}
}
