// Package flock is agentlock's one wrapper of flock(2), in the shape of the
// Go toolchain's cmd/go/internal/lockedfile/internal/filelock: every call
// is retried when a signal interrupts it (EINTR), and a failure comes back
// as an *fs.PathError naming the operation ("Lock", "RLock") and the file.
//
// A lock is taken on an open descriptor and dropped when the descriptor is
// closed, or by the kernel when the process dies, so a crash never leaves
// one behind. Lock waits for another process's lock, but boundedly: a
// critical section lasts microseconds, so a lock held for longer belongs to
// a process that was stopped (SIGSTOP) or is stuck, and a blocking flock
// would hang every process behind it. The wait ends in a *store.BusyError
// naming the file, or when the caller's context is done. TryLock does not
// wait; LockBlocking waits in the kernel for as long as it takes, for the
// rare lock that is meant to be held across a whole wait (a queue).
//
// Only Unix-like systems have flock(2); elsewhere every call fails with an
// *fs.PathError wrapping errors.ErrUnsupported, and Supported is false.
package flock

import (
	"time"
)

// Mode is the kind of lock taken on a file.
type Mode int

// The kinds of lock: any number of Shared locks, or one Exclusive lock.
const (
	Shared Mode = iota + 1
	Exclusive
)

// String names the operation of the mode in errors, as filelock does:
// "RLock" for Shared, "Lock" for Exclusive.
func (m Mode) String() string {
	if m == Shared {
		return "RLock"
	}
	return "Lock"
}

// DefaultWait is how long Lock waits, at most, for another process's lock
// when its wait is zero. A critical section lasts microseconds; a few
// seconds leave room for a loaded machine while a process stopped inside
// one (SIGSTOP) cannot hang anybody for long.
const DefaultWait = 5 * time.Second
