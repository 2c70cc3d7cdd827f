package core

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"syscall"
	"time"
)

// DefaultTimeout is how long a lock stays valid after its last renewal when
// the caller sets no timeout; it is agent-registry 0.2's default.
const DefaultTimeout = 120 * time.Second

// maxLockFileSize bounds what is read from a lock file. A record is one short
// line; anything larger is not a lock record.
const maxLockFileSize = 64 << 10

// Locker is the lock manager. A lock gives one session the right to change
// one path until the session releases it or stops renewing it for longer
// than Timeout. Its state lives in the content of a lock file, so it outlives
// the short process that took it; flock(2) serialises each read-modify-write
// of that content and is never held once a method returns.
//
// Lock files are never deleted, renamed or replaced: release empties the
// file in place. A Locker holds no state between calls and is safe for
// concurrent use by goroutines and by any number of processes, including the
// agent-registry 0.2 Python scripts pointed at the same lock directory.
//
// Locks are advisory: they protect the agents that consult them, not the
// writes of a program that ignores them.
type Locker struct {
	// LockDir returns the lock directory for a real path. It is called on
	// every operation, so configuration may change between calls. Use
	// StaticDir for a fixed directory.
	LockDir func(realPath string) (string, error)
	// Timeout is the age after which an unrenewed lock is stale and may be
	// taken by another session; zero means DefaultTimeout.
	Timeout time.Duration
	// Now is the clock; nil means time.Now. Timestamps are compared across
	// processes, so it must be the wall clock in production.
	Now func() time.Time
	// Cwd is the folder relative paths are taken from; empty means the
	// process working directory.
	Cwd string
}

// StaticDir returns a LockDir function that always answers dir.
func StaticDir(dir string) func(string) (string, error) {
	return func(string) (string, error) { return dir, nil }
}

// Lease is a lock held by a session, as written on disk.
type Lease struct {
	Path    string    // real path of the locked file
	File    string    // lock file that holds the state
	Session string    // owner
	Stamp   time.Time // last renewal
	// StaleOwner is the session whose expired lock this acquisition took
	// over, if any.
	StaleOwner string
	// Renewed is true when the session already held the lock and the
	// acquisition only renewed it.
	Renewed bool
}

// State is what a lock file says about a path at one instant.
type State struct {
	Path  string        // real path (from the request, or from the file in a listing)
	File  string        // lock file
	Owner string        // session recorded in the file; empty when free
	Stamp time.Time     // last renewal; zero when free
	Age   time.Duration // time since the last renewal
	Left  time.Duration // time until the lock is stale (zero or negative once stale)
	Stale bool          // an owner is recorded but the lock has expired
	// Legacy is true for the two-field agent-registry 0.1.0 format, which
	// does not record the path.
	Legacy bool
}

// Locked reports whether a session holds a valid (fresh) lock.
func (s State) Locked() bool { return s.Owner != "" && !s.Stale }

// Check is the answer of CheckAndWarn: whether the calling session may
// change the path, and why not.
type Check struct {
	State
	// OK is true when the path is free, stale, or held by the caller.
	OK bool
	// Warning explains a refusal, or a stale lock that an acquire would take
	// over; empty otherwise.
	Warning string
}

// target is a path resolved to its lock file.
type target struct {
	path string // real path
	dir  string // lock directory
	file string // lock file
}

func (l *Locker) timeout() time.Duration {
	if l.Timeout <= 0 {
		return DefaultTimeout
	}
	return l.Timeout
}

// now returns the clock's time at the precision a lock file records, so that
// a Lease and the file it describes agree.
func (l *Locker) now() time.Time {
	now := time.Now
	if l.Now != nil {
		now = l.Now
	}
	return now().Round(time.Microsecond)
}

// resolve computes the lock identity of path.
func (l *Locker) resolve(path string) (target, error) {
	real, err := RealPath(path, l.Cwd)
	if err != nil {
		return target{}, err
	}
	if l.LockDir == nil {
		return target{}, fmt.Errorf("lock %s: no lock directory configured", real)
	}
	dir, err := l.LockDir(real)
	if err != nil {
		return target{}, fmt.Errorf("lock directory for %s: %w", real, err)
	}
	return target{path: real, dir: dir, file: filepath.Join(dir, LockFileName(real))}, nil
}

