package filestore

import (
	"context"
	"fmt"
	"path/filepath"
	"time"

	"github.com/agentlock/agentlock/store"
)

// maxLockFileSize bounds what is read from a lock file. A record is one short
// line; anything larger is not a lock record.
const maxLockFileSize = 64 << 10

// Locks is a lock store of lock files: the lock of a real path is the file
// LockFileName(path) in the lock folder DirFor(path). It holds no state
// between calls and is safe for concurrent use by goroutines and processes,
// including agent-registry 0.2's Python scripts sharing the folder.
type Locks struct {
	// DirFor returns the lock folder for a real path. Paths of different
	// projects may have different folders.
	DirFor func(realPath string) (string, error)
	// ScanDir is the lock folder that Scan lists.
	ScanDir string
	// Wait bounds every wait for another process's flock (DefaultWait when
	// zero); past it, the operation fails with a *store.BusyError.
	Wait time.Duration
	// Timeout is the age after which a record that nobody renewed is
	// stale (store.DefaultTimeout when zero): the store's verdict on each record
	// it reads (store.Slot.Liveness).
	Timeout time.Duration
	// Now is the clock of those verdicts; nil means time.Now.
	Now func() time.Time
	// Document is the registry's file, whose folder the change feed
	// watches with the lock folder (see Changes); empty for none.
	Document string
}

var _ store.Locks = (*Locks)(nil)

// slotFile is one record of a transaction: its slot and its open file.
type slotFile struct {
	slot store.Slot
	dir  string
	f    *lockFile // nil when the file does not exist (Read and Update)
	// written is set once a record was written into f.
	written bool
	// area is set for an area read along with the keys (one that covers
	// a key of a file transaction): its file is only read, never created.
	area bool
}

// ref returns the lock file of k.
func (s *Locks) ref(k store.Key) (string, error) {
	if k.Ref != "" {
		return k.Ref, nil
	}
	if s.DirFor == nil {
		return "", fmt.Errorf("lock %s: no lock folder configured", k.Path)
	}
	dir, err := s.DirFor(k.Path)
	if err != nil {
		return "", fmt.Errorf("lock folder for %s: %w", k.Path, err)
	}
	return filepath.Join(dir, LockFileName(k.Path)), nil
}

// Transact implements store.Locks, through the store's one transaction
// (transact): it opens the lock files in the order of their names, flocks
// each one (shared for Read, exclusive otherwise), reads them all, calls
// decide with every flock held, and writes each record decide returned in
// place. Closing the files releases the flocks. In Create mode it also
// holds a shared flock on each lock folder, taken before any file, so that
// RemoveHome cannot delete a folder under it.
func (s *Locks) Transact(ctx context.Context, mode store.Mode, keys []store.Key, decide store.Decide) error {
	_, err := s.transact(ctx, tx{mode: mode, keys: keys, decide: func(slots, _ []store.Slot) ([]*store.Record, []store.Slot, error) {
		next, err := decide(slots)
		return next, nil, err
	}})
	return err
}

// name is how a key is named in errors: its path, else its lock file.
func name(k store.Key) string {
	if k.Path != "" {
		return k.Path
	}
	return k.Ref
}

// Scan implements store.Locks: every *.lock file of ScanDir. An empty file
// is a free lock, known from its status alone; the others are read under a
// shared flock. A missing folder holds no locks.
func (s *Locks) Scan(ctx context.Context) ([]store.Slot, error) {
	slots, err := scanDir(ctx, s.ScanDir, s.Wait)
	s.judge(slots)
	for i := range slots {
		if slots[i].Err == nil && !slots[i].Record.Free() {
			slots[i].Beside = s.scannedTaken(ctx, slots[i].Key.Ref, slots[i].Record)
		}
	}
	return slots, err
}

// readRecord reads and parses the whole content of a lock file opened and
// locked by lock, and returns when it was last written (its modification
// time).
func readRecord(f *lockFile, k store.Key) (store.Record, time.Time, error) {
	rec, err := parseFile(f, k)
	return rec, f.modTime(), err
}

// parseFile reads and parses the whole content of a locked lock file.
func parseFile(f *lockFile, k store.Key) (store.Record, error) {
	data, err := f.readAll(maxLockFileSize)
	if err != nil {
		return store.Record{}, err
	}
	return parseContent(data, f.name, k)
}

// parseContent parses the content data of the lock file ref for the key k.
func parseContent(data []byte, ref string, k store.Key) (store.Record, error) {
	corrupt := func(reason string) error { return store.NewCorruptError(ref, data, reason) }
	if len(data) > maxLockFileSize {
		return store.Record{}, corrupt("larger than any lock record")
	}
	rec, err := store.DecodeRecord(data)
	if err != nil {
		return store.Record{}, corrupt(err.Error())
	}
	rec.Path = recordPath(rec.Path, filepath.Base(ref))
	if rec.Path != "" && k.Path != "" && rec.Path != k.Path {
		return store.Record{}, corrupt(fmt.Sprintf("records path %s, not %s", rec.Path, k.Path))
	}
	// A lock file's name is the hash of the path it guards, so a record
	// read without a path to compare (a scan) still proves its path: one
	// that does not hash to the name is damage — most often a record torn
	// by a kill between its write and its cut, the tail of a longer one
	// after it — never a lock on that bogus path.
	if rec.Path != "" && LockFileName(rec.Path) != filepath.Base(ref) {
		return store.Record{}, corrupt(fmt.Sprintf("records path %s, which is not the path of this lock file (a torn or moved record)", store.Clip(rec.Path)))
	}
	return rec, nil
}

// writeRecord replaces the content of an open lock file in place: write from
// offset 0, then cut the file to the new length. The file is never unlinked
// or renamed, so every process keeps contending on the same inode. The
// caller holds an exclusive flock on it.
//
// A process killed between the write and the cut leaves the new record
// followed by the tail of a longer old one ("b|ts|/p/f56789" over
// "a|ts|/p/f56789|..."): content that does not parse. No order of these two
// steps avoids that without emptying the lock for a moment (cut first) or
// renaming the file (forbidden). So the engine judges such content by the
// file's modification time, which this write set: unwritten for longer than
// the timeout, it is stale and taken over, like a record of a dead owner.
func writeRecord(f *lockFile, rec store.Record) error {
	return f.replace(store.EncodeRecord(rec))
}

// closeSlots closes the open lock files of slots, which drops their
// flocks. A file that was written reports its close error, the first one
// returned: on some file systems that is where a write fails.
func closeSlots(slots []*slotFile) error {
	var first error
	for _, it := range slots {
		if it.f == nil {
			continue
		}
		if cerr := it.f.close(); cerr != nil && it.written && first == nil {
			first = fmt.Errorf("%s: %w", name(it.slot.Key), cerr)
		}
	}
	return first
}
