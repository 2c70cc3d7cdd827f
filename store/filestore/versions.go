package filestore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/agentlock/agentlock/store"
)

var _ store.Versions = (*Locks)(nil)

// VersionsDirName is the folder, inside a lock folder, that holds the read
// versions of the paths locked there (issue 34): one file per session
// (VersionsFileName) and one per changed path (ChangesFileName). It is not
// a lock file: scans, and agent-registry 0.2's scripts, never list it.
const VersionsDirName = "versions"

// versionsExt and changesExt end the names of the files of VersionsDirName.
const (
	versionsExt = ".seen"
	changesExt  = ".changed"
)

// VersionsFileName is the name of a session's versions file:
// "session-", the first 16 hexadecimal digits of the SHA-256 of the
// session id, then ".seen".
func VersionsFileName(session string) string {
	sum := sha256.Sum256([]byte(session))
	return "session-" + hex.EncodeToString(sum[:8]) + versionsExt
}

// ChangesFileName is the name of the file that records the last changes of
// a path: its lock file's name with ".changed" for ".lock".
func ChangesFileName(realPath string) string {
	return strings.TrimSuffix(LockFileName(realPath), ".lock") + changesExt
}

// maxVersionsSize bounds what is read of a versions or changes file:
// about 50,000 versions.
const maxVersionsSize = 16 << 20

// versionsHeader starts a session's versions file, for people.
const versionsHeader = "# agentlock: what this session last read of each file (docs/read-versions.md)"

// versionsDir is the versions folder of the lock folder of a path.
func (s *Locks) versionsDir(path string) (string, error) {
	dir, err := s.DirFor(path)
	if err != nil {
		return "", fmt.Errorf("lock folder for %s: %w", path, err)
	}
	return filepath.Join(dir, VersionsDirName), nil
}

// byVersionsDir groups paths by the versions folder that keeps them, in
// the order first met.
func (s *Locks) byVersionsDir(paths []string) (dirs []string, by map[string][]string, err error) {
	if s.DirFor == nil {
		return nil, nil, errors.New("read versions: no lock folder configured")
	}
	by = map[string][]string{}
	for _, p := range paths {
		dir, err := s.versionsDir(p)
		if err != nil {
			return nil, nil, err
		}
		if _, ok := by[dir]; !ok {
			dirs = append(dirs, dir)
		}
		by[dir] = append(by[dir], p)
	}
	return dirs, by, nil
}

// sessionFile is the content of a session's versions file.
type sessionFile struct {
	since    time.Time
	versions []store.Version
	// damaged are the lines that cannot be decoded, with their damage.
	damaged []damagedLine
}

type damagedLine struct {
	line []byte
	err  *store.DamagedError
}

// parseSessionFile reads a versions file's content, ref naming it.
func parseSessionFile(ref string, data []byte) sessionFile {
	var f sessionFile
	seen := map[string]bool{} // the paths of f.versions
	for line := range bytes.Lines(data) {
		line = bytes.TrimRight(line, "\n")
		switch {
		case len(line) == 0 || line[0] == '#':
		case store.IsSince(line):
			t, err := store.DecodeSince(ref, line)
			if err != nil {
				f.damaged = append(f.damaged, damagedLine{slices.Clone(line), err.(*store.DamagedError)})
				continue
			}
			f.since = t
		default:
			v, err := store.DecodeVersion(ref, line)
			if err != nil {
				f.damaged = append(f.damaged, damagedLine{slices.Clone(line), err.(*store.DamagedError)})
				continue
			}
			if seen[v.Path] {
				// A path recorded twice (never written so) keeps its last:
				// the scan only then, not for every line.
				f.versions = slices.DeleteFunc(f.versions, func(x store.Version) bool { return x.Path == v.Path })
			}
			seen[v.Path] = true
			f.versions = append(f.versions, v)
		}
	}
	return f
}

// encode renders a versions file.
func (f sessionFile) encode(session string) ([]byte, error) {
	var b bytes.Buffer
	b.WriteString(versionsHeader + "\n")
	if !f.since.IsZero() {
		b.Write(store.EncodeSince(f.since))
		b.WriteByte('\n')
	}
	for _, v := range f.versions {
		line, err := store.EncodeVersion(v)
		if err != nil {
			return nil, fmt.Errorf("the version of %s for %s: %w", v.Path, session, err)
		}
		b.Write(line)
		b.WriteByte('\n')
	}
	for _, d := range f.damaged {
		b.Write(d.line)
		b.WriteByte('\n')
	}
	return b.Bytes(), nil
}