// state judges a record read from t's lock file.
func (l *Locker) state(t target, rec record, now time.Time) State {
	s := State{Path: t.path, File: t.file}
	if rec.free() {
		return s
	}
	s.Owner, s.Stamp, s.Legacy = rec.session, rec.stamp, rec.path == ""
	if s.Path == "" {
		s.Path = rec.path // a listing learns the path from the file
	}
	s.Age = now.Sub(rec.stamp)
	s.Left = l.timeout() - s.Age
	s.Stale = s.Age > l.timeout()
	return s
}

// Acquire takes the lock on path for session, or renews it when session
// already holds it. A stale lock of another session is taken over and its
// owner reported in Lease.StaleOwner. When another session holds a fresh
// lock, Acquire changes nothing and returns a *HeldError (errors.Is
// ErrLocked) naming it. The lock directory is created when missing.
func (l *Locker) Acquire(path, session string) (Lease, error) {
	leases, err := l.AcquireAll([]string{path}, session)
	if err != nil {
		return Lease{}, err
	}
	return leases[0], nil
}

// AcquireAll takes the locks on all paths for session, or none of them. It
// takes flock on every lock file in one fixed order (sorted by lock file),
// decides with all of them held, and writes all records or none: two
// sessions asking for overlapping sets can neither deadlock nor end up each
// holding part of what they asked for. The leases come back in the order of
// paths (a path named twice is locked once). When any path is held by
// another session the error joins one *HeldError per held path.
func (l *Locker) AcquireAll(paths []string, session string) ([]Lease, error) {
	if err := ValidateSession(session); err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("acquire: no path given")
	}
	targets := make([]target, len(paths))
	byFile := map[string]int{} // lock file -> index into unique
	var unique []target
	for i, p := range paths {
		t, err := l.resolve(p)
		if err != nil {
			return nil, fmt.Errorf("acquire %s: %w", p, err)
		}
		targets[i] = t
		if _, ok := byFile[t.file]; !ok {
			byFile[t.file] = len(unique)
			unique = append(unique, t)
		}
	}
	order := make([]int, len(unique))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return unique[order[a]].file < unique[order[b]].file })

	files := make([]*os.File, len(unique))
	defer func() {
		// Closing a descriptor releases its flock; nothing else to undo,
		// since records are written only once every lock is known free.
		for _, f := range files {
			if f != nil {
				f.Close()
			}
		}
	}()
	for _, i := range order {
		f, err := openLockFile(unique[i], true)
		if err != nil {
			return nil, fmt.Errorf("acquire %s: %w", unique[i].path, err)
		}
		files[i] = f
		if err := flock(f, writeLock); err != nil {
			return nil, fmt.Errorf("acquire %s: %w", unique[i].path, err)
		}
	}

	// Read and judge every lock under the flock: a stale lock is taken over
	// only by the process that re-read it here, so two takers are
	// serialised and the second sees the first as a fresh owner.
	now := l.now()
	leases := make([]Lease, len(unique))
	var refusals []error
	for i, t := range unique {
		rec, err := readRecord(files[i], t)
		if err != nil {
			return nil, fmt.Errorf("acquire %s: %w", t.path, err)
		}
		s := l.state(t, rec, now)
		leases[i] = Lease{Path: t.path, File: t.file, Session: session, Stamp: now}
		switch {
		case s.Owner == "":
		case s.Owner == session:
			leases[i].Renewed = true
		case s.Stale:
			leases[i].StaleOwner = s.Owner
		default:
			refusals = append(refusals, &HeldError{Path: t.path, Owner: s.Owner, Age: s.Age, Left: s.Left})
		}
	}
	if len(refusals) > 0 {
		return nil, errors.Join(refusals...)
	}
	for i, t := range unique {
		if err := writeRecord(files[i], record{session: session, stamp: now, path: t.path}); err != nil {
			// Records written before this one stay: undoing them could
			// fail the same way. The caller sees the error and may release.
			return nil, fmt.Errorf("acquire %s: %w", t.path, err)
		}
	}
	out := make([]Lease, len(paths))
	for i, t := range targets {
		out[i] = leases[byFile[t.file]]
	}
	return out, nil
}

