package filestore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
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

// Transact implements store.Locks. It opens the lock files in the order of
// their names, flocks each one (shared for Read, exclusive otherwise),
// reads them all, calls decide with every flock held, and writes each
// record decide returned in place. Closing the files releases the flocks.
// In Create mode it also holds a shared flock on each lock folder, taken
// before any file, so that RemoveHome cannot delete a folder under it.
func (s *Locks) Transact(ctx context.Context, mode store.Mode, keys []store.Key, decide store.Decide) (err error) {
	items := make([]*slotFile, len(keys))
	byRef := map[string]int{}
	for i, k := range keys {
		ref, err := s.ref(k)
		if err != nil {
			return err
		}
		if j, dup := byRef[ref]; dup {
			return fmt.Errorf("%s and %s have the same lock file %s", keys[j].Path, k.Path, ref)
		}
		byRef[ref] = i
		k.Ref = ref
		items[i] = &slotFile{slot: store.Slot{Key: k}, dir: filepath.Dir(ref)}
	}
	// One fixed order — folders, then files, each by name — so that
	// transactions over overlapping sets never wait for each other in a
	// cycle.
	order := make([]*slotFile, len(items))
	copy(order, items)
	sort.Slice(order, func(a, b int) bool { return order[a].slot.Key.Ref < order[b].slot.Key.Ref })
	defer func() {
		if cerr := closeSlots(order); err == nil {
			err = cerr
		}
	}()
	if mode == store.Create {
		unlock, err := lockDirsShared(ctx, order, s.Wait)
		if err != nil {
			return err
		}
		defer unlock()
	}
	local := map[string]bool{} // folders found on a local file system
	for _, it := range order {
		f, err := openLockFile(it.slot.Key.Ref, it.dir, mode == store.Create, mode != store.Read)
		if errors.Is(err, fs.ErrNotExist) && mode != store.Create {
			continue // a missing lock file is a free lock
		}
		if err != nil {
			return fmt.Errorf("%s: %w", name(it.slot.Key), err)
		}
		it.f = f
		if !local[it.dir] {
			if err := checkLocal(f.fd, f.name); err != nil {
				return fmt.Errorf("%s: %w", name(it.slot.Key), err)
			}
			local[it.dir] = true
		}
		lt := writeLock
		if mode == store.Read {
			lt = readLock
		}
		if err := f.lock(ctx, lt, s.Wait); err != nil {
			return fmt.Errorf("%s: %w", name(it.slot.Key), err)
		}
	}
	slots := make([]store.Slot, len(items))
	for i, it := range items {
		if it.f != nil {
			it.slot.Record, it.slot.Written, it.slot.Err = readRecord(it.f, it.slot.Key)
		}
		slots[i] = it.slot
	}
	s.judge(slots)
	next, err := decide(slots)
	if err != nil || mode == store.Read {
		return err
	}
	if len(next) != len(items) {
		return fmt.Errorf("lock store: %d records decided for %d keys", len(next), len(items))
	}
	for i, it := range items {
		if next[i] == nil || (it.f == nil && next[i].Free()) {
			continue // freeing a lock that does not exist changes nothing
		}
		if it.f == nil {
			return fmt.Errorf("%s: lock store: cannot write a lock that does not exist in update mode", name(it.slot.Key))
		}
		it.written = true
		if err := writeRecord(it.f, *next[i]); err != nil {
			return fmt.Errorf("%s: %w", name(it.slot.Key), err)
		}
	}
	return nil
}

// lockDirsShared takes a shared flock on the folder of every item, in
// order, creating missing folders. It returns the function that releases
// them.
func lockDirsShared(ctx context.Context, order []*slotFile, wait time.Duration) (func(), error) {
	var held []*lockFile
	unlock := func() {
		for _, d := range held {
			d.close()
		}
	}
	seen := map[string]bool{}
	dirs := make([]string, 0, 1)
	for _, it := range order {
		if !seen[it.dir] {
			seen[it.dir] = true
			dirs = append(dirs, it.dir)
		}
	}
	sort.Strings(dirs)
	for _, dir := range dirs {
		d, err := lockDir(ctx, dir, readLock, true, wait)
		if err != nil {
			unlock()
			return nil, err
		}
		held = append(held, d)
	}
	return unlock, nil
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
