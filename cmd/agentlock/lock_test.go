package main_test

// Each test is one scenario of the file-locking specification
// (../shared/seeds/000_*.txt), run with separate agentlock processes that
// exit before anything is asserted.

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/proctest"
)

// Requirement: mutual exclusion between one-shot processes.

func TestSecondAgentCannotAcquireValidLock(t *testing.T) {
	s := newSandbox(t)
	requireExit(t, 0, s.run("acquire", "src/auth.py", "agent-a"))

	r := s.run("acquire", "--json", "src/auth.py", "agent-b")
	requireExit(t, 1, r)
	rec := oneJSON(t, r)
	assert.Equal(t, false, rec["locked"])
	assert.Equal(t, "agent-a", rec["session_id"], "the refusal names the current owner")
	owner, _ := s.onDisk(s.path("src/auth.py"))
	assert.Equal(t, "agent-a", owner, "the lock on disk still belongs to A")
}

func TestOwnerKeepsItsLock(t *testing.T) {
	s := newSandbox(t)
	requireExit(t, 0, s.run("acquire", "src/auth.py", "agent-a"))
	requireExit(t, 1, s.run("acquire", "src/auth.py", "agent-b"))

	r := s.run("check", "--json", "--session", "agent-a", "src/auth.py")
	requireExit(t, 0, r)
	rec := oneJSON(t, r)
	assert.Equal(t, "locked-by-me", rec["state"])
	assert.Equal(t, "agent-a", rec["owner"])
	assert.Equal(t, true, rec["ok"])
}

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

// Requirement: idempotent re-acquisition by the owner.

func TestOwnerReacquiresFromNewProcess(t *testing.T) {
	s := newSandbox(t)
	target := s.path("src/auth.py")
	s.plant(target, record("agent-a", 60*time.Second, target))
	_, before := s.onDisk(target)

	r := s.run("acquire", "--json", "src/auth.py", "agent-a")
	requireExit(t, 0, r)
	rec := oneJSON(t, r)
	assert.Equal(t, true, rec["locked"])
	assert.Contains(t, rec["note"], "renewed")
	owner, after := s.onDisk(target)
	assert.Equal(t, "agent-a", owner)
	assert.Greater(t, after, before+30, "re-acquiring renews the timestamp")
}

// Requirement: expiry of abandoned locks.

func TestExpiredLockIsDetected(t *testing.T) {
	s := newSandbox(t)
	target := s.path("src/auth.py")
	s.plant(target, record("agent-a", 10*time.Minute, target))
	before, err := os.ReadFile(s.lockFile(target))
	require.NoError(t, err)

	r := s.run("check", "--json", "--session", "agent-b", "src/auth.py")
	requireExit(t, 0, r)
	rec := oneJSON(t, r)
	assert.Equal(t, false, rec["locked"])
	assert.Equal(t, "stale", rec["state"])
	assert.Equal(t, "agent-a", rec["stale_owner"])
	after, err := os.ReadFile(s.lockFile(target))
	require.NoError(t, err)
	assert.Equal(t, before, after, "check never modifies a lock")
}

func TestExpiredLockIsDetectedAfterRealTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a lock to expire in real time")
	}
	s := newSandbox(t)
	requireExit(t, 0, s.run("acquire", "--timeout", "0.3", "src/auth.py", "agent-a"))
	requireExit(t, 1, s.run("acquire", "--timeout", "0.3", "src/auth.py", "agent-b"))
	time.Sleep(600 * time.Millisecond)
	rec := oneJSON(t, s.run("check", "--json", "--timeout", "0.3", "src/auth.py"))
	assert.Equal(t, "stale", rec["state"])
	assert.Equal(t, "agent-a", rec["stale_owner"])
	r := s.run("acquire", "--json", "--timeout", "0.3", "src/auth.py", "agent-b")
	requireExit(t, 0, r)
	assert.Equal(t, "agent-a", oneJSON(t, r)["stale_owner"])
}

func TestExpiredLockCanBeAcquired(t *testing.T) {
	s := newSandbox(t)
	target := s.path("src/auth.py")
	s.plant(target, record("agent-a", 10*time.Minute, target))

	r := s.run("acquire", "--json", "src/auth.py", "agent-b")
	requireExit(t, 0, r)
	rec := oneJSON(t, r)
	assert.Equal(t, true, rec["locked"])
	assert.Equal(t, "agent-b", rec["owner"])
	assert.Equal(t, "agent-a", rec["stale_owner"], "the replaced owner is reported")
	owner, _ := s.onDisk(target)
	assert.Equal(t, "agent-b", owner)
}

