// Package atomicfile replaces a file's content so that a reader, or a crash,
// sees either the old content or the new, never a mix.
//
// It is the one writer that the registry, the integrations engine and the
// project set-up share. It does not serialise writers: callers that
// read-modify-write hold their own lock (registry.md.lock for the registry).
package atomicfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// Write replaces path with data: a temporary file in the same folder is
// written, given its permissions, fsynced and closed, then renamed over
// path, and the folder is fsynced so that the rename itself survives a
// crash. An existing file keeps its permission bits; a new one gets perm.
// On any error path is left as it was and the temporary file is removed.
func Write(path string, data []byte, perm fs.FileMode) (err error) {
	if info, statErr := os.Stat(path); statErr == nil {
		perm = info.Mode().Perm()
	} else if !errors.Is(statErr, fs.ErrNotExist) {
		return fmt.Errorf("write %s: %w", path, statErr)
	}
	dir := filepath.Dir(path)
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()           // may already be closed: the error is irrelevant then
			os.Remove(tmp.Name()) // the rename did not happen
		}
	}()
	// CreateTemp makes the file 0600; the mode is set before the content is
	// visible under path, so no reader ever sees the wrong permissions.
	if err := tmp.Chmod(perm); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return SyncDir(dir)
}

// SyncDir fsyncs a folder, making the creation, rename or removal of its
// entries durable.
func SyncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	if err := d.Sync(); err != nil {
		d.Close()
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	if err := d.Close(); err != nil {
		return fmt.Errorf("sync %s: %w", dir, err)
	}
	return nil
}
