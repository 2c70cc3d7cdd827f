package main_test

// A process stopped (SIGSTOP) inside a critical section: every command that
// needs what it holds gives up after AGENTLOCK_LOCK_WAIT and exits 3 naming
// the file, instead of hanging every agent behind it.

import (
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// stopInside is a Python helper that takes an exclusive flock on each file
// named in its arguments (creating them), says so on stderr, and stops
// itself with SIGSTOP: a process frozen in the middle of a critical
// section. proctest kills it (SIGKILL works on a stopped process) when the
// test ends.
const stopInside = `
import fcntl, os, signal, sys
held = []
for p in sys.argv[1:]:
    f = open(p, "a")
    fcntl.flock(f, fcntl.LOCK_EX)
    held.append(f)
sys.stderr.write("held\n")
sys.stderr.flush()
os.kill(os.getpid(), signal.SIGSTOP)
`

// TestChaosStoppedHolderDoesNotHangAnyone freezes a process holding a lock
// file's flock and the registry's lock, then runs, all at once, every
// command an agent uses that needs one of them. Each must give up after the
// bound it was given (AGENTLOCK_LOCK_WAIT=1s, not the default 5s: it says
// so) and exit 3, naming the file, long before the children's deadline,
// which would fail the test naming a command that hung; the pre-edit hook
// must deny (exit 2, one line) rather than let the edit through, and status
// lists the file it could not read. How long each took is logged, not
// asserted: on a loaded machine it is any figure above the bound.
func TestChaosStoppedHolderDoesNotHangAnyone(t *testing.T) {
	py := python3(t)
	p := hookProject(t)
	target := filepath.Join(p.dir, "src/a.go")
	lock := filepath.Join(p.dir, ".agent-registry", "locks", lockName(target))
	registryLock := filepath.Join(p.dir, ".agent-registry", "registry.md.lock")
	requireExit(t, 0, p.run("acquire", "src/a.go", "agent-a"))

	holder := proctest.Start(t, py, proctest.Cmd{Args: []string{"-c", stopInside, lock, registryLock}, Env: p.env, Dir: p.dir})
	holder.WaitStderr(t, "held", 20*time.Second)

	const bound = time.Second
	env := append(append([]string{}, p.env...), "AGENTLOCK_LOCK_WAIT=1s")
	cases := []struct {
		name string
		args []string
		in   string
		file string // the file the refusal must name
	}{
		{"acquire", []string{"acquire", "src/a.go", "agent-b"}, "", lock},
		{"check", []string{"check", "src/a.go", "agent-b"}, "", lock},
		{"status", []string{"status"}, "", lock},
		{"release", []string{"release", "src/a.go", "agent-a"}, "", lock},
		{"register", []string{"register", "agent-b", "anthropic", "opus", "working"}, "", registryLock},
		{"hook", []string{"hook", "claude", "pre-edit"}, claudeEdit("s1", p.dir, target), lock},
	}
	start := time.Now()
	procs := make([]*proctest.Proc, len(cases))
	for i, c := range cases {
		procs[i] = proctest.Start(t, harness(t).Bin, proctest.Cmd{Args: c.args, Env: env, Dir: p.dir, Stdin: c.in})
	}
	for i, c := range cases {
		r := procs[i].Wait(t)
		t.Logf("%s: exit %d after %s", c.name, r.Code, time.Since(start).Round(time.Millisecond))
		said := r.Stderr
		switch c.name {
		case "hook":
			// Claude's structured denial: exit 0, the reason on stdout.
			said = deniedReason(t, "claude", r)
			assert.NotEmpty(t, said, "the pre-edit hook denies an edit it could not check: %s", r)
		case "status":
			// A listing reports the record it could not read in its row
			// and lists the rest, then exits 3 naming it on stderr.
			assert.Equal(t, 3, r.Code, "%s", r)
			assert.Contains(t, r.Stdout, c.file, "status lists the busy file in its row")
			assert.Regexp(t, `(?m)busy$`, r.Stdout, "the row says busy")
			assert.NotContains(t, r.Stdout, "corrupt", "a busy lock file is no damage")
		default:
			assert.Equal(t, 3, r.Code, "%s", r)
		}
		assert.Contains(t, said, c.file, "%s names the file that stayed locked", c.name)
		assert.Contains(t, said, "still locked by another process after "+bound.String(), "%s says why, and waited the bound given", c.name)
	}

	// The lock is intact, and usable again once the holder is gone.
	require.NoError(t, holder.Signal(os.Kill))
	holder.Wait(t)
	requireExit(t, 1, p.run("acquire", "src/a.go", "agent-b"))
	requireExit(t, 0, p.run("release", "src/a.go", "agent-a"))
}

// TestChaosStoppedWaiterDoesNotStopTheQueue stops (SIGSTOP) the first of
// the processes waiting for one lock: the one holding the lock's queue
// file, the only one woken by a release. The waiter behind it must still
// get the lock once it is released, on its own timer.
func TestChaosStoppedWaiterDoesNotStopTheQueue(t *testing.T) {
	if testing.Short() {
		t.Skip("waits in real time")
	}
	p := hookProject(t)
	target := filepath.Join(p.dir, "src/a.go")
	queue := filepath.Join(p.dir, ".agent-registry", "locks", lockName(target)+".wait")
	requireExit(t, 0, p.run("acquire", "src/a.go", "agent-a"))

	first := proctest.Start(t, harness(t).Bin, proctest.Cmd{Args: []string{"acquire", "--wait", "60s", "src/a.go", "agent-b"}, Env: p.env, Dir: p.dir})
	// It is first in line once it holds the queue file's flock.
	require.Eventually(t, func() bool { return flockedByOther(queue) }, 20*time.Second, 10*time.Millisecond,
		"the first waiter never took the queue file %s", queue)
	require.NoError(t, first.Signal(syscall.SIGSTOP))

	second := proctest.Start(t, harness(t).Bin, proctest.Cmd{Args: []string{"acquire", "--wait", "30s", "src/a.go", "agent-c"}, Env: p.env, Dir: p.dir})
	second.WaitStderr(t, "waiting up to", 20*time.Second)
	requireExit(t, 0, p.run("release", "src/a.go", "agent-a"))

	r := second.Wait(t)
	requireExit(t, 0, r)
	holder := p.run("check", "src/a.go")
	assert.Contains(t, holder.Stdout+holder.Stderr, "agent-c", "the waiter behind the stopped one got the lock")
}

// flockedByOther reports whether another process holds a flock on file.
func flockedByOther(file string) bool {
	fd, err := unix.Open(file, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return false
	}
	defer unix.Close(fd)
	err = unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB)
	if err == nil {
		unix.Flock(fd, unix.LOCK_UN)
		return false
	}
	return errors.Is(err, unix.EWOULDBLOCK)
}