func TestFreshLockIsNeverTakenOver(t *testing.T) {
	s := newSandbox(t)
	target := s.path("src/auth.py")
	// Renewed 100s ago with the default 120s timeout: old, but not stale.
	s.plant(target, record("agent-a", 100*time.Second, target))
	requireExit(t, 1, s.run("acquire", "src/auth.py", "agent-b"))
	owner, _ := s.onDisk(target)
	assert.Equal(t, "agent-a", owner)
	// The reader's timeout decides: with 60s the same lock is stale.
	requireExit(t, 0, s.run("acquire", "--timeout", "60", "src/auth.py", "agent-b"))
}

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

func TestOwnerRenews(t *testing.T) {
	s := newSandbox(t)
	target := s.path("src/auth.py")
	s.plant(target, record("agent-a", 100*time.Second, target))

	r := s.run("heartbeat", "--json", "src/auth.py", "agent-a")
	requireExit(t, 0, r)
	assert.Equal(t, true, oneJSON(t, r)["ok"])
	rec := oneJSON(t, s.run("check", "--json", "src/auth.py"))
	assert.Less(t, rec["age"], 30.0, "the lock's age starts again from zero")
}

func TestNonOwnerCannotRenew(t *testing.T) {
	s := newSandbox(t)
	target := s.path("src/auth.py")
	s.plant(target, record("agent-a", 100*time.Second, target))
	before, err := os.ReadFile(s.lockFile(target))
	require.NoError(t, err)

	r := s.run("heartbeat", "--json", "src/auth.py", "agent-b")
	requireExit(t, 1, r)
	rec := oneJSON(t, r)
	assert.Equal(t, false, rec["ok"])
	assert.Equal(t, "not owner", rec["error"])
	assert.Equal(t, "agent-a", rec["current_owner"])
	after, err := os.ReadFile(s.lockFile(target))
	require.NoError(t, err)
	assert.Equal(t, before, after, "the lock is untouched")
}

func TestHeartbeatOnMissingLockFails(t *testing.T) {
	s := newSandbox(t)
	r := s.run("heartbeat", "--json", "src/auth.py", "agent-a")
	requireExit(t, 1, r)
	assert.Equal(t, "lock not found", oneJSON(t, r)["error"])
	assert.NoFileExists(t, s.lockFile(s.path("src/auth.py")), "no lock is created")
	assert.NoDirExists(t, s.locks, "not even the lock directory")

	// A released (empty) lock file is no lock either, and stays empty.
	requireExit(t, 0, s.run("acquire", "src/auth.py", "agent-a"))
	requireExit(t, 0, s.run("release", "src/auth.py", "agent-a"))
	requireExit(t, 1, s.run("heartbeat", "src/auth.py", "agent-a"))
	owner, _ := s.onDisk(s.path("src/auth.py"))
	assert.Empty(t, owner)
}

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

// Requirement: release only by the owner.

func TestOwnerReleases(t *testing.T) {
	s := newSandbox(t)
	requireExit(t, 0, s.run("acquire", "src/auth.py", "agent-a"))
	r := s.run("release", "--json", "src/auth.py", "agent-a")
	requireExit(t, 0, r)
	assert.Equal(t, true, oneJSON(t, r)["released"])
	requireExit(t, 0, s.run("acquire", "src/auth.py", "agent-b"))
}

func TestNonOwnerCannotRelease(t *testing.T) {
	s := newSandbox(t)
	requireExit(t, 0, s.run("acquire", "src/auth.py", "agent-a"))
	r := s.run("release", "--json", "src/auth.py", "agent-b")
	requireExit(t, 1, r)
	rec := oneJSON(t, r)
	assert.Equal(t, false, rec["released"])
	assert.Equal(t, "not owner", rec["error"])
	assert.Equal(t, "agent-a", rec["current_owner"])
	requireExit(t, 1, s.run("acquire", "src/auth.py", "agent-c"))
	owner, _ := s.onDisk(s.path("src/auth.py"))
	assert.Equal(t, "agent-a", owner, "the lock stays valid")
}

