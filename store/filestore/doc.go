// Package filestore keeps agentlock's state in files on a local file
// system: one lock file per locked path, in a lock folder, and registry.md
// beside them. It implements the interfaces of package store.
//
// Lock files are permanent. A lock file is never deleted, renamed or
// truncated on open: its content is the lock's state ("session|unix
// time|real path", agent-registry 0.2's format), changed in place while an
// flock(2) on the file is held, for the microseconds of one
// read-modify-write. A process that dies mid-change drops its flock with
// its descriptors, so nothing stays stuck; two processes always contend on
// the same inode, so flock always excludes.
//
// registry.md is replaced by rename (so a reader never sees half a file),
// which means it cannot be locked itself: writers lock the sidecar
// registry.md.lock, never renamed or deleted, and re-read registry.md under
// that lock.
//
// Transactions that create lock files also take a shared flock on the lock
// folder, and the project's teardown (RemoveHome) takes it exclusively: a
// home is never deleted while another process is taking a lock in it.
//
// Every flock wait is bounded (DefaultWait, or the store's Wait): a process
// stopped or stuck inside a critical section makes the others fail with a
// *store.BusyError naming the file, instead of hanging them.
//
// A lock file with more than one hard link is refused: it is also some other
// file, which a write into the lock would change (a planted link to a
// victim file); agentlock never creates one.
//
// Only Unix-like systems are supported; elsewhere every operation fails with
// ErrUnsupportedPlatform.
package filestore

import (
	"errors"

	"github.com/agentlock/agentlock/internal/sys/flock"
)

// DefaultWait is how long an operation waits, at most, for another
// process's flock on a lock file, the lock folder or the registry's lock
// (Locks.Wait and Document.Wait when zero). A critical section lasts
// microseconds; a few seconds leave room for a loaded machine while a
// process stopped inside one (SIGSTOP) cannot hang anybody for long.
const DefaultWait = flock.DefaultWait

// The kinds of flock a transaction takes on a lock file or folder.
const (
	readLock  = flock.Shared
	writeLock = flock.Exclusive
)

// Errors of the file store.
var (
	// ErrUnsupportedFS: the lock folder or the registry is on a network
	// file system (NFS, SMB/CIFS, AFS, Lustre), where flock does not
	// exclude reliably between machines.
	ErrUnsupportedFS = errors.New("unsupported file system")
	// ErrUnsupportedPlatform: this operating system has no flock(2).
	ErrUnsupportedPlatform = errors.New("agentlock's file store needs a Unix-like system (Linux, macOS, BSD)")
)
