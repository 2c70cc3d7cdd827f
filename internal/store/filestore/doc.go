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
// Only Unix-like systems are supported; elsewhere every operation fails with
// ErrUnsupportedPlatform.
package filestore

import "errors"

// Errors of the file store.
var (
	// ErrUnsupportedFS: the lock folder or the registry is on a network
	// file system (NFS, SMB/CIFS, AFS, Lustre), where flock does not
	// exclude reliably between machines.
	ErrUnsupportedFS = errors.New("unsupported file system")
	// ErrUnsupportedPlatform: this operating system has no flock(2).
	ErrUnsupportedPlatform = errors.New("agentlock's file store needs a Unix-like system (Linux, macOS, BSD)")
)