func TestReleasingUnlockedPathSucceeds(t *testing.T) {
	s := newSandbox(t)
	r := s.run("release", "--json", "src/never-locked.py", "agent-a")
	requireExit(t, 0, r)
	assert.Equal(t, true, oneJSON(t, r)["released"])
	assert.Empty(t, r.Stderr)
}

func TestReleaseEmptiesLockFileInPlace(t *testing.T) {
	s := newSandbox(t)
	target := s.path("src/auth.py")
	requireExit(t, 0, s.run("acquire", "src/auth.py", "agent-a"))
	before, err := os.Stat(s.lockFile(target))
	require.NoError(t, err)

	requireExit(t, 0, s.run("release", "src/auth.py", "agent-a"))
	after, err := os.Stat(s.lockFile(target))
	require.NoError(t, err, "the lock file is never deleted")
	assert.Zero(t, after.Size(), "release empties it")
	assert.Equal(t, inode(t, before), inode(t, after), "and keeps its inode")

	requireExit(t, 0, s.run("acquire", "src/auth.py", "agent-b"))
	again, err := os.Stat(s.lockFile(target))
	require.NoError(t, err)
	assert.Equal(t, inode(t, before), inode(t, again), "a new owner writes the same inode")
}

// Requirement: lock identity independent of the working directory.

func TestRelativeAndAbsolutePathAreTheSameLock(t *testing.T) {
	s := newSandbox(t)
	requireExit(t, 0, s.run("acquire", "src/auth.py", "agent-a"))
	requireExit(t, 1, s.runIn(s.root, "acquire", s.path("src/auth.py"), "agent-b"))
	requireExit(t, 1, s.runIn(s.path("src"), "acquire", "auth.py", "agent-b"))
	requireExit(t, 1, s.runIn(s.path("src"), "acquire", "../src/./auth.py", "agent-b"))
}

func TestSameNamedFilesInDifferentProjects(t *testing.T) {
	s := newSandbox(t)
	other := filepath.Join(s.root, "other-project")
	require.NoError(t, os.MkdirAll(filepath.Join(other, "src"), 0o755))
	requireExit(t, 0, s.run("acquire", "src/auth.py", "agent-a"))
	requireExit(t, 0, s.runIn(other, "acquire", "src/auth.py", "agent-b"))
}

func TestSymlinkedPathIsTheSameLock(t *testing.T) {
	s := newSandbox(t)
	require.NoError(t, os.Symlink(s.path("src"), filepath.Join(s.root, "link-to-src")))
	requireExit(t, 0, s.run("acquire", "src/auth.py", "agent-a"))
	r := s.runIn(s.root, "acquire", "--json", "link-to-src/auth.py", "agent-b")
	requireExit(t, 1, r)
	assert.Equal(t, s.path("src/auth.py"), oneJSON(t, r)["path"])
}

func TestDotDotAfterSymlinkIsResolvedThroughTheLink(t *testing.T) {
	s := newSandbox(t)
	// root/alias -> project/src/deep; "alias/.." is project/src, not root.
	require.NoError(t, os.MkdirAll(s.path("src/deep"), 0o755))
	require.NoError(t, os.Symlink(s.path("src/deep"), filepath.Join(s.root, "alias")))
	r := s.runIn(s.root, "acquire", "--json", "alias/../auth.py", "agent-a")
	requireExit(t, 0, r)
	assert.Equal(t, s.path("src/auth.py"), oneJSON(t, r)["path"])
	requireExit(t, 1, s.run("acquire", "src/auth.py", "agent-b"))
}

func TestPathThatDoesNotExistYetCanBeLocked(t *testing.T) {
	s := newSandbox(t)
	r := s.run("acquire", "--json", "src/new/dir/file.go", "agent-a")
	requireExit(t, 0, r)
	assert.Equal(t, s.path("src/new/dir/file.go"), oneJSON(t, r)["path"])
	assert.NoDirExists(t, s.path("src/new"), "locking creates nothing in the project")
	requireExit(t, 1, s.runIn(s.path("src"), "acquire", "new/dir/../dir/file.go", "agent-b"))
}

// Requirement: configurable lock directory.

func TestLockDirectoryFromEnvironment(t *testing.T) {
	s := newSandbox(t)
	requireExit(t, 0, s.run("acquire", "src/auth.py", "agent-a"))
	assert.FileExists(t, s.lockFile(s.path("src/auth.py")))
	assert.NoDirExists(t, s.path(".agent-registry"), "nothing in the default location")
}

