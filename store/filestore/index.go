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

	"github.com/agentlock/agentlock/store"
)

var _ store.Index = (*Locks)(nil)

// indexExt ends the name of a session's index file. It is not ".lock", so
// that scans, and agent-registry 0.2's scripts, never take one for a lock.
const indexExt = ".held"

// IndexFileName is the name of the file, in a lock folder, that lists the
// lock files a session acquired in that folder: "session-" and the first 16
// hexadecimal digits of the SHA-256 of the session id, then ".held".
func IndexFileName(session string) string {
	sum := sha256.Sum256([]byte(session))
	return "session-" + hex.EncodeToString(sum[:8]) + indexExt
}

// IsIndexFileName reports whether name has the form of IndexFileName.
func IsIndexFileName(name string) bool {
	hexPart, ok := strings.CutPrefix(name, "session-")
	if !ok {
		return false
	}
	hexPart, ok = strings.CutSuffix(hexPart, indexExt)
	if !ok || len(hexPart) != 16 {
		return false
	}
	_, err := hex.DecodeString(hexPart)
	return err == nil
}

// Note implements store.Index: it adds the lock file of each key to the
// index file of session in the key's lock folder, one name a line. The
// index file is changed in place under its own exclusive flock, like a
// lock file (never renamed, so that every process contends on one inode),
// and is not written when it already names every lock file: renewing a
// held lock, the common case, costs an open, a flock and a read.
func (s *Locks) Note(ctx context.Context, session string, keys []store.Key) error {
	byDir := map[string][]string{}
	var dirs []string
	for _, k := range keys {
		ref, err := s.ref(k)
		if err != nil {
			return err
		}
		dir := filepath.Dir(ref)
		if _, ok := byDir[dir]; !ok {
			dirs = append(dirs, dir)
		}
		byDir[dir] = append(byDir[dir], filepath.Base(ref))
	}
	for _, dir := range dirs {
		err := s.editIndex(ctx, dir, session, true, func(ix index) (index, error) {
			for _, n := range byDir[dir] {
				if !slices.Contains(ix.names, n) {
					ix.names = append(ix.names, n)
				}
			}
			return ix, nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// Noted implements store.Index on the index file of session in ScanDir,
// the folder Scan lists. The first visit (the file is missing, or was only
// ever written by Note) is told the list is not complete; the file then
// records that it is, on a first line indexHeader. A missing ScanDir holds
// no locks and gets no index.
func (s *Locks) Noted(ctx context.Context, session string, visit func(keys []store.Key, complete bool) ([]store.Key, error)) error {
	create := true
	if _, err := os.Stat(s.ScanDir); errors.Is(err, fs.ErrNotExist) {
		create = false
	}
	return s.editIndex(ctx, s.ScanDir, session, create, func(ix index) (index, error) {
		keys := make([]store.Key, len(ix.names))
		for i, n := range ix.names {
			keys[i] = store.Key{Ref: filepath.Join(s.ScanDir, n)}
		}
		keep, err := visit(keys, ix.complete)
		if err != nil {
			return ix, err
		}
		next := index{complete: true, names: make([]string, 0, len(keep))}
		for _, k := range keep {
			if n := filepath.Base(k.Ref); filepath.Dir(k.Ref) == s.ScanDir && !slices.Contains(next.names, n) {
				next.names = append(next.names, n)
			}
		}
		return next, nil
	})
}

// index is the content of an index file.
type index struct {
	// complete is set once a renewal found the session's locks by a scan
	// (the file starts with indexHeader).
	complete bool
	names    []string // lock file names, in the order they were noted
}

// indexHeader is the first line of an index file that lists every lock
// its session acquired since a scan found the ones before, followed by a
// space and the digest of the names listed (namesDigest): a file that lost
// or changed names no longer matches it and is read as not complete, so
// the next renewal finds the session's locks by a scan again and rewrites
// it. (A header without a digest, or with another, is damage too.)
const indexHeader = "# agentlock session index: complete"

// namesDigest is the digest of an index's names that its header carries:
// their number and the first 16 hexadecimal digits of the SHA-256 of the
// names, one a line.
func namesDigest(names []string) string {
	h := sha256.New()
	for _, n := range names {
		h.Write([]byte(n + "\n"))
	}
	return fmt.Sprintf("%d-%s", len(names), hex.EncodeToString(h.Sum(nil)[:8]))
}

// editIndex runs one read-modify-write of the index file of session in
// dir under its exclusive flock: change gets what it lists and returns
// what to list (an error writes nothing). The file is created (with dir)
// when create is set; otherwise a missing one lists nothing and stays
// missing.
func (s *Locks) editIndex(ctx context.Context, dir, session string, create bool, change func(index) (index, error)) error {
	file := filepath.Join(dir, IndexFileName(session))
	f, err := openLockFile(file, dir, create, true)
	if err != nil {
		if !create && errors.Is(err, fs.ErrNotExist) {
			_, err := change(index{})
			return err
		}
		return fmt.Errorf("session index: %w", err)
	}
	closed := false
	defer func() {
		if !closed {
			f.close()
		}
	}()
	if err := f.lock(ctx, writeLock, s.Wait); err != nil {
		return fmt.Errorf("session index: %w", err)
	}
	data, err := f.readAll(maxIndexSize)
	if err != nil {
		return fmt.Errorf("session index: %w", err)
	}
	old := parseIndex(data)
	next, err := change(index{complete: old.complete, names: slices.Clone(old.names)})
	if err != nil {
		return err
	}
	if next.complete == old.complete && slices.Equal(next.names, old.names) {
		return nil // nothing changed: nothing written
	}
	if err := f.replace(next.encode()); err != nil {
		return fmt.Errorf("session index: %w", err)
	}
	// Closing drops the flock; on some file systems it is where a write
	// fails.
	closed = true
	if err := f.close(); err != nil {
		return fmt.Errorf("session index: %w", err)
	}
	return nil
}

// maxIndexSize bounds what is read of an index file: about 40,000 names.
const maxIndexSize = 1 << 20

// parseIndex reads an index file. Lines that are not the name of a lock
// file of the folder (damage) are dropped: the list is a hint that its
// reader verifies.
func parseIndex(data []byte) index {
	var ix index
	digest, headed := "", false
	for line := range bytes.Lines(data) {
		n := string(bytes.TrimSpace(line))
		if d, ok := strings.CutPrefix(n, indexHeader); ok && !headed {
			digest, headed = strings.TrimSpace(d), true
			continue
		}
		if n == "" || filepath.Ext(n) != ".lock" || filepath.Base(n) != n || slices.Contains(ix.names, n) {
			continue
		}
		ix.names = append(ix.names, n)
	}
	ix.complete = headed && digest == namesDigest(ix.names)
	return ix
}

// encode returns the content of the index file of ix.
func (ix index) encode() []byte {
	var buf bytes.Buffer
	if ix.complete {
		buf.WriteString(indexHeader + " " + namesDigest(ix.names) + "\n")
	}
	for _, n := range ix.names {
		buf.WriteString(n)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}