// See implements store.Versions: in the versions file of session in each
// path's versions folder, changed in place under its exclusive flock like
// a session's index (never renamed, so every process contends on one
// inode). A version replaces the session's version of its path and any
// damaged line about it; damaged lines whose path cannot be read are
// dropped, since they can be about no path any more once rewritten.
func (s *Locks) See(ctx context.Context, session string, since time.Time, vs []store.Version) error {
	paths := make([]string, len(vs))
	for i, v := range vs {
		paths[i] = v.Path
	}
	dirs, by, err := s.byVersionsDir(paths)
	if err != nil {
		return err
	}
	if len(dirs) == 0 && !since.IsZero() {
		dirs = []string{filepath.Join(s.ScanDir, VersionsDirName)}
	}
	for _, dir := range dirs {
		mine := by[dir]
		err := s.editFile(ctx, filepath.Join(dir, VersionsFileName(session)), dir, func(ref string, data []byte) ([]byte, error) {
			f := parseSessionFile(ref, data)
			if f.since.IsZero() {
				f.since = since
			}
			for _, v := range vs {
				if !slices.Contains(mine, v.Path) {
					continue
				}
				f.versions = slices.DeleteFunc(f.versions, func(x store.Version) bool { return x.Path == v.Path })
				f.versions = append(f.versions, v)
			}
			f.damaged = slices.DeleteFunc(f.damaged, func(d damagedLine) bool {
				return d.err.Path == "" || slices.Contains(mine, d.err.Path)
			})
			return f.encode(session)
		})
		if err != nil {
			return fmt.Errorf("read versions: %w", err)
		}
	}
	return nil
}

// Seen implements store.Versions: the versions file of session in each
// key's versions folder (with no keys, ScanDir's), read under a shared
// flock. A missing file is no version.
func (s *Locks) Seen(ctx context.Context, session string, keys []store.Key) (store.View, error) {
	var view store.View
	dirs, by, err := s.byVersionsDir(keyPaths(keys))
	if err != nil {
		return view, err
	}
	all := len(keys) == 0
	if all {
		dirs = []string{filepath.Join(s.ScanDir, VersionsDirName)}
	}
	for _, dir := range dirs {
		ref := filepath.Join(dir, VersionsFileName(session))
		data, err := s.readFile(ctx, ref)
		if err != nil {
			return view, fmt.Errorf("read versions: %w", err)
		}
		f := parseSessionFile(ref, data)
		if view.Since.IsZero() || !f.since.IsZero() && f.since.Before(view.Since) {
			view.Since = f.since
		}
		for _, v := range f.versions {
			if all || slices.Contains(by[dir], v.Path) {
				view.Versions = append(view.Versions, v)
			}
		}
		for _, d := range f.damaged {
			if all || d.err.Path == "" || slices.Contains(by[dir], d.err.Path) {
				view.Damaged = append(view.Damaged, d.err)
			}
		}
	}
	return view, nil
}

// Forget implements store.Versions: it removes the versions file of
// session in ScanDir's versions folder. Only that session's own hooks
// write it, and it is finishing.
func (s *Locks) Forget(ctx context.Context, session string) error {
	file := filepath.Join(s.ScanDir, VersionsDirName, VersionsFileName(session))
	if err := os.Remove(file); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("forget the read versions of %s: %w", session, err)
	}
	return nil
}

// Change implements store.Versions: the changes file of each path, in its
// versions folder, keeps one line per kind (the last edit, hold and
// release), changed in place under its exclusive flock.
func (s *Locks) Change(ctx context.Context, cs []store.Change) error {
	for _, c := range cs {
		dir, err := s.versionsDir(c.Path)
		if err != nil {
			return err
		}
		line, err := store.EncodeChange(c)
		if err != nil {
			return fmt.Errorf("the change of %s: %w", c.Path, err)
		}
		err = s.editFile(ctx, filepath.Join(dir, ChangesFileName(c.Path)), dir, func(ref string, data []byte) ([]byte, error) {
			var b bytes.Buffer
			for old := range bytes.Lines(data) {
				old = bytes.TrimRight(old, "\n")
				got, err := store.DecodeChange(ref, old)
				// Kept: the other kind's whole line. Dropped: this kind's,
				// and damage, which this write repairs.
				if err == nil && got.Kind != c.Kind && got.Path == c.Path {
					b.Write(old)
					b.WriteByte('\n')
				}
			}
			b.Write(line)
			b.WriteByte('\n')
			return b.Bytes(), nil
		})
		if err != nil {
			return fmt.Errorf("record a change: %w", err)
		}
	}
	return nil
}

