// Package core is agentlock's engine: advisory locks on paths that outlive
// the process that took them, and the registry of who works on what. It
// decides; a store (package store, reached through package
// workspace) keeps the records.
//
// # The execution model
//
// An AI coding agent is not a service: it acts through one-shot shell
// commands that exit in milliseconds. So ownership cannot live in a process
// (a held flock, a socket, a goroutine): it lives in a record — "session
// S renewed its lock on path P at time T" — that any later process reads.
// A lock is held while its record names a session and is younger than the
// timeout; it is free when the record is empty, and stale when it is older.
// Only the owner renews (Heartbeat) or releases; anyone may take over a
// stale lock, and the previous owner is reported.
//
// # The concurrency model
//
// Every decision is one atomic read-decide-write of the records it
// concerns, made by the store's Transact:
//
//   - The store takes the records in one fixed order (with the file store:
//     an exclusive flock on each lock file, by file name), so transactions
//     over overlapping sets never wait for each other in a cycle.
//   - The engine reads every record, decides with all of them held, and the
//     store writes all decided records or none is decided: AcquireAll
//     takes every path or none, and a stale lock is taken over only by the
//     process that read it stale inside its transaction — two takers are
//     serialised, and the second sees the first as a fresh owner.
//   - The exclusion lasts only for the transaction: nothing is held once a
//     method returns, so a process that dies mid-transaction leaves nothing
//     stuck (the kernel drops its flocks), and an agent that dies holding a
//     lock leaves a record that goes stale after the timeout.
//   - Readers (IsLocked, CheckAndWarn, List) read each record atomically
//     (a shared flock) and change nothing.
//   - Records are never deleted: release empties a record in place. With
//     files, deleting or renaming one would let two processes lock two
//     different inodes under one name, and flock would exclude nothing.
//   - A record that cannot be parsed is corrupt: reported (CorruptError),
//     never treated as free and never overwritten, except by ForceRelease —
//     while it may be live. A store writes a record in place in two steps
//     (write, then cut to length), so a process killed between them leaves
//     the new record followed by the tail of a longer old one; no order of
//     the steps avoids that without emptying a live lock for a moment. So
//     the lock files judge a corrupt record by when it was last written
//     (its modification time; the store's verdict, Slot.Liveness):
//     unwritten for longer than the timeout, nobody keeps it alive, and it
//     is stale like a dead owner's lock — IsLocked reports it (State.Corrupt), Acquire takes it
//     over (Lease.Corrupt). No order of kills leaves a record unreadable
//     for longer than the timeout.
//   - The store bounds every wait for another process's exclusion (a few
//     seconds): a process stopped or stuck inside a transaction makes the
//     others fail with a BusyError (ErrBusy) naming the record, and change
//     nothing, instead of hanging every agent behind it.
//
// # Area locks
//
// An area lock is an ordinary record whose path ends in "/" (an existing
// folder, or a path written so): agent-registry 0.2's format, content
// "session|timestamp|/real/path/". While one session holds it, no other
// session may hold a record at or below it, nor an area that covers it or
// that it covers. Deciding that reads records beyond the keys, so a store
// that can hold areas implements store.Areas, whose TransactAreas gives
// Decide the related records read in the same atomic step; with a store
// that cannot, an area acquire fails with ErrNoAreas and files work as
// before. The file store serialises with the lock folder's flock, which
// every transaction that creates lock files already takes shared:
//
//   - A file acquire (and a check) holds it shared, reads the folder's
//     areas.list — the areas that may be held, a hint; missing or empty,
//     the common case, it costs one open — and reads, under a shared
//     flock taken in the one order with its own records, the record of
//     each listed area that covers one of its paths. Another session's
//     fresh area refuses the path (HeldError.Via names the area); the
//     session's own lets it through, and the file is locked too, so that
//     agent-registry 0.2 agents locking that file are refused.
//   - An area acquire holds it exclusively: no file acquire or other area
//     acquire of the folder runs meanwhile. It scans every lock record
//     (records say their path), so it sees each record at or below its
//     area and each area around it; a fresh one of another session
//     refuses it, a stale one is freed in its own transaction only if it
//     still holds what the scan read (else the whole transaction runs
//     again), so that an owner renewing its stale lock meanwhile is seen.
//     It then writes its record and rewrites areas.list from the scan.
//
// So a file acquire and an area acquire over it never both win: whichever
// takes the folder's flock second sees the other's record. Two overlapping
// area acquires are serialised by the exclusive flock. Release, heartbeat
// and renewal change one record the session owns and need no folder lock.
//
// The registry follows the same rule with a document store: every write
// re-reads the document inside an exclusive section (a flock on
// registry.md.lock, since registry.md itself is replaced by rename), changes
// it, and replaces it whole, so no update is lost and readers always see a
// whole version.
//
// Staleness is the store's verdict on each record it reads (Slot.Liveness),
// never the engine's: etcd's leases keep its records alive; a lock file's
// stamp is a wall-clock Unix time compared across processes, judged by the
// reading process's file store with its timeout. A stamp further in the
// future than the timeout is stale too (no clock is that far off, and
// trusting it would make a lock permanent); one a little ahead counts as
// written now, so ages are never negative.
//
// # Compatibility
//
// The records and the registry are those of the Python agent-registry 0.2:
// both tools can share a lock folder and contend correctly. Locks are
// advisory: they protect the agents that consult them, not the writes of a
// program that ignores them.
package core