func TestMissingLockDirectoryIsCreated(t *testing.T) {
	s := newSandbox(t)
	s.locks = filepath.Join(s.root, "not", "yet", "there")
	s.env = hermeticEnv(t, s.root, "AGENT_REGISTRY_LOCK_DIR="+s.locks)
	requireExit(t, 0, s.run("acquire", "src/auth.py", "agent-a"))
	assert.FileExists(t, s.lockFile(s.path("src/auth.py")))
}

func TestDefaultLockDirectoryIsInTheProject(t *testing.T) {
	s := newSandbox(t)
	s.env = hermeticEnv(t, s.root) // no AGENT_REGISTRY_* variable
	requireExit(t, 0, s.runIn(s.path("src"), "acquire", "auth.py", "agent-a"))
	assert.FileExists(t, filepath.Join(s.path(".agent-registry/locks"), lockName(s.path("src/auth.py"))))

	// AGENT_REGISTRY_HOME names the folder that holds locks/.
	home := filepath.Join(s.root, "home")
	s.env = hermeticEnv(t, s.root, "AGENT_REGISTRY_HOME="+home)
	requireExit(t, 0, s.run("acquire", "src/other.py", "agent-a"))
	assert.FileExists(t, filepath.Join(home, "locks", lockName(s.path("src/other.py"))))

	// Outside any project, the user's home is used.
	s.env = hermeticEnv(t, s.root, "HOME="+home)
	loose := filepath.Join(s.root, "loose")
	require.NoError(t, os.Mkdir(loose, 0o755))
	requireExit(t, 0, s.runIn(loose, "acquire", "notes.txt", "agent-a"))
	assert.FileExists(t, filepath.Join(home, ".agent-registry", "locks", lockName(filepath.Join(loose, "notes.txt"))))
}

// Safety of the lock directory itself.

func TestSymlinkPlantedInLockDirectoryIsNotFollowed(t *testing.T) {
	s := newSandbox(t)
	victim := filepath.Join(s.root, "precious.txt")
	require.NoError(t, os.WriteFile(victim, []byte("precious data"), 0o644))
	require.NoError(t, os.MkdirAll(s.locks, 0o755))
	require.NoError(t, os.Symlink(victim, s.lockFile(s.path("src/auth.py"))))

	for _, args := range [][]string{
		{"acquire", "src/auth.py", "agent-a"},
		{"release", "src/auth.py", "agent-a"},
		{"heartbeat", "src/auth.py", "agent-a"},
		{"release", "--force", "src/auth.py"},
		{"check", "src/auth.py"},
	} {
		r := s.run(args...)
		requireExit(t, 3, r)
		assert.Contains(t, r.Stderr, "symbolic link", "%v", args)
	}
	data, err := os.ReadFile(victim)
	require.NoError(t, err)
	assert.Equal(t, "precious data", string(data), "the link's target is untouched")
}

func TestCorruptLockIsReportedNotOverwritten(t *testing.T) {
	s := newSandbox(t)
	target := s.path("src/auth.py")
	s.plant(target, "this is not a lock record")

	for _, args := range [][]string{
		{"acquire", "src/auth.py", "agent-a"},
		{"release", "src/auth.py", "agent-a"},
		{"heartbeat", "src/auth.py", "agent-a"},
		{"check", "src/auth.py"},
	} {
		r := s.run(args...)
		requireExit(t, 3, r)
		assert.Contains(t, r.Stderr, "corrupt", "%v", args)
	}
	r := s.run("acquire", "--json", "src/auth.py", "agent-a")
	requireExit(t, 3, r)
	rec := oneJSON(t, r)
	assert.Contains(t, rec["error"], "corrupt lock file", "--json callers get the error on stdout")
	assert.Equal(t, 3.0, rec["exit_code"])
	data, err := os.ReadFile(s.lockFile(target))
	require.NoError(t, err)
	assert.Equal(t, "this is not a lock record", string(data), "nothing overwrote it")

	// A person clears it on purpose.
	requireExit(t, 0, s.run("release", "--force", "src/auth.py"))
	requireExit(t, 0, s.run("acquire", "src/auth.py", "agent-a"))
}

// Helpers for processes the test keeps running.

func inode(t *testing.T, info os.FileInfo) uint64 {
	t.Helper()
	st, ok := info.Sys().(*syscall.Stat_t)
	require.True(t, ok)
	return st.Ino
}