// Changed implements store.Versions: the changes file of each key's path,
// read under a shared flock.
func (s *Locks) Changed(ctx context.Context, keys []store.Key) ([]store.Change, []*store.DamagedError, error) {
	var out []store.Change
	var damaged []*store.DamagedError
	for _, k := range keys {
		dir, err := s.versionsDir(k.Path)
		if err != nil {
			return nil, nil, err
		}
		ref := filepath.Join(dir, ChangesFileName(k.Path))
		data, err := s.readFile(ctx, ref)
		if err != nil {
			return nil, nil, fmt.Errorf("read changes: %w", err)
		}
		cs, ds := parseChanges(ref, data, k.Path)
		out = append(out, cs...)
		damaged = append(damaged, ds...)
	}
	return out, damaged, nil
}

// parseChanges reads a changes file of path.
func parseChanges(ref string, data []byte, path string) ([]store.Change, []*store.DamagedError) {
	var out []store.Change
	var damaged []*store.DamagedError
	for line := range bytes.Lines(data) {
		line = bytes.TrimRight(line, "\n")
		if len(line) == 0 || line[0] == '#' {
			continue
		}
		c, err := store.DecodeChange(ref, line)
		if err == nil && path != "" && c.Path != path {
			err = &store.DamagedError{Ref: ref, Path: path, Reason: fmt.Sprintf("records %s, not this file's path", store.Clip(c.Path))}
		}
		if err != nil {
			d := err.(*store.DamagedError)
			if d.Path == "" {
				d.Path = path
			}
			damaged = append(damaged, d)
			continue
		}
		out = append(out, c)
	}
	return out, damaged
}

// Damaged implements store.Versions: every file of ScanDir's versions
// folder, read under a shared flock.
func (s *Locks) Damaged(ctx context.Context) ([]*store.DamagedError, error) {
	dir := filepath.Join(s.ScanDir, VersionsDirName)
	names, err := readDirNames(dir)
	if err != nil {
		return nil, err
	}
	var out []*store.DamagedError
	for _, n := range names {
		ref := filepath.Join(dir, n)
		var ds []*store.DamagedError
		switch {
		case strings.HasSuffix(n, versionsExt):
			data, err := s.readFile(ctx, ref)
			if err != nil {
				out = append(out, &store.DamagedError{Ref: ref, Reason: err.Error()})
				continue
			}
			for _, d := range parseSessionFile(ref, data).damaged {
				ds = append(ds, d.err)
			}
		case strings.HasSuffix(n, changesExt):
			data, err := s.readFile(ctx, ref)
			if err != nil {
				out = append(out, &store.DamagedError{Ref: ref, Reason: err.Error()})
				continue
			}
			_, ds = parseChanges(ref, data, "")
		}
		out = append(out, ds...)
	}
	return out, nil
}

// IsVersionsFileName reports whether name, in a versions folder, is one of
// agentlock's: a session's versions or a path's changes.
func IsVersionsFileName(name string) bool {
	return strings.HasPrefix(name, "session-") && strings.HasSuffix(name, versionsExt) || strings.HasSuffix(name, changesExt)
}

// readDirNames lists a folder; a missing one is empty.
func readDirNames(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read versions: %w", err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		names = append(names, e.Name())
	}
	return names, nil
}

// readFile reads a versions or changes file under a shared flock; a
// missing one is empty.
func (s *Locks) readFile(ctx context.Context, file string) ([]byte, error) {
	f, err := openLockFile(file, filepath.Dir(file), false, false)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.close()
	if err := f.lock(ctx, readLock, s.Wait); err != nil {
		return nil, err
	}
	data, err := f.readAll(maxVersionsSize)
	if err != nil {
		return nil, err
	}
	if len(data) > maxVersionsSize {
		return nil, fmt.Errorf("%s: larger than %d MiB", file, maxVersionsSize>>20)
	}
	return data, nil
}

// editFile runs one read-modify-write of a versions or changes file under
// its exclusive flock, creating it (and dir); change gets the file's name
// and content and returns the new content. Nothing is written when the
// content is the same.
func (s *Locks) editFile(ctx context.Context, file, dir string, change func(ref string, data []byte) ([]byte, error)) error {
	f, err := openLockFile(file, dir, true, true)
	if err != nil {
		return err
	}
	closed := false
	defer func() {
		if !closed {
			f.close()
		}
	}()
	if err := f.lock(ctx, writeLock, s.Wait); err != nil {
		return err
	}
	data, err := f.readAll(maxVersionsSize)
	if err != nil {
		return err
	}
	if len(data) > maxVersionsSize {
		// Too large to be ours whole: started again, which loses only
		// what agentlock could not read anyway.
		data = nil
	}
	next, err := change(file, data)
	if err != nil {
		return err
	}
	if bytes.Equal(next, data) {
		return nil
	}
	if err := f.replace(next); err != nil {
		return err
	}
	// Closing drops the flock; on some file systems it is where a write
	// fails.
	closed = true
	return f.close()
}

// keyPaths returns the paths of keys.
func keyPaths(keys []store.Key) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = k.Path
	}
	return out
}
