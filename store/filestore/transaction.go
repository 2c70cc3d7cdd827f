package filestore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/agentlock/agentlock/store"
)

// tx is one transaction of the store: a Transact, or one attempt of a
// TransactAreas.
type tx struct {
	mode store.Mode
	keys []store.Key
	// areas is set for TransactAreas: the transaction flocks the lock
	// folders, reads their areas lists, and gives decide the records
	// related to its keys through an area.
	areas bool
	// exclusive is set for a TransactAreas that takes an area (an area key
	// in Create mode): it holds the folders exclusively, scans them, may
	// free the stale records around its areas, and rewrites the lists.
	exclusive bool
	decide    store.DecideAreas
}

// transact is the one lock transaction of the store, for files (Transact)
// and areas (TransactAreas): flock, read, let the engine decide, write,
// with every flock held from the first read to the last write. Closing the
// files and folders at the end drops the flocks. again is true when a
// stale record it was freeing changed meanwhile (its owner renewed it):
// the caller runs the whole transaction again.
//
// Every flock is taken in one fixed order — the folders by name, then the
// files by name — so that transactions over overlapping sets never wait
// for each other in a cycle.
func (s *Locks) transact(ctx context.Context, t tx) (again bool, err error) {
	// 1. The keys' lock files, each at most once (one transaction
	// flocking one file twice would wait for itself), and their folders.
	items, byRef, dirs, err := s.slotFiles(t.keys)
	if err != nil {
		return false, err
	}
	var folders []*lockFile // flocked folders
	var order []*slotFile   // lock files, in the order they are flocked
	// 9. Whatever happens, the lock files are closed first, which drops
	// their flocks (a written file's close error is the transaction's: on
	// some file systems that is where a write fails), then the folders.
	defer func() { err = closeAll(order, folders, err) }()

	// 2. The folders, before any file. A transaction that creates lock
	// files holds them shared, so that RemoveHome (which takes them
	// exclusively) never deletes a folder under it. An area-aware one holds
	// them shared too — exclusively when it takes an area — so that a
	// transaction taking an area runs wholly before or wholly after every
	// other one that reads areas; under that flock it reads each folder's
	// areas list, which names the areas that may be held there.
	var listed map[string][]string // folder -> areas it lists
	if t.areas || t.mode == store.Create {
		if folders, listed, err = s.lockFolders(ctx, t, dirs); err != nil {
			return false, err
		}
	}

	// 3. An area-aware transaction over an area scans the folders, under
	// their flock, for the records in or around its areas: a check of an
	// area sees what is held inside it; one taking an area sees every
	// record, to decide on those related to its keys and to rebuild the
	// lists from.
	related, scanned, err := s.scanAround(ctx, t, dirs, byRef)
	if err != nil {
		return false, err
	}

	// 4. The lock files, by name: the keys' (created in Create mode;
	// flocked exclusively unless the transaction only reads), and, for a
	// transaction that does not take an area, the listed areas that cover
	// one of its keys (never created, flocked shared). So an area record
	// is either written before this transaction reads it, or not until
	// this one is done.
	areaItems := coveringAreas(t, items, listed, byRef)
	order = slices.Concat(items, areaItems)
	sort.Slice(order, func(a, b int) bool { return order[a].slot.Key.Ref < order[b].slot.Key.Ref })
	if err := lockFiles(ctx, t.mode, order, s.Wait); err != nil {
		return false, err
	}

	// 5. Every record is read with every flock held, judged (fresh or
	// stale, by the store's clock), and the engine decides: the records
	// to write for the keys, and the stale records around an area to free.
	slots, related := readSlots(items, areaItems, related)
	s.judge(slots)
	s.judge(related)
	next, release, err := t.decide(slots, related)
	if err != nil || t.mode == store.Read {
		return false, err
	}
	if err := t.checkDecision(next, release); err != nil {
		return false, err
	}

	// 6. The stale records to free, each in a transaction of its own file
	// (this one holds the folders exclusively, so no other transaction
	// creates or reads an area meanwhile), and only if unchanged since
	// the scan: a changed one was renewed, and the decision is redone.
	freed, again, err := s.freeStale(ctx, release)
	if err != nil || again {
		return again, err
	}

	// 7. The records decide returned, written in place.
	if err := writeSlots(items, next); err != nil {
		return false, err
	}

	// 8. A transaction taking an area rewrites the areas lists of its
	// folders, from its scan and its own records, while it still holds
	// them exclusively.
	if t.exclusive {
		return false, s.rewriteAreas(ctx, dirs, scanned, items, byRef, next, freed, listed)
	}
	return false, nil
}

// checkDecision refuses what decide may not return: a record per key, and
// records to free only for a transaction taking an area.
func (t tx) checkDecision(next []*store.Record, release []store.Slot) error {
	if len(next) != len(t.keys) {
		return fmt.Errorf("lock store: %d records decided for %d keys", len(next), len(t.keys))
	}
	if len(release) > 0 && !t.exclusive {
		return fmt.Errorf("lock store: only a transaction over an area frees the records around it")
	}
	return nil
}