// Release frees the lock on path held by session, emptying the lock file in
// place, and returns the state it released. A path with no lock returns a
// free State (Owner empty) and no error: releasing is idempotent. A lock held
// by another session, fresh or stale, is left untouched and a
// *NotOwnerError returned.
func (l *Locker) Release(path, session string) (State, error) {
	if err := ValidateSession(session); err != nil {
		return State{}, err
	}
	var released State
	err := l.edit(path, func(t target, s State) (*record, error) {
		released = s
		switch s.Owner {
		case "":
			return nil, nil
		case session:
			return &record{}, nil
		default:
			return nil, &NotOwnerError{Path: t.path, Owner: s.Owner}
		}
	})
	if err != nil {
		return State{}, fmt.Errorf("release: %w", err)
	}
	return released, nil
}

// ForceRelease empties the lock file of path whoever owns it, even when its
// content is corrupt, and returns what it held. It is for people clearing a
// lock by hand; agents use Release.
func (l *Locker) ForceRelease(path string) (State, error) {
	t, err := l.resolve(path)
	if err != nil {
		return State{}, fmt.Errorf("force release %s: %w", path, err)
	}
	f, err := openLockFile(t, false)
	if errors.Is(err, fs.ErrNotExist) {
		return State{Path: t.path, File: t.file}, nil
	}
	if err != nil {
		return State{}, fmt.Errorf("force release %s: %w", t.path, err)
	}
	defer f.Close()
	if err := flock(f, writeLock); err != nil {
		return State{}, fmt.Errorf("force release %s: %w", t.path, err)
	}
	rec, readErr := readRecord(f, t)
	if err := writeRecord(f, record{}); err != nil {
		return State{}, fmt.Errorf("force release %s: %w", t.path, err)
	}
	if readErr != nil {
		return State{Path: t.path, File: t.file}, nil
	}
	return l.state(t, rec, l.now()), nil
}

// Heartbeat renews the lock on path held by session, so that its age starts
// again from zero. It fails with ErrNoLock when the path has no lock (and
// creates nothing), and with a *NotOwnerError when another session holds it.
// A session may renew its own lock even after it went stale, as long as no
// other session has taken it over.
func (l *Locker) Heartbeat(path, session string) (Lease, error) {
	if err := ValidateSession(session); err != nil {
		return Lease{}, err
	}
	var lease Lease
	err := l.edit(path, func(t target, s State) (*record, error) {
		switch s.Owner {
		case "":
			return nil, fmt.Errorf("%s: %w", t.path, ErrNoLock)
		case session:
			now := l.now()
			lease = Lease{Path: t.path, File: t.file, Session: session, Stamp: now, Renewed: true}
			return &record{session: session, stamp: now, path: t.path}, nil
		default:
			return nil, &NotOwnerError{Path: t.path, Owner: s.Owner}
		}
	})
	if err != nil {
		return Lease{}, fmt.Errorf("heartbeat: %w", err)
	}
	return lease, nil
}

// edit runs one read-modify-write of an existing lock file under an
// exclusive flock. decide sees the current state and returns the record to
// write, or nil to leave the file as it is. A missing lock file is a free
// lock, and is not created.
func (l *Locker) edit(path string, decide func(target, State) (*record, error)) error {
	t, err := l.resolve(path)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return l.editTarget(t, decide)
}

// editTarget is edit for a resolved target.
func (l *Locker) editTarget(t target, decide func(target, State) (*record, error)) error {
	f, err := openLockFile(t, false)
	if errors.Is(err, fs.ErrNotExist) {
		_, err := decide(t, State{Path: t.path, File: t.file})
		return err
	}
	if err != nil {
		return fmt.Errorf("%s: %w", t.path, err)
	}
	defer f.Close()
	if err := flock(f, writeLock); err != nil {
		return fmt.Errorf("%s: %w", t.path, err)
	}
	rec, err := readRecord(f, t)
	if err != nil {
		return fmt.Errorf("%s: %w", t.path, err)
	}
	next, err := decide(t, l.state(t, rec, l.now()))
	if err != nil || next == nil {
		return err
	}
	return writeRecord(f, *next)
}

