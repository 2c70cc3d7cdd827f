package filestore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/agentlock/agentlock/store"
)

// How a session took a lock (store.Taken) is kept beside its lock file,
// never in it: the lock file holds agent-registry 0.2's record, byte for
// byte. The note is a file of its own, the lock file's name followed by
// ".taken", holding "<session>|<how>" ("claude-1|hook"). It is written and
// read only under the lock file's flock, so it changes with the record in
// one critical section: written before the record, so that a process
// killed in between leaves a note that names the new session over a
// record of the old one, which reads as TakenUnknown (explicit, the safe
// side), as does a note that names another session than the record, no
// note at all (a record of agent-registry 0.2, or of an older agentlock),
// or a note that cannot be read.

// takenExt ends the name of a lock's note beside it. It is not ".lock",
// so that scans, and agent-registry 0.2's scripts, never take one for a
// lock.
const takenExt = ".taken"

// TakenFileName is the name of the note beside the lock file lockName.
func TakenFileName(lockName string) string { return lockName + takenExt }

// IsTakenFileName reports whether name is the name of a note beside a
// lock file: a lock file's name followed by ".taken".
func IsTakenFileName(name string) bool {
	lock, ok := strings.CutSuffix(name, takenExt)
	return ok && filepath.Ext(lock) == ".lock"
}

// maxTakenSize bounds what is read of a note: a session id and a word.
const maxTakenSize = 4 << 10

// encodeTaken is the content of the note saying that session took a lock
// how.
func encodeTaken(session string, how store.Taken) []byte {
	return []byte(session + "|" + how.String())
}

// decodeTaken reads a note for the record of session: TakenUnknown when
// it names another session, or is not a note.
func decodeTaken(data []byte, session string) store.Taken {
	i := bytes.LastIndexByte(data, '|')
	if i < 0 || string(data[:i]) != session {
		return store.TakenUnknown
	}
	return store.ParseTaken(string(data[i+1:]))
}

// readTaken reads the note beside the lock file ref for the record of
// session. The caller holds the lock file's flock.
func readTaken(ref, session string) (store.Taken, error) {
	f, err := openLockFile(TakenFileName(ref), filepath.Dir(ref), false, false)
	if errors.Is(err, fs.ErrNotExist) {
		return store.TakenUnknown, nil
	}
	if err != nil {
		return store.TakenUnknown, fmt.Errorf("how the lock was taken: %w", err)
	}
	defer f.close()
	if err := f.stat(); err != nil {
		return store.TakenUnknown, fmt.Errorf("how the lock was taken: %w", err)
	}
	data, err := f.readAll(maxTakenSize)
	if err != nil {
		return store.TakenUnknown, fmt.Errorf("how the lock was taken: %w", err)
	}
	return decodeTaken(data, session), nil
}

// writeTaken writes the note beside the lock file ref for rec, about to
// be written there: how rec's session took it; for a free record, an
// empty note (when there is one). A record that does not say how it was
// taken leaves the note as it is. The caller holds the lock file's
// exclusive flock.
func writeTaken(ref string, rec store.Record) error {
	free := rec.Free()
	if !free && rec.Taken == store.TakenUnknown {
		return nil
	}
	f, err := openLockFile(TakenFileName(ref), filepath.Dir(ref), !free, true)
	if free && errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("note how the lock was taken: %w", err)
	}
	if err := f.stat(); err != nil {
		f.close()
		return fmt.Errorf("note how the lock was taken: %w", err)
	}
	var data []byte
	if !free {
		data = encodeTaken(rec.Session, rec.Taken)
	}
	if err := f.replace(data); err != nil {
		f.close()
		return fmt.Errorf("note how the lock was taken: %w", err)
	}
	if err := f.close(); err != nil {
		return fmt.Errorf("note how the lock was taken: %w", err)
	}
	return nil
}

// scannedTaken is the Beside of a record a scan read from the lock file
// ref: it reads the note under the lock file's shared flock, when the
// record there is still the one the scan read; ctx bounds the wait for
// the flock.
func (s *Locks) scannedTaken(ctx context.Context, ref string, read store.Record) func() (store.Taken, error) {
	return func() (store.Taken, error) {
		f, err := openLockFile(ref, filepath.Dir(ref), false, false)
		if errors.Is(err, fs.ErrNotExist) {
			return store.TakenUnknown, nil
		}
		if err != nil {
			return store.TakenUnknown, err
		}
		defer f.close()
		if err := f.lock(ctx, readLock, s.Wait); err != nil {
			return store.TakenUnknown, err
		}
		now, err := parseFile(f, store.Key{Ref: ref})
		if err != nil || now.Session != read.Session || !now.Stamp.Equal(read.Stamp) {
			return store.TakenUnknown, nil // changed since: not the scan's record
		}
		return readTaken(ref, read.Session)
	}
}
