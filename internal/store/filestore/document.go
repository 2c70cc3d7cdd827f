package filestore

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"time"

	"github.com/agentlock/agentlock/internal/atomicfile"
	"github.com/agentlock/agentlock/internal/store"
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
func (d *Document) Read() ([]byte, error) {
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
func (d *Document) Edit(change func(old []byte) ([]byte, error)) error {
	lock, err := openSidecar(d.lockPath(), filepath.Dir(d.Path), d.Wait)
	if err != nil {
		return err
	}
	defer lock.Close()
	old, err := d.Read()
	if err != nil {
		return err
	}
	next, err := change(old)
	if err != nil || next == nil {
		return err
	}
	return atomicfile.Write(d.Path, next, 0o644)
}