// IsLocked reads the state of the lock on path without changing anything.
// It takes a shared flock, so it never sees a half-written record. A path
// with no lock file is free. A stale lock is reported with Stale set and is
// not Locked.
func (l *Locker) IsLocked(path string) (State, error) {
	t, err := l.resolve(path)
	if err != nil {
		return State{}, fmt.Errorf("check %s: %w", path, err)
	}
	s, err := l.read(t)
	if err != nil {
		return State{}, fmt.Errorf("check %s: %w", t.path, err)
	}
	return s, nil
}

// read loads the state of t's lock file under a shared flock.
func (l *Locker) read(t target) (State, error) {
	f, err := openLockFile(t, false)
	if errors.Is(err, fs.ErrNotExist) {
		return State{Path: t.path, File: t.file}, nil
	}
	if err != nil {
		return State{}, err
	}
	defer f.Close()
	if err := flock(f, readLock); err != nil {
		return State{}, err
	}
	rec, err := readRecord(f, t)
	if err != nil {
		return State{}, err
	}
	return l.state(t, rec, l.now()), nil
}

// CheckAndWarn tells session whether it may change path: OK when the path is
// free, stale, or already held by session. Warning says, in words an agent
// can act on, who holds the path, or that a stale lock will be taken over.
// Nothing is modified.
func (l *Locker) CheckAndWarn(path, session string) (Check, error) {
	s, err := l.IsLocked(path)
	if err != nil {
		return Check{}, err
	}
	c := Check{State: s, OK: true}
	switch {
	case s.Owner == "" || s.Owner == session:
	case s.Stale:
		c.Warning = fmt.Sprintf("%s has a stale lock of %s (not renewed for %s); acquiring it takes it over",
			s.Path, s.Owner, roundDuration(s.Age))
	default:
		c.OK = false
		c.Warning = (&HeldError{Path: s.Path, Owner: s.Owner, Age: s.Age, Left: s.Left}).Error() +
			"; do not modify it"
	}
	return c, nil
}

// GuardedAcquire checks path with a shared lock first and acquires it only
// when the check allows it, so that a refused agent never takes the
// exclusive flock. The answer is the same as Acquire's; the check is an
// optimisation for paths that are usually held, not a second source of
// truth (Acquire re-reads under its own lock).
func (l *Locker) GuardedAcquire(path, session string) (Lease, error) {
	c, err := l.CheckAndWarn(path, session)
	if err != nil {
		return Lease{}, fmt.Errorf("acquire: %w", err)
	}
	if !c.OK {
		return Lease{}, &HeldError{Path: c.Path, Owner: c.Owner, Age: c.Age, Left: c.Left}
	}
	return l.Acquire(path, session)
}

// List reads every lock file in dir and returns their states, sorted by real
// path (files of the 0.1.0 format, which do not record the path, come last
// under their file name). Free locks are included, with an empty Owner. A
// file that cannot be parsed is returned in the second slice as a
// *CorruptError instead of failing the listing. A missing dir holds no locks.
func (l *Locker) List(dir string) ([]State, []error, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("list locks: %w", err)
	}
	var states []State
	var problems []error
	for _, e := range entries {
		if e.IsDir() || filepath.Ext(e.Name()) != ".lock" {
			continue
		}
		t := target{dir: dir, file: filepath.Join(dir, e.Name())}
		s, err := l.read(t)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		states = append(states, s)
	}
	sort.Slice(states, func(i, j int) bool {
		a, b := states[i], states[j]
		if (a.Path == "") != (b.Path == "") {
			return b.Path == ""
		}
		if a.Path != b.Path {
			return a.Path < b.Path
		}
		return a.File < b.File
	})
	return states, problems, nil
}

// ReleaseSession releases every lock in dir that session owns, found by
// reading each lock file (not from any list the session kept), and returns
// what it released. Locks of other sessions are never touched; a corrupt
// file is reported in the error and skipped.
func (l *Locker) ReleaseSession(dir, session string) ([]State, error) {
	released, err := l.eachOwned(dir, session, func(State) *record { return &record{} })
	if err != nil {
		return released, fmt.Errorf("release locks of %s: %w", session, err)
	}
	return released, nil
}

