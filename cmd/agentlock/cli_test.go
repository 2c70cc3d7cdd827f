package main_test

// Scenarios of the command-line interface: exit codes, usage, session ids,
// several paths, waiting, the heartbeat loop and the status listing.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/proctest"
)

func TestCLIAcquireSucceedsWithExitZero(t *testing.T) {
	s := newSandbox(t)
	r := s.run("acquire", "src/auth.py", "agent-a")
	requireExit(t, 0, r)
	assert.Contains(t, r.Stdout, s.path("src/auth.py"))
}

func TestCLIBlockedAcquireExitsNonZeroAndNamesOwner(t *testing.T) {
	s := newSandbox(t)
	requireExit(t, 0, s.run("acquire", "src/auth.py", "agent-a"))
	r := s.run("acquire", "src/auth.py", "agent-b")
	requireExit(t, 1, r)
	assert.Contains(t, r.Stderr, "agent-a", "the refusal names the owner")
	assert.Contains(t, r.Stderr, "Do not modify it")
}

func TestCLIMissingArgumentsPrintUsage(t *testing.T) {
	s := newSandbox(t)
	for _, args := range [][]string{
		{},
		{"acquire"},
		{"acquire", "src/auth.py"}, // no session anywhere
		{"release"},
		{"heartbeat"},
		{"check"},
		{"status", "extra"},
		{"frobnicate"},
		{"acquire", "--no-such-flag", "x", "y"},
		{"acquire", "--timeout", "soon", "x", "agent-a"},
		{"heartbeat", "--pid", "1", "x", "agent-a"},
	} {
		r := s.run(args...)
		assert.Equal(t, 2, r.Code, "%v: %s", args, r)
		assert.Contains(t, r.Stderr, "Usage:", "%v prints the usage", args)
		assert.NotContains(t, r.Stderr, "goroutine", "%v: no stack trace", args)
		assert.NotContains(t, r.Stderr, "panic", "%v", args)
	}
	r := s.run("frobnicate")
	assert.Contains(t, r.Stderr, `unknown command "frobnicate"`)
}

func TestCLIHelpExitsZero(t *testing.T) {
	s := newSandbox(t)
	for _, args := range [][]string{{"--help"}, {"acquire", "--help"}, {"help", "status"}} {
		r := s.run(args...)
		requireExit(t, 0, r)
		assert.Contains(t, r.Stdout, "Usage:")
	}
}

func TestSessionFromFlagAndEnvironment(t *testing.T) {
	s := newSandbox(t)
	requireExit(t, 0, s.run("acquire", "--session", "agent-a", "src/a.py"))
	owner, _ := s.onDisk(s.path("src/a.py"))
	assert.Equal(t, "agent-a", owner)

	s.env = append(s.env, "AGENTLOCK_SESSION=agent-env")
	requireExit(t, 0, s.run("acquire", "src/b.py"))
	owner, _ = s.onDisk(s.path("src/b.py"))
	assert.Equal(t, "agent-env", owner)

	// The flag wins over the environment; --session-id is the Python spelling.
	requireExit(t, 0, s.run("acquire", "--session-id", "agent-flag", "src/c.py"))
	owner, _ = s.onDisk(s.path("src/c.py"))
	assert.Equal(t, "agent-flag", owner)

	// Two arguments are "<path> <session>" unless that contradicts the
	// environment; then agentlock refuses to guess.
	requireExit(t, 0, s.run("acquire", "src/d.py", "agent-env"))
	r := s.run("acquire", "src/e.py", "src/f.py")
	requireExit(t, 2, r)
	assert.Contains(t, r.Stderr, "ambiguous")
	assert.NoFileExists(t, s.lockFile(s.path("src/e.py")), "nothing was locked")
	requireExit(t, 0, s.run("acquire", "--session", "agent-env", "src/e.py", "src/f.py"))
}

func TestInvalidSessionIDsAreUsageErrors(t *testing.T) {
	s := newSandbox(t)
	for _, id := range []string{"has space", "pipe|char", "tab\tchar", "new\nline", strings.Repeat("x", 129), "\x01ctl"} {
		r := s.run("acquire", "src/auth.py", id)
		assert.Equal(t, 2, r.Code, "session %q: %s", id, r)
	}
	assert.NoDirExists(t, s.locks, "nothing was written")
	requireExit(t, 0, s.run("acquire", "src/auth.py", strings.Repeat("x", 128)))
	requireExit(t, 0, s.run("acquire", "src/ok.py", "kimi-1732912345.ü"))
}

func TestMultiPathAcquireIsAllOrNothing(t *testing.T) {
	s := newSandbox(t)
	requireExit(t, 0, s.run("acquire", "src/b.go", "agent-a"))

	r := s.run("acquire", "--json", "--session", "agent-b", "src/a.go", "src/b.go", "src/c.go")
	requireExit(t, 1, r)
	recs := jsonLines(t, r)
	require.Len(t, recs, 3)
	assert.Equal(t, "agent-a", recs[1]["session_id"], "the held path names its owner")
	for _, rec := range recs {
		assert.Equal(t, false, rec["locked"])
	}
	for _, p := range []string{"src/a.go", "src/c.go"} {
		owner, _ := s.onDisk(s.path(p))
		assert.Empty(t, owner, "%s was not left held", p)
	}

	requireExit(t, 0, s.run("release", "src/b.go", "agent-a"))
	r = s.run("acquire", "--json", "--session", "agent-b", "src/a.go", "src/b.go", "src/c.go", "src/a.go")
	requireExit(t, 0, r)
	assert.Len(t, jsonLines(t, r), 4)
	for _, p := range []string{"src/a.go", "src/b.go", "src/c.go"} {
		owner, _ := s.onDisk(s.path(p))
		assert.Equal(t, "agent-b", owner, p)
	}
}

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

