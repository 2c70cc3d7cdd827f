//go:build unix

package flock

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
	"github.com/agentlock/agentlock/store"
)

// openTwice opens one file twice: flock locks belong to an open file
// description, so the two descriptors contend as two processes would.
func openTwice(t *testing.T) (path string, a, b int) {
	t.Helper()
	path = filepath.Join(t.TempDir(), "f.lock")
	for _, fd := range []*int{&a, &b} {
		var err error
		*fd, err = unix.Open(path, unix.O_RDWR|unix.O_CREAT|unix.O_CLOEXEC, 0o644)
		require.NoError(t, err)
		t.Cleanup(func() { unix.Close(*fd) })
	}
	return path, a, b
}

// A signal that interrupts flock(2) is no failure: the call is made again,
// by Lock (whose first tries and whose waits both meet it), TryLock and
// LockBlocking alike.
func TestLockRetriesWhenInterrupted(t *testing.T) {
	var calls, interrupted int
	// flock(2) interrupted twice, then held by another process twice,
	// interrupted once more, then free.
	script := []error{unix.EINTR, unix.EINTR, unix.EWOULDBLOCK, unix.EWOULDBLOCK, unix.EINTR, nil}
	fake := func(fd, how int) error {
		require.Equal(t, unix.LOCK_EX|unix.LOCK_NB, how, "Lock never blocks in the kernel")
		err := script[calls]
		calls++
		if err == unix.EINTR {
			interrupted++
		}
		return err
	}
	require.NoError(t, lock(context.Background(), fake, 7, "f.lock", Exclusive, time.Minute))
	assert.Equal(t, len(script), calls, "every interrupted call was made again, until the lock was taken")
	assert.Equal(t, 3, interrupted)

	calls = 0
	err := retry(func(int, int) error {
		calls++
		if calls < 4 {
			return unix.EINTR
		}
		return unix.EBADF
	}, 7, unix.LOCK_SH)
	assert.ErrorIs(t, err, unix.EBADF, "retry returns the first answer that is not EINTR")
	assert.Equal(t, 4, calls)
}

// A failure of flock(2) is an *fs.PathError naming the operation and the
// file, as the toolchain's filelock words it.
func TestLockFailsWithPathError(t *testing.T) {
	fail := func(int, int) error { return unix.ENOLCK }
	for _, m := range []Mode{Shared, Exclusive} {
		err := lock(context.Background(), fail, 7, "/x/f.lock", m, time.Minute)
		var pe *fs.PathError
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, m.String(), pe.Op)
		assert.Equal(t, "/x/f.lock", pe.Path)
		assert.ErrorIs(t, err, unix.ENOLCK)
	}
	assert.Equal(t, "RLock", Shared.String())
	assert.Equal(t, "Lock", Exclusive.String())

	// The real call on a closed descriptor: the same shape.
	for _, err := range []error{
		Lock(context.Background(), -1, "/x/closed", Exclusive, time.Second),
		LockBlocking(-1, "/x/closed", Shared),
		func() error { _, err := TryLock(-1, "/x/closed", Exclusive); return err }(),
	} {
		var pe *fs.PathError
		require.ErrorAs(t, err, &pe)
		assert.Equal(t, "/x/closed", pe.Path)
		assert.ErrorIs(t, err, unix.EBADF)
	}
}

// A lock held longer than the wait ends Lock with a *store.BusyError naming
// the file and the wait; TryLock says it is held; shared locks do not
// exclude each other; closing the holder's descriptor frees the lock.
func TestLockWaitIsBounded(t *testing.T) {
	path, holder, waiter := openTwice(t)
	ok, err := TryLock(holder, path, Exclusive)
	require.NoError(t, err)
	require.True(t, ok)

	ok, err = TryLock(waiter, path, Shared)
	require.NoError(t, err)
	assert.False(t, ok, "held exclusively by another description")

	err = Lock(context.Background(), waiter, path, Exclusive, 30*time.Millisecond)
	var busy *store.BusyError
	require.ErrorAs(t, err, &busy)
	assert.Equal(t, &store.BusyError{Ref: path, Waited: 30 * time.Millisecond}, busy)
	assert.ErrorIs(t, err, store.ErrBusy)

	// The bound is checked on a fake too: a lock that is never free ends
	// in BusyError, after tries that never block.
	var tries int
	err = lock(context.Background(), func(_, how int) error {
		tries++
		require.NotZero(t, how&unix.LOCK_NB)
		return unix.EWOULDBLOCK
	}, 7, "never-free", Shared, 20*time.Millisecond)
	require.ErrorAs(t, err, &busy)
	assert.Equal(t, "never-free", busy.Ref)
	assert.Greater(t, tries, 1, "it tried again before giving up")

	require.NoError(t, unix.Close(holder))
	require.NoError(t, Lock(context.Background(), waiter, path, Exclusive, 0), "the holder's close dropped its lock")

	_, a, b := openTwice(t)
	require.NoError(t, Lock(context.Background(), a, path, Shared, 0))
	require.NoError(t, Lock(context.Background(), b, path, Shared, 0), "shared locks do not exclude each other")
}

