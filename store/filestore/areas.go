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
		again, err := s.transactAreas(ctx, mode, exclusive, keys, decide)
		if !again {
			return err
		}
		if attempt == areaAttempts {
			return fmt.Errorf("lock store: the records below an area kept changing while it was taken; try again")
		}
	}
}

// transactAreas is one attempt of TransactAreas. again is true when a
// stale record to free changed meanwhile: the caller runs it again.
func (s *Locks) transactAreas(ctx context.Context, mode store.Mode, exclusive bool, keys []store.Key, decide store.DecideAreas) (again bool, err error) {
	items := make([]*slotFile, len(keys))
	byRef := map[string]int{}
	var dirs []string
	for i, k := range keys {
		ref, err := s.ref(k)
		if err != nil {
			return false, err
		}
		if j, dup := byRef[ref]; dup {
			return false, fmt.Errorf("%s and %s have the same lock file %s", keys[j].Path, k.Path, ref)
		}
		byRef[ref] = i
		k.Ref = ref
		items[i] = &slotFile{slot: store.Slot{Key: k}, dir: filepath.Dir(ref)}
		if !slices.Contains(dirs, items[i].dir) {
			dirs = append(dirs, items[i].dir)
		}
	}
	sort.Strings(dirs)
	var held []*lockFile
	var order []*slotFile
	defer func() {
		if cerr := closeSlots(order); err == nil {
			err = cerr
		}
		for _, d := range held {
			d.close()
		}
	}()
	// The folders first, in order: shared, or exclusive for an area.
	listed := map[string][]string{} // folder -> areas it lists
	for _, dir := range dirs {
		lt := readLock
		if exclusive {
			lt = writeLock
		}
		d, err := lockDir(ctx, dir, lt, mode == store.Create, s.Wait)
		if mode == store.Read && errors.Is(err, fs.ErrNotExist) {
			continue // no lock folder: no areas, no records
		}
		if err != nil {
			return false, err
		}
		held = append(held, d)
		if listed[dir], err = readAreas(ctx, dir, s.Wait); err != nil {
			return false, err
		}
	}
	var related []store.Slot
	var scanned []store.Slot
	if mode == store.Read && slices.ContainsFunc(keys, func(k store.Key) bool { return store.IsArea(k.Path) }) {
		// A check of an area: what is held inside it, as it stands.
		for _, dir := range dirs {
			slots, err := scanDir(ctx, dir, s.Wait)
			if err != nil {
				return false, err
			}
			for _, slot := range slots {
				if _, own := byRef[slot.Key.Ref]; !own && slot.Err == nil && !slot.Record.Free() && relatedTo(slot.Record.Path, keys) {
					related = append(related, slot)
				}
			}
		}
	}
	if exclusive {
		for _, dir := range dirs {
			slots, err := scanDir(ctx, dir, s.Wait)
			if err != nil {
				return false, err
			}
			scanned = append(scanned, slots...)
		}
		for _, slot := range scanned {
			if _, own := byRef[slot.Key.Ref]; own {
				continue
			}
			if slot.Err != nil || relatedTo(slot.Record.Path, keys) {
				related = append(related, slot) // unreadable: the engine judges
			}
		}
	}
	order = make([]*slotFile, len(items), len(items)+4)
	copy(order, items)
	var areaItems []*slotFile
	if !exclusive {
		// The listed areas that cover a key, read with the keys.
		for _, it := range items {
			for _, area := range listed[it.dir] {
				ref := filepath.Join(it.dir, LockFileName(area))
				if area == it.slot.Key.Path || !store.Covers(area, it.slot.Key.Path) || slices.ContainsFunc(areaItems, func(a *slotFile) bool { return a.slot.Key.Ref == ref }) {
					continue
				}
				if _, own := byRef[ref]; own {
					continue
				}
				a := &slotFile{slot: store.Slot{Key: store.Key{Path: area, Ref: ref}}, dir: it.dir}
				areaItems = append(areaItems, a)
				order = append(order, a)
			}
		}
	}
	sort.Slice(order, func(a, b int) bool { return order[a].slot.Key.Ref < order[b].slot.Key.Ref })
	local := map[string]bool{}
	for _, it := range order {
		own := !slices.Contains(areaItems, it)
		create := mode == store.Create && own
		f, err := openLockFile(it.slot.Key.Ref, it.dir, create, create)
		if errors.Is(err, fs.ErrNotExist) && !create {
			continue // a missing lock file is a free lock
		}
		if err != nil {
			return false, fmt.Errorf("%s: %w", name(it.slot.Key), err)
		}
		it.f = f
		if !local[it.dir] {
			if err := checkLocal(f.fd, f.name); err != nil {
				return false, fmt.Errorf("%s: %w", name(it.slot.Key), err)
			}
			local[it.dir] = true
		}
		lt := writeLock
		if !create {
			lt = readLock
		}
		if err := f.lock(ctx, lt, s.Wait); err != nil {
			return false, fmt.Errorf("%s: %w", name(it.slot.Key), err)
		}
	}
	read := func(it *slotFile) store.Slot {
		if it.f != nil {
			it.slot.Record, it.slot.Written, it.slot.Err = readRecord(it.f, it.slot.Key)
		}
		return it.slot
	}
	slots := make([]store.Slot, len(items))
	for i, it := range items {
		slots[i] = read(it)
	}
	for _, a := range areaItems {
		if slot := read(a); slot.Err != nil || !slot.Record.Free() {
			related = append(related, slot)
		}
	}
	s.judge(slots)
	s.judge(related)
	next, release, err := decide(slots, related)
	if err != nil || mode == store.Read {
		return false, err
	}
	if len(next) != len(items) {
		return false, fmt.Errorf("lock store: %d records decided for %d keys", len(next), len(items))
	}
	if len(release) > 0 && !exclusive {
		return false, fmt.Errorf("lock store: only a transaction over an area frees the records around it")
	}
	freed := map[string]bool{}
	for _, r := range release {
		freed[r.Key.Ref] = true
		changed, err := s.releaseIfUnchanged(ctx, r)
		if err != nil || changed {
			return changed, err
		}
	}
	for i, it := range items {
		if next[i] == nil {
			continue
		}
		it.written = true
		if err := writeRecord(it.f, *next[i]); err != nil {
			return false, fmt.Errorf("%s: %w", name(it.slot.Key), err)
		}
	}
	if !exclusive {
		return false, nil
	}
	// The list, rebuilt from the scan: every area held, plus the keys.
	for _, dir := range dirs {
		var areas []string
		for _, slot := range scanned {
			if _, own := byRef[slot.Key.Ref]; !own && slot.Err == nil && !slot.Record.Free() &&
				store.IsArea(slot.Record.Path) && filepath.Dir(slot.Key.Ref) == dir && !freed[slot.Key.Ref] {
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
		areas = slices.Compact(areas)
		if !slices.Equal(areas, listed[dir]) {
			if err := writeAreas(ctx, dir, areas, s.Wait); err != nil {
				return false, err
			}
		}
	}
	return false, nil
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
