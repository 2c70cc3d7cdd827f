package filestore

import (
	"bytes"
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

var _ store.Areas = (*Locks)(nil)

// AreasFileName is the name of the file, in a lock folder, that lists the
// real paths of the areas that may be held there, one a line. It is a hint
// that spares a file transaction a scan: readers verify each area against
// its own lock record, and area transactions rewrite it from a scan. It is
// not ".lock", so that scans, and agent-registry 0.2's scripts, never take
// it for a lock.
const AreasFileName = "areas.list"

// areaAttempts bounds how often an area transaction runs again because a
// stale record it was freeing changed meanwhile (its owner renewed it).
const areaAttempts = 8

// maxAreasSize bounds what is read of an areas file.
const maxAreasSize = 1 << 20

// TransactAreas implements store.Areas. The lock folder's flock serialises
// it with the other transactions that create lock files:
//
//   - A transaction without an area key (a file acquire, a check) holds
//     the folder's flock shared, as Transact does in Create mode, reads
//     AreasFileName (missing or empty: nothing more to read), and flocks
//     the lock files of the listed areas that cover one of its keys
//     (shared) together with its own (in one order, by file name), so an
//     area is either written before it reads the area's record or not
//     written until it is done.
//   - A transaction with an area key holds the folder's flock
//     exclusively: no file transaction runs meanwhile. It scans every lock
//     file of the folder, which gives the records at or below its areas
//     and the areas that overlap them, frees the stale ones decide names,
//     flocks and reads its own keys, writes what decide returned, and
//     rewrites AreasFileName from the scan: every area record that is not
//     free, plus its own.
func (s *Locks) TransactAreas(ctx context.Context, mode store.Mode, keys []store.Key, decide store.DecideAreas) error {
	if mode != store.Read && mode != store.Create {
		return fmt.Errorf("lock store: an area-aware transaction reads or creates, mode %d", mode)
	}
	exclusive := false
	for _, k := range keys {
		if store.IsArea(k.Path) {
			exclusive = mode == store.Create
		}
	}
	for attempt := 0; ; attempt++ {
		again, err := s.transact(ctx, tx{mode: mode, keys: keys, areas: true, exclusive: exclusive, decide: decide})
		if !again {
			return err
		}
		if attempt == areaAttempts {
			return fmt.Errorf("lock store: the records below an area kept changing while it was taken; try again")
		}
	}
}

// scanAround scans the folders of an area-aware transaction over an area
// (see transact, step 3). A check of an area (Read) gets, related, the
// records held by others inside or around it, as they stand. A transaction
// taking an area gets every record of its folders (scanned), and, related,
// those of others that overlap one of its keys or cannot be read (the
// engine judges them). Other transactions scan nothing.
func (s *Locks) scanAround(ctx context.Context, t tx, dirs []string, byRef map[string]int) (related, scanned []store.Slot, err error) {
	checksArea := t.areas && t.mode == store.Read && slices.ContainsFunc(t.keys, func(k store.Key) bool { return store.IsArea(k.Path) })
	if !checksArea && !t.exclusive {
		return nil, nil, nil
	}
	for _, dir := range dirs {
		slots, err := scanDir(ctx, dir, s.Wait)
		if err != nil {
			return nil, nil, err
		}
		scanned = append(scanned, slots...)
	}
	for _, slot := range scanned {
		if _, own := byRef[slot.Key.Ref]; own {
			continue
		}
		if checksArea && slot.Err == nil && !slot.Record.Free() && relatedTo(slot.Record.Path, t.keys) ||
			t.exclusive && (slot.Err != nil || relatedTo(slot.Record.Path, t.keys)) {
			related = append(related, slot) // unreadable: the engine judges
		}
	}
	if !t.exclusive {
		scanned = nil
	}
	return related, scanned, nil
}

// coveringAreas returns, for a transaction that does not take an area,
// the areas listed in the folders of items that cover one of their keys
// (see transact, step 4), each once, without the keys themselves.
func coveringAreas(t tx, items []*slotFile, listed map[string][]string, byRef map[string]int) []*slotFile {
	if t.exclusive {
		return nil
	}
	var areas []*slotFile
	for _, it := range items {
		for _, area := range listed[it.dir] {
			ref := filepath.Join(it.dir, LockFileName(area))
			if area == it.slot.Key.Path || !store.Covers(area, it.slot.Key.Path) || slices.ContainsFunc(areas, func(a *slotFile) bool { return a.slot.Key.Ref == ref }) {
				continue
			}
			if _, own := byRef[ref]; own {
				continue
			}
			areas = append(areas, &slotFile{slot: store.Slot{Key: store.Key{Path: area, Ref: ref}}, dir: it.dir, area: true})
		}
	}
	return areas
}

// rewriteAreas rewrites the areas list of each folder of dirs, held
// exclusively, when it changed (see transact, step 8): every area record
// of others the scan found held and that was not freed, plus the keys'
// areas that are held once next is written.
func (s *Locks) rewriteAreas(ctx context.Context, dirs []string, scanned []store.Slot, items []*slotFile, byRef map[string]int, next []*store.Record, freed map[string]bool, listed map[string][]string) error {
	for _, dir := range dirs {
		var areas []string
		for _, slot := range scanned {
			if _, own := byRef[slot.Key.Ref]; !own && filepath.Dir(slot.Key.Ref) == dir && !freed[slot.Key.Ref] && heldArea(slot.Record, slot.Err) {
				areas = append(areas, slot.Record.Path)
			}
		}
		for i, it := range items {
			rec := it.slot.Record
			if next[i] != nil {
				rec = *next[i]
			}
			if it.dir == dir && store.IsArea(it.slot.Key.Path) && !rec.Free() {
				areas = append(areas, it.slot.Key.Path)
			}
		}
		sort.Strings(areas)
		if areas = slices.Compact(areas); slices.Equal(areas, listed[dir]) {
			continue
		}
		if err := writeAreas(ctx, dir, areas, s.Wait); err != nil {
			return err
		}
	}
	return nil
}

// heldArea reports whether rec, read with err, is a held area.
func heldArea(rec store.Record, err error) bool {
	return err == nil && !rec.Free() && store.IsArea(rec.Path)
}

// freeStale frees the stale records of release (see transact, step 6),
// each only if unchanged since it was read, and returns the lock files it
// freed; again is true when one changed meanwhile.
func (s *Locks) freeStale(ctx context.Context, release []store.Slot) (freed map[string]bool, again bool, err error) {
	freed = map[string]bool{}
	for _, r := range release {
		freed[r.Key.Ref] = true
		changed, err := s.releaseIfUnchanged(ctx, r)
		if err != nil || changed {
			return nil, changed, err
		}
	}
	return freed, false, nil
}

// relatedTo reports whether a record's path excludes or is excluded by
// one of keys through an area.
func relatedTo(path string, keys []store.Key) bool {
	if path == "" {
		return false // a 0.1.0 record does not say its path
	}
	for _, k := range keys {
		if store.Overlap(path, k.Path) {
			return true
		}
	}
	return false
}

// releaseIfUnchanged frees the record of r when it still holds what r
// read, and reports whether it changed meanwhile.
func (s *Locks) releaseIfUnchanged(ctx context.Context, r store.Slot) (changed bool, err error) {
	err = s.Transact(ctx, store.Update, []store.Key{{Ref: r.Key.Ref}}, func(slots []store.Slot) ([]*store.Record, error) {
		now := slots[0]
		if now.Err != nil || now.Record.Session != r.Record.Session || !now.Record.Stamp.Equal(r.Record.Stamp) || now.Record.Path != r.Record.Path {
			changed = true
			return []*store.Record{nil}, nil
		}
		return []*store.Record{{}}, nil
	})
	if err != nil {
		return false, fmt.Errorf("free the stale lock %s: %w", name(r.Key), err)
	}
	return changed, nil
}

// readAreas reads the areas file of the lock folder dir, whose flock the
// caller holds. A missing file lists nothing.
func readAreas(ctx context.Context, dir string, wait time.Duration) ([]string, error) {
	file := filepath.Join(dir, AreasFileName)
	f, err := openLockFile(file, dir, false, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("areas list: %w", err)
	}
	defer f.close()
	if err := f.lock(ctx, readLock, wait); err != nil {
		return nil, fmt.Errorf("areas list: %w", err)
	}
	data, err := f.readAll(maxAreasSize)
	if err != nil {
		return nil, fmt.Errorf("areas list: %w", err)
	}
	var areas []string
	for line := range bytes.Lines(data) {
		area := string(bytes.TrimSuffix(line, []byte("\n")))
		if store.IsArea(area) && filepath.IsAbs(area) {
			areas = append(areas, area)
		}
	}
	sort.Strings(areas)
	return slices.Compact(areas), nil
}

// writeAreas replaces the areas file of the lock folder dir, whose flock
// the caller holds exclusively, in place.
func writeAreas(ctx context.Context, dir string, areas []string, wait time.Duration) error {
	file := filepath.Join(dir, AreasFileName)
	f, err := openLockFile(file, dir, true, true)
	if err != nil {
		return fmt.Errorf("areas list: %w", err)
	}
	if err := f.lock(ctx, writeLock, wait); err != nil {
		f.close()
		return fmt.Errorf("areas list: %w", err)
	}
	var buf bytes.Buffer
	for _, a := range areas {
		buf.WriteString(a)
		buf.WriteByte('\n')
	}
	if err := f.replace(buf.Bytes()); err != nil {
		f.close()
		return fmt.Errorf("areas list: %w", err)
	}
	if err := f.close(); err != nil {
		return fmt.Errorf("areas list: %w", err)
	}
	return nil
}
