package integrations

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

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

// fileOps are the calls of a write whose failures must reach the caller;
// tests replace them to make Sync or Close fail.
type fileOps struct {
	createTemp func(dir, pattern string) (tempFile, error)
	openDir    func(dir string) (syncCloser, error)
}

// osOps are the real calls.
var osOps = fileOps{
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

// Write applies c. New content goes to a temporary file in the same folder
// that is renamed over the file (keeping its permissions), so that a
// reader, or a crash, sees the old content or the new, never a mix. A
// deleted file's folders are removed when it leaves them empty, up to the
// root. Every error, including one from Sync or Close, is returned wrapped
// with the path; an error before the rename leaves the file as it was
// (after it, only syncing the folder failed: the change may not survive a
// crash). Write does not serialise writers: of two processes writing one
// file at once, one's content is left.
func (e Engine) Write(c Change) error {
	return e.write(c, osOps)
}

func (e Engine) write(c Change, ops fileOps) error {
	if !c.Changed() {
		return nil
	}
	root := e.root(c.Artifact.Scope)
	if c.Delete {
		return remove(c.Path, root, ops)
	}
	mode := c.Artifact.Mode
	if mode == 0 {
		mode = 0o644
	}
	if info, err := os.Stat(c.Path); err == nil {
		mode = info.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("write %s: %w", c.Path, err)
	}
	dir := filepath.Dir(c.Path)
	created := missingAncestor(dir, root)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	if err := replace(c.Path, c.New, mode, ops); err != nil {
		return err
	}
	// The rename is durable once the file's folder is synced; a folder
	// MkdirAll created is durable once its parent is.
	for d := dir; ; d = filepath.Dir(d) {
		if err := syncDir(d, ops); err != nil {
			return err
		}
		if created == "" || d == filepath.Dir(created) || len(d) <= len(root) {
			return nil
		}
	}
}

// replace writes data to a temporary file beside path and renames it over
// path. The steps go in this order so that the content is complete and on
// disk, with its final permissions, before the rename makes it visible.
func replace(path string, data []byte, mode fs.FileMode, ops fileOps) (err error) {
	tmp, err := ops.createTemp(filepath.Dir(path), "."+filepath.Base(path)+".agentlock-*")
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
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
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
	return nil
}

// remove deletes path, then its folders up to root while they are empty,
// and syncs the first folder that remains, whose entry list changed.
func remove(path, root string, ops fileOps) error {
	if err := os.Remove(path); err != nil {
		return fmt.Errorf("remove %s: %w", path, err)
	}
	// os.Remove fails on a folder that is not empty: the walk stops there.
	dir := filepath.Dir(path)
	for dir != root && len(dir) > len(root) && os.Remove(dir) == nil {
		dir = filepath.Dir(dir)
	}
	return syncDir(dir, ops)
}

// missingAncestor returns the topmost folder of dir, below root, that does
// not exist yet ("" when dir exists).
func missingAncestor(dir, root string) string {
	missing := ""
	for d := dir; len(d) > len(root); d = filepath.Dir(d) {
		if _, err := os.Lstat(d); err == nil {
			break
		}
		missing = d
	}
	return missing
}

// syncDir makes the creation, rename or removal of dir's entries durable.
func syncDir(dir string, ops fileOps) error {
	d, err := ops.openDir(dir)
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