func TestAcquireWaitGivesUpNamingHolder(t *testing.T) {
	s := newSandbox(t)
	requireExit(t, 0, s.run("acquire", "src/auth.py", "agent-a"))
	r := s.run("acquire", "--wait", "300ms", "src/auth.py", "agent-b")
	requireExit(t, 1, r)
	assert.Contains(t, r.Stderr, "gave up")
	assert.Contains(t, r.Stderr, "agent-a")
	owner, _ := s.onDisk(s.path("src/auth.py"))
	assert.Equal(t, "agent-a", owner)
}

func TestHeartbeatLoopStopsWhenParentShellExits(t *testing.T) {
	s := newSandbox(t)
	requireExit(t, 0, s.run("acquire", "src/auth.py", "agent-a"))
	// The shell starts the loop in the background and exits, as an agent's
	// one-shot shell does. The loop's stdout is the pipe read here: it
	// reaches EOF only when both the shell and the loop have exited.
	script := fmt.Sprintf("%q heartbeat --every 50ms src/auth.py agent-a & sleep 0.2", harness(t).Bin)
	shell := proctest.Cmd{Args: []string{"-c", script}, Env: s.env, Dir: s.project}
	r := proctest.Run(t, "/bin/sh", shell)
	requireExit(t, 0, r)
	assert.Empty(t, r.Stderr)
}

func TestHeartbeatLoopStopsWhenLockIsLost(t *testing.T) {
	s := newSandbox(t)
	requireExit(t, 0, s.run("acquire", "src/auth.py", "agent-a"))
	watched := proctest.Start(t, "sleep", proctest.Cmd{Args: []string{"60"}, Env: s.env})
	loop := s.start("heartbeat", "--every", "50ms", "--pid", fmt.Sprint(watched.Pid()), "src/auth.py", "agent-a")
	requireExit(t, 0, s.run("release", "--force", "src/auth.py"))
	requireExit(t, 0, s.run("acquire", "src/auth.py", "agent-b"))
	r := loop.Wait(t)
	requireExit(t, 1, r)
	// Depending on when it last woke, the loop found the lock gone or taken.
	assert.Regexp(t, "locked by agent-b|has no lock", r.Stderr)
}

func TestStatusListsLocksAndReportsCorruptFiles(t *testing.T) {
	s := newSandbox(t)
	requireExit(t, 0, s.run("acquire", "src/a.py", "agent-a"))
	requireExit(t, 0, s.run("acquire", "src/b.py", "agent-b"))
	requireExit(t, 0, s.run("acquire", "src/c.py", "agent-c"))
	requireExit(t, 0, s.run("release", "src/c.py", "agent-c"))
	stale := s.path("src/stale.py")
	s.plant(stale, record("agent-gone", time.Hour, stale))
	legacy := s.path("src/legacy.py")
	s.plant(legacy, fmt.Sprintf("agent-old|%d", time.Now().Unix()))
	s.plant(s.path("src/broken.py"), "garbage")

	r := s.run("status", "--json")
	requireExit(t, 0, r)
	byState := map[string][]string{}
	for _, rec := range jsonLines(t, r) {
		state := rec["state"].(string)
		name, _ := rec["session_id"].(string)
		if state == "corrupt" {
			name = filepath.Base(rec["file"].(string))
		}
		byState[state] = append(byState[state], name)
	}
	assert.ElementsMatch(t, []string{"agent-a", "agent-b", "agent-old"}, byState["locked"])
	assert.Equal(t, []string{"agent-gone"}, byState["stale"])
	assert.Equal(t, []string{filepath.Base(s.lockFile(s.path("src/broken.py")))}, byState["corrupt"])
	assert.Empty(t, byState["free"], "released locks only with --all")

	all := s.run("status", "--json", "--all")
	assert.Contains(t, all.Stdout, `"state":"free"`)

	table := s.run("status")
	requireExit(t, 0, table)
	assert.Contains(t, table.Stdout, "PATH")
	assert.Contains(t, table.Stdout, s.path("src/a.py"))
	assert.Contains(t, table.Stdout, "corrupt")
}

func TestStatusOfEmptyProject(t *testing.T) {
	s := newSandbox(t)
	r := s.run("status")
	requireExit(t, 0, r)
	assert.Contains(t, r.Stdout, "no locks")
	r = s.run("status", "--json")
	requireExit(t, 0, r)
	assert.Empty(t, r.Stdout)
}

func TestUnwritableLockDirectoryIsAnEnvironmentError(t *testing.T) {
	if os.Geteuid() == 0 {
		// root writes anywhere; a file in the way of the directory fails for everyone.
		t.Log("running as root: using a file where the lock directory should be")
	}
	s := newSandbox(t)
	require.NoError(t, os.WriteFile(s.locks, []byte("not a folder"), 0o644))
	r := s.run("acquire", "src/auth.py", "agent-a")
	requireExit(t, 3, r)
	assert.Contains(t, r.Stderr, s.locks)
}