// RenewSession renews every lock in dir that session owns (as Heartbeat
// does for one path), found by owner like ReleaseSession. It returns the
// renewed locks, with their state before the renewal.
func (l *Locker) RenewSession(dir, session string) ([]State, error) {
	renewed, err := l.eachOwned(dir, session, func(s State) *record {
		return &record{session: session, stamp: l.now(), path: s.Path}
	})
	if err != nil {
		return renewed, fmt.Errorf("renew locks of %s: %w", session, err)
	}
	return renewed, nil
}

// eachOwned writes next(state) into every lock file of dir that session
// owns, each under its exclusive flock, and returns the states it changed.
func (l *Locker) eachOwned(dir, session string, next func(State) *record) ([]State, error) {
	if err := ValidateSession(session); err != nil {
		return nil, err
	}
	states, problems, err := l.List(dir)
	if err != nil {
		return nil, err
	}
	var changed []State
	for _, s := range states {
		if s.Owner != session {
			continue
		}
		// Re-judged under the exclusive flock: the listing is only a hint.
		t := target{dir: dir, file: s.File}
		err := l.editTarget(t, func(_ target, now State) (*record, error) {
			if now.Owner != session {
				return nil, nil
			}
			now.Path = s.Path
			changed = append(changed, now)
			return next(now), nil
		})
		if err != nil {
			problems = append(problems, err)
		}
	}
	return changed, errors.Join(problems...)
}

// openLockFile opens t's lock file for reading and writing, creating it (and
// the lock directory) when create is set. O_NOFOLLOW refuses a symbolic link
// planted in the lock directory, so that agentlock never truncates the file
// it points to; anything but a regular file is refused too. The file is never
// truncated on open: its content is the lock's state.
func openLockFile(t target, create bool) (*os.File, error) {
	flags := os.O_RDWR | syscall.O_NOFOLLOW | syscall.O_NONBLOCK | syscall.O_CLOEXEC
	if create {
		flags |= os.O_CREATE
	}
	f, err := os.OpenFile(t.file, flags, 0o644)
	if create && errors.Is(err, fs.ErrNotExist) {
		if err := ensureDir(t.dir); err != nil {
			return nil, err
		}
		f, err = os.OpenFile(t.file, flags, 0o644)
	}
	if errors.Is(err, syscall.ELOOP) {
		return nil, fmt.Errorf("%s: lock file is a symbolic link; refusing to follow it", t.file)
	}
	if err != nil {
		return nil, err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: lock file is not a regular file (%s)", t.file, info.Mode().Type())
	}
	if err := checkLocalFile(f); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// readRecord reads and parses the whole content of an open lock file. The
// caller holds flock on it.
func readRecord(f *os.File, t target) (record, error) {
	data, err := io.ReadAll(io.LimitReader(io.NewSectionReader(f, 0, maxLockFileSize+1), maxLockFileSize+1))
	if err != nil {
		return record{}, fmt.Errorf("read %s: %w", f.Name(), err)
	}
	corrupt := func(reason string) error {
		content := string(data)
		if len(content) > 80 {
			content = content[:80] + "..."
		}
		return &CorruptError{File: f.Name(), Content: content, Reason: reason}
	}
	if len(data) > maxLockFileSize {
		return record{}, corrupt("larger than any lock record")
	}
	rec, err := parseRecord(data)
	if err != nil {
		return record{}, corrupt(err.Error())
	}
	if rec.path != "" && t.path != "" && rec.path != t.path {
		return record{}, corrupt(fmt.Sprintf("records path %s, not %s", rec.path, t.path))
	}
	return rec, nil
}

// writeRecord replaces the content of an open lock file in place: write from
// offset 0, then cut the file to the new length. The file is never unlinked
// or renamed, so every process keeps contending on the same inode. The
// caller holds an exclusive flock on it.
func writeRecord(f *os.File, rec record) error {
	data := []byte{}
	if !rec.free() {
		data = rec.encode()
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		return fmt.Errorf("write %s: %w", f.Name(), err)
	}
	if err := f.Truncate(int64(len(data))); err != nil {
		return fmt.Errorf("write %s: %w", f.Name(), err)
	}
	return nil
}