// slotFiles returns the slot of each key with its lock file (an error when
// two keys share one), the index of each lock file in keys, and their
// folders, sorted.
func (s *Locks) slotFiles(keys []store.Key) (items []*slotFile, byRef map[string]int, dirs []string, err error) {
	items = make([]*slotFile, len(keys))
	byRef = map[string]int{}
	for i, k := range keys {
		ref, err := s.ref(k)
		if err != nil {
			return nil, nil, nil, err
		}
		if j, dup := byRef[ref]; dup {
			return nil, nil, nil, fmt.Errorf("%s and %s have the same lock file %s", keys[j].Path, k.Path, ref)
		}
		byRef[ref] = i
		k.Ref = ref
		items[i] = &slotFile{slot: store.Slot{Key: k}, dir: filepath.Dir(ref)}
		if !slices.Contains(dirs, items[i].dir) {
			dirs = append(dirs, items[i].dir)
		}
	}
	sort.Strings(dirs)
	return items, byRef, dirs, nil
}

// lockFolders flocks dirs in order (see transact, step 2), creating them
// in Create mode; a folder missing in Read mode holds nothing and is
// skipped. For an area-aware transaction it returns each folder's areas
// list, read under the folder's flock.
func (s *Locks) lockFolders(ctx context.Context, t tx, dirs []string) (held []*lockFile, listed map[string][]string, err error) {
	lt := readLock
	if t.exclusive {
		lt = writeLock
	}
	listed = map[string][]string{}
	for _, dir := range dirs {
		d, err := lockDir(ctx, dir, lt, t.mode == store.Create, s.Wait)
		if t.mode == store.Read && errors.Is(err, fs.ErrNotExist) {
			continue // no lock folder: no areas, no records
		}
		if err != nil {
			return held, nil, err
		}
		held = append(held, d)
		if !t.areas {
			continue
		}
		if listed[dir], err = readAreas(ctx, dir, s.Wait); err != nil {
			return held, nil, err
		}
	}
	return held, listed, nil
}

// lockFiles opens and flocks the lock files of order, in order. A key's
// file is created in Create mode and flocked exclusively unless mode is
// Read; a covering area's (slotFile.area) is only read. A missing file
// that is not created is a free lock: it is left unopened. Each folder's
// file system is checked, once, for flock's exclusion.
func lockFiles(ctx context.Context, mode store.Mode, order []*slotFile, wait time.Duration) error {
	local := map[string]bool{} // folders found on a local file system
	for _, it := range order {
		create := mode == store.Create && !it.area
		write := mode != store.Read && !it.area
		f, err := openLockFile(it.slot.Key.Ref, it.dir, create, write)
		if errors.Is(err, fs.ErrNotExist) && !create {
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
		lt := readLock
		if write {
			lt = writeLock
		}
		if err := f.lock(ctx, lt, wait); err != nil {
			return fmt.Errorf("%s: %w", name(it.slot.Key), err)
		}
	}
	return nil
}

// readSlots reads the records of items, the keys', and of areaItems, the
// covering areas (see transact, step 5), from their flocked files. It
// returns the keys' slots, and related with the covering areas that are
// held or unreadable.
func readSlots(items, areaItems []*slotFile, related []store.Slot) (slots, _ []store.Slot) {
	slots = make([]store.Slot, len(items))
	for i, it := range items {
		slots[i] = it.read()
		if it.f != nil {
			// Read only while the transaction holds the lock file.
			ref, session := it.slot.Key.Ref, slots[i].Record.Session
			slots[i].Beside = func() (store.Taken, error) { return readTaken(ref, session) }
		}
	}
	for _, a := range areaItems {
		if slot := a.read(); slot.Err != nil || !slot.Record.Free() {
			related = append(related, slot)
		}
	}
	return slots, related
}

// closeAll closes the lock files of order, then the folders (see
// transact, step 9), and returns err, or else the first close error of a
// written file.
func closeAll(order []*slotFile, folders []*lockFile, err error) error {
	if cerr := closeSlots(order); err == nil {
		err = cerr
	}
	for _, d := range folders {
		d.close()
	}
	return err
}

// read returns the slot of it with the record of its flocked file (none
// when the file does not exist).
func (it *slotFile) read() store.Slot {
	if it.f != nil {
		it.slot.Record, it.slot.Written, it.slot.Err = readRecord(it.f, it.slot.Key)
	}
	return it.slot
}

// writeSlots writes next[i] into the file of items[i], in place; a nil
// record leaves it as it is, and freeing a lock that does not exist
// changes nothing.
func writeSlots(items []*slotFile, next []*store.Record) error {
	for i, it := range items {
		if next[i] == nil || (it.f == nil && next[i].Free()) {
			continue
		}
		if it.f == nil {
			return fmt.Errorf("%s: lock store: cannot write a lock that does not exist in update mode", name(it.slot.Key))
		}
		it.written = true
		// The note beside first: a kill in between leaves a note that
		// names another session than the record, which reads as unknown.
		if err := writeTaken(it.slot.Key.Ref, *next[i]); err != nil {
			return fmt.Errorf("%s: %w", name(it.slot.Key), err)
		}
		if err := writeRecord(it.f, *next[i]); err != nil {
			return fmt.Errorf("%s: %w", name(it.slot.Key), err)
		}
	}
	return nil
}
