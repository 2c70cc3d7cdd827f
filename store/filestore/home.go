package filestore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// RemoveHome deletes the folder home, which holds the lock folder locks
// and the document doc, when check allows it. check runs while no process
// can take a new lock in locks (RemoveHome holds its folder's flock
// exclusively, and every transaction that creates lock files holds it
// shared) and no edit of doc can run (RemoveHome holds doc's sidecar lock):
// what check sees stays true until the folder is gone. check must only read.
// A process that was waiting for either lock opens the folder again after
// the removal and recreates what it needs.
func RemoveHome(ctx context.Context, home, locks string, doc *Document, check func() error) error {
	if _, err := os.Lstat(home); errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if _, err := os.Stat(locks); err == nil {
		d, err := lockDir(ctx, locks, writeLock, false, doc.Wait)
		if err != nil {
			return fmt.Errorf("remove %s: %w", home, err)
		}
		defer d.close()
	}
	if _, err := os.Stat(filepath.Dir(doc.Path)); err == nil {
		lock, err := openSidecar(ctx, doc.lockPath(), filepath.Dir(doc.Path), doc.Wait)
		if err != nil {
			return fmt.Errorf("remove %s: %w", home, err)
		}
		defer lock.Close()
	}
	if err := check(); err != nil {
		return err
	}
	if err := os.RemoveAll(home); err != nil {
		return fmt.Errorf("remove %s: %w", home, err)
	}
	return nil
}
