//go:build unix

package flock

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentlock/agentlock/store"
)

// Supported reports whether this system has flock(2).
const Supported = true

// how is the flock(2) operation of a mode.
func (m Mode) how() int {
	if m == Shared {
		return unix.LOCK_SH
	}
	return unix.LOCK_EX
}

// Lock takes a lock of mode m on the open file or folder fd, named name in
// errors, waiting at most wait (DefaultWait when zero or less) for another
// process to drop its lock, then failing with a *store.BusyError, and no
// longer than until ctx is done (then failing with an error wrapping
// ctx's cause). Other failures are *fs.PathError. The lock is dropped by
// closing fd.
//
// flock(2) has no timeout, so the lock is tried without blocking, with
// pauses doubling from 50µs to 20ms: a normal holder keeps the lock for
// microseconds, so the first retries find it free almost as soon as a
// blocking call would (with 16 processes on one lock, a first pause of 1ms
// made every loser wait a millisecond for a lock held for ten
// microseconds), and the longer pauses keep a stuck holder from costing
// the waiters more than a few wake-ups.
func Lock(ctx context.Context, fd int, name string, m Mode, wait time.Duration) error {
	return lock(ctx, unix.Flock, fd, name, m, wait)
}

// TryLock takes a lock of mode m on fd if nobody holds a conflicting one,
// without waiting, and reports whether it did. A failure other than the
// lock being held is an *fs.PathError.
func TryLock(fd int, name string, m Mode) (bool, error) {
	err := retry(unix.Flock, fd, m.how()|unix.LOCK_NB)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, unix.EWOULDBLOCK):
		return false, nil
	}
	return false, &fs.PathError{Op: m.String(), Path: name, Err: err}
}

// LockBlocking takes a lock of mode m on fd, waiting in the kernel for as
// long as it takes: no bound, no context. Only a lock meant to be held
// across a whole wait (a queue of waiters, whose holder keeps it until it
// wins or gives up) is taken this way, from a goroutine that nothing else
// waits for.
func LockBlocking(fd int, name string, m Mode) error {
	if err := retry(unix.Flock, fd, m.how()); err != nil {
		return &fs.PathError{Op: m.String(), Path: name, Err: err}
	}
	return nil
}

// lock is Lock calling flock for flock(2) (a test's stand-in lets it meet
// EINTR).
func lock(ctx context.Context, flock func(fd, how int) error, fd int, name string, m Mode, wait time.Duration) error {
	if wait <= 0 {
		wait = DefaultWait
	}
	var start time.Time
	pause := 50 * time.Microsecond
	for {
		err := retry(flock, fd, m.how()|unix.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case !errors.Is(err, unix.EWOULDBLOCK):
			return &fs.PathError{Op: m.String(), Path: name, Err: err}
		}
		// The clock is read only once the lock is found taken: the
		// uncontended path makes one system call.
		if start.IsZero() {
			start = time.Now()
		}
		if time.Since(start) >= wait {
			return &store.BusyError{Ref: name, Waited: wait}
		}
		if ctx.Err() != nil {
			return fmt.Errorf("%s: gave up waiting for another process's lock: %w", name, context.Cause(ctx))
		}
		time.Sleep(min(pause, wait-time.Since(start)+time.Millisecond))
		pause = min(pause*2, 20*time.Millisecond)
	}
}

// retry is flock(fd, how), called again for as long as a signal interrupts
// it.
func retry(flock func(fd, how int) error, fd, how int) error {
	for {
		err := flock(fd, how)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}
