package filestore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/agentlock/agentlock/internal/sys/atomicfile"
	"github.com/agentlock/agentlock/store"
)

// Document is a document store of one file, registry.md. Edits are
// serialised by an flock on the sidecar Path+".lock", which is created once
// and never renamed or deleted (but by RemoveHome); the file itself is
// replaced atomically, so that readers need no lock and always see a whole
// version.
type Document struct {
	// Path is the document's file; its folder is created on the first edit.
	Path string
	// Wait bounds the wait for another writer's lock (DefaultWait when
	// zero); past it, Edit fails with a *store.BusyError.
	Wait time.Duration
}

var _ store.Document = (*Document)(nil)

// Where implements store.Document: the file's path.
func (d *Document) Where() string { return d.Path }

// lockPath is the sidecar lock file.
func (d *Document) lockPath() string { return d.Path + ".lock" }

// maxDocumentSize bounds what Read reads: a registry is kilobytes; a huge
// file planted or grown by mistake must not exhaust memory.
const maxDocumentSize = 64 << 20

// Read implements store.Document. A missing file reads as nil. Anything
// but a regular file (a FIFO, which would block a plain open forever; a
// device) and a file over maxDocumentSize are refused with an error naming
// the file.
func (d *Document) Read(ctx context.Context) ([]byte, error) {
	f, err := openDocument(d.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", d.Path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxDocumentSize+1))
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", d.Path, err)
	}
	if len(data) > maxDocumentSize {
		return nil, fmt.Errorf("read %s: larger than %d MiB: not a registry agentlock wrote", d.Path, maxDocumentSize>>20)
	}
	return data, nil
}

// Edit implements store.Document: flock the sidecar, re-read the file under
// it (so what another writer wrote a moment ago is kept), change, write a
// temporary file, fsync, rename, fsync the folder, unlock.
func (d *Document) Edit(ctx context.Context, change func(old []byte) ([]byte, error)) error {
	lock, err := d.lockSidecar(ctx)
	if err != nil {
		return err
	}
	defer lock.Close()
	old, err := d.Read(ctx)
	if err != nil {
		return err
	}
	next, err := change(old)
	if err != nil || next == nil {
		return err
	}
	return atomicfile.Write(d.Path, next, 0o644)
}

// maxQueuedWaits bounds how many times in a row Edit waits Wait for the
// sidecar while other writers keep getting through: a queue of writers
// that long is not a queue any more.
const maxQueuedWaits = 12

// lockSidecar takes the sidecar's flock. Each wait is bounded by Wait,
// against a holder that is stopped or stuck; but a queue of writers that
// each hold the lock for a moment is progress, not a hang (many agents
// registering at once on a loaded machine): while the document keeps
// changing during a wait, the wait goes on, up to maxQueuedWaits waits.
func (d *Document) lockSidecar(ctx context.Context) (*os.File, error) {
	seen := d.version()
	for i := 0; ; i++ {
		f, err := openSidecar(ctx, d.lockPath(), filepath.Dir(d.Path), d.Wait)
		if !errors.Is(err, store.ErrBusy) || i+1 >= maxQueuedWaits {
			return f, err
		}
		now := d.version()
		if now == seen {
			return nil, err // nobody got through during a whole wait: stuck
		}
		seen = now
	}
}

// docVersion tells versions of the document apart: every edit replaces
// the file (a new inode) and sets its modification time.
type docVersion struct {
	ino   uint64
	mtime time.Time
	size  int64
}

// version is the document's current version; zero when it cannot be read.
func (d *Document) version() docVersion {
	info, err := os.Stat(d.Path)
	if err != nil {
		return docVersion{}
	}
	return docVersion{ino: fileID(info), mtime: info.ModTime(), size: info.Size()}
}