// A caller whose context ends stops waiting, with the context's cause,
// long before the bound.
func TestLockStopsWithTheContext(t *testing.T) {
	path, holder, waiter := openTwice(t)
	require.NoError(t, Lock(context.Background(), holder, path, Exclusive, 0))
	cause := errors.New("the client went away")
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(cause)
	err := Lock(ctx, waiter, path, Exclusive, time.Hour)
	require.ErrorIs(t, err, cause)
	assert.NotErrorIs(t, err, store.ErrBusy)
	assert.Contains(t, err.Error(), path+": gave up waiting for another process's lock")

	// A context that is already done does not stop an uncontended lock:
	// the free lock is taken at the first try.
	other, free, _ := openTwice(t)
	require.NoError(t, Lock(ctx, free, other, Exclusive, time.Hour))
}

// childEnv names the mode of TestFlockChild in a child process.
const childEnv = "AGENTLOCK_FLOCK_CHILD"

// TestFlockChild is run by the tests below in child processes: "hold"
// takes the lock and keeps it until killed; "count" increments the number
// in the file under the lock, rounds times. Elsewhere it does nothing.
func TestFlockChild(t *testing.T) {
	mode, path := os.Getenv(childEnv), os.Getenv(childEnv+"_FILE")
	if mode == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, "open:", err)
		os.Exit(2)
	}
	switch mode {
	case "hold":
		if err := Lock(context.Background(), int(f.Fd()), path, Exclusive, 0); err != nil {
			fmt.Fprintln(os.Stderr, "lock:", err)
			os.Exit(2)
		}
		fmt.Fprintln(os.Stderr, "held")
		time.Sleep(time.Minute) // killed long before; bounded all the same
		os.Exit(0)
	case "count":
		rounds, _ := strconv.Atoi(os.Getenv(childEnv + "_ROUNDS"))
		for range rounds {
			// A wait far beyond any critical section: this test counts
			// exclusion, not the bound.
			if err := Lock(context.Background(), int(f.Fd()), path, Exclusive, time.Minute); err != nil {
				fmt.Fprintln(os.Stderr, "lock:", err)
				os.Exit(2)
			}
			buf := make([]byte, 32)
			n, _ := f.ReadAt(buf, 0)
			v, _ := strconv.Atoi(string(buf[:n]))
			s := strconv.Itoa(v + 1)
			if _, err := f.WriteAt([]byte(s), 0); err != nil {
				fmt.Fprintln(os.Stderr, "write:", err)
				os.Exit(2)
			}
			if err := unix.Flock(int(f.Fd()), unix.LOCK_UN); err != nil {
				fmt.Fprintln(os.Stderr, "unlock:", err)
				os.Exit(2)
			}
		}
		os.Exit(0)
	}
}

func childCmd(t *testing.T, path string, extra ...string) proctest.Cmd {
	env := append([]string{childEnv + "_FILE=" + path}, extra...)
	return proctest.Cmd{Args: []string{"-test.run=^TestFlockChild$"}, Env: proctest.Env(t.TempDir(), t.TempDir(), env...)}
}

// Processes racing on one file through Lock never both hold it: every
// read-modify-write of a counter, by every process, counts.
func TestLockExcludesOtherProcesses(t *testing.T) {
	const procs, rounds = 8, 2000
	path := filepath.Join(t.TempDir(), "counter")
	h := &proctest.Harness{Bin: os.Args[0]}
	cmds := make([]proctest.Cmd, procs)
	for i := range cmds {
		cmds[i] = childCmd(t, path, childEnv+"=count", childEnv+"_ROUNDS="+strconv.Itoa(rounds))
	}
	for _, r := range h.Race(t, cmds) {
		require.Equal(t, 0, r.Code, r.String())
	}
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, strconv.Itoa(procs*rounds), string(data), "no increment was lost")
}

// A lock held by another process ends a bounded wait in BusyError, and is
// free once that process dies: the kernel drops it.
func TestLockHeldByAnotherProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "held.lock")
	holder := proctest.Start(t, os.Args[0], childCmd(t, path, childEnv+"=hold"))
	holder.WaitStderr(t, "held", proctest.Timeout)

	f, err := os.OpenFile(path, os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	ok, err := TryLock(int(f.Fd()), path, Shared)
	require.NoError(t, err)
	assert.False(t, ok)
	err = Lock(context.Background(), int(f.Fd()), path, Exclusive, 50*time.Millisecond)
	assert.ErrorIs(t, err, store.ErrBusy)

	require.NoError(t, holder.Signal(syscall.SIGKILL))
	assert.Equal(t, -1, holder.Wait(t).Code)
	require.NoError(t, Lock(context.Background(), int(f.Fd()), path, Exclusive, time.Minute), "a dead holder's lock is dropped")
}
