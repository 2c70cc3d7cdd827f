// Package atomicfile replaces a file's content so that a reader, or a crash,
// sees either the old content or the new, never a mix.
//
// It is the one writer that the registry, the integrations engine and the
// project set-up share. It does not serialise writers: callers that
// read-modify-write hold their own lock (registry.md.lock for the registry).
// Every Sync and Close error reaches the caller, wrapped with the path.
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Write replaces path with data: a temporary file in the same folder is
// written, given its permissions, fsynced and closed, then renamed over
// path, and the folder is fsynced so that the rename itself survives a
// crash. An existing file keeps its permission bits; a new one gets perm.
// An error before the rename leaves path as it was and removes the
// temporary file; after it, only making the rename durable failed.
// Before writing, Write removes the temporary files that an earlier write
// of the same path left behind (a writer killed before its rename) once they
// are older than StaleAge (see sweepStale); that is best effort.
func Write(path string, data []byte, perm fs.FileMode) error {
	return osOps().write(path, data, perm)
}

// MkdirAll creates dir and its missing parents (mode perm) and makes their
// creation durable: each new folder's parent is fsynced, from dir up to the
// parent of the first folder it created. Folders at or above root are never
// synced (root is where the caller's files live).
func MkdirAll(dir, root string, perm fs.FileMode) error {
	return osOps().mkdirAll(dir, root, perm)
}

// Remove deletes path, then its folders up to (not including) root while
// they are empty, and fsyncs the folder that remains.
func Remove(path, root string) error {
	return osOps().remove(path, root)
}

// syncCloser is an open file or folder that is made durable, then closed.
type syncCloser interface {
	Sync() error
	Close() error
}

// tempFile is what a write needs of the temporary *os.File.
type tempFile interface {
	syncCloser
	Write(p []byte) (int, error)
	Chmod(mode fs.FileMode) error
	Name() string
}

// ops are the calls whose failures must reach the caller; tests replace
// them to make Sync or Close fail.
type ops struct {
	createTemp func(dir, pattern string) (tempFile, error)
	openDir    func(dir string) (syncCloser, error)
}

// osOps are the real calls.
func osOps() ops {
	return ops{
		createTemp: func(dir, pattern string) (tempFile, error) {
			f, err := os.CreateTemp(dir, pattern)
			if err != nil {
				return nil, err // not a typed nil in an interface
			}
			return f, nil
		},
		openDir: func(dir string) (syncCloser, error) {
			f, err := os.Open(dir)
			if err != nil {
				return nil, err
			}
			return f, nil
		},
	}
}

func (o ops) write(path string, data []byte, perm fs.FileMode) (err error) {
	if info, statErr := os.Stat(path); statErr == nil {
		perm = info.Mode().Perm()
	} else if !errors.Is(statErr, fs.ErrNotExist) {
		return fmt.Errorf("write %s: %w", path, statErr)
	}
	dir := filepath.Dir(path)
	sweepStale(dir, filepath.Base(path), time.Now())
	tmp, err := o.createTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	closed := false
	defer func() {
		if err != nil {
			if !closed {
				tmp.Close() // the first error is the one to report
			}
			os.Remove(tmp.Name()) // the rename did not happen
		}
	}()
	// The content is complete, on disk and with its final permissions
	// before the rename makes it visible under path.
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("sync %s: %w", path, err)
	}
	closed = true
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("close %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return o.syncDir(dir)
}

func (o ops) mkdirAll(dir, root string, perm fs.FileMode) error {
	created := ""
	for d := dir; len(d) > len(root); d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		created = d
	}
	if created == "" {
		return nil
	}
	if err := os.MkdirAll(dir, perm); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	for d := dir; ; d = filepath.Dir(d) {
		parent := filepath.Dir(d)
		if err := o.syncDir(parent); err != nil {
			return err
		}
		if d == created {
			return nil
		}
	}
}

func (o ops) remove(path, root string) error {
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	// os.Remove fails on a folder that is not empty: the walk stops there.
	dir := filepath.Dir(path)
	for dir != root && len(dir) > len(root) && os.Remove(dir) == nil {
		dir = filepath.Dir(dir)
	}
	return o.syncDir(dir)
}

func (o ops) syncDir(dir string) error {
	d, err := o.openDir(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	if err := d.Sync(); err != nil {
		d.Close() // the Sync error is the one to report
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	if err := d.Close(); err != nil {
		return fmt.Errorf("close %s: %w", dir, err)
	}
	return nil
}

// StaleAge is how old a temporary file of this writer's naming must be
// before a write in its folder removes it. A write lasts milliseconds, so a
// temporary file minutes old was left by a writer that was killed; a
// younger one may belong to a writer still at work.
const StaleAge = 5 * time.Minute

// isTempName reports whether name is a temporary file of this writer for
// the file base: ".<base>.tmp-<digits>", the digits being os.CreateTemp's
// random part.
func isTempName(name, base string) bool {
	digits, ok := strings.CutPrefix(name, "."+base+".tmp-")
	if !ok || digits == "" {
		return false
	}
	for _, c := range digits {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// IsTempName reports whether name is a temporary file of this writer for
// some file: ".<base>.tmp-<digits>". Doctor uses it to find the ones a
// killed writer left.
func IsTempName(name string) bool {
	i := strings.LastIndex(name, ".tmp-")
	return strings.HasPrefix(name, ".") && i > 1 && isTempName(name, name[1:i])
}

// sweepStale removes, best effort, the regular files in dir that are this
// writer's temporary files for base and were last modified more than
// StaleAge before now: left by writers killed before their rename or
// removal. Only base's own temporary files are touched, so that another
// tool's files in a shared folder (a project's root) are never removed. A
// failure is ignored: the sweep is hygiene, never a reason for a write to
// fail.
func sweepStale(dir, base string, now time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !isTempName(e.Name(), base) || !e.Type().IsRegular() {
			continue
		}
		p := filepath.Join(dir, e.Name())
		// Lstat, not the entry's cached type alone: the file must still be
		// a regular file, not a link, when its age is judged.
		info, err := os.Lstat(p)
		if err != nil || !info.Mode().IsRegular() || now.Sub(info.ModTime()) <= StaleAge {
			continue
		}
		os.Remove(p)
	}
}
