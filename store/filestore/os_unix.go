//go:build unix

package filestore

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/agentlock/agentlock/internal/sys/flock"
	"github.com/agentlock/agentlock/internal/sys/plainfile"
	"github.com/agentlock/agentlock/store"
)

// lockFile is an open lock file held as a raw descriptor. An os.File would
// register it with the runtime's network poller (an epoll_ctl that fails
// for every regular file) and stat it again for each question; a lock
// call is a handful of system calls, and a scan thousands of them, so each
// one counts.
type lockFile struct {
	fd   int
	name string
	// st is the file's status, read by lock once the flock is held: its
	// size is the record's length, its modification time when the record
	// was last written.
	st unix.Stat_t
}

// close closes the file, which drops its flock.
func (f *lockFile) close() error {
	if err := unix.Close(f.fd); err != nil {
		return &fs.PathError{Op: "close", Path: f.name, Err: err}
	}
	return nil
}

// size is the length of the file's content.
func (f *lockFile) size() int64 { return f.st.Size }

// modTime is when the file's content was last written.
func (f *lockFile) modTime() time.Time {
	sec, nsec := f.st.Mtim.Unix()
	return time.Unix(sec, nsec)
}

// openLockFile opens a lock file for reading, and for writing when write is
// set (a reader needs no write access to the lock folder or its files),
// creating it (and its folder dir) when create is set. O_NOFOLLOW refuses a
// symbolic link planted in the lock folder, so that agentlock never
// truncates the file it points to; lock then refuses anything but a
// regular file of one link. The file is never truncated on open: its
// content is the lock's state.
func openLockFile(file, dir string, create, write bool) (*lockFile, error) {
	return openLockFileAt(unix.AT_FDCWD, file, file, dir, create, write)
}

// openLockFileAt is openLockFile of the name rel in the folder dirfd (or
// the working directory for unix.AT_FDCWD); file names it in errors.
func openLockFileAt(dirfd int, rel, file, dir string, create, write bool) (*lockFile, error) {
	// O_NONBLOCK: opening a FIFO planted in the folder must not hang.
	flags := unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC
	if write {
		flags = unix.O_RDWR | unix.O_NOFOLLOW | unix.O_NONBLOCK | unix.O_CLOEXEC
	}
	if create {
		flags |= unix.O_CREAT
	}
	fd, err := openat(dirfd, rel, flags)
	if create && errors.Is(err, unix.ENOENT) {
		if err := ensureDir(dir); err != nil {
			return nil, err
		}
		fd, err = openat(dirfd, rel, flags)
	}
	if errors.Is(err, unix.ELOOP) {
		return nil, symlinkError(file)
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: file, Err: err}
	}
	return &lockFile{fd: fd, name: file}, nil
}

// openat is openat(2), retried when interrupted.
func openat(dirfd int, name string, flags int) (int, error) {
	for {
		fd, err := unix.Openat(dirfd, name, flags, 0o644)
		if !errors.Is(err, unix.EINTR) {
			return fd, err
		}
	}
}

// lock takes a flock of type lt on f (see flock.Lock), then reads its status
// and refuses a file that is not agentlock's to write: not a regular file,
// or one with other hard links.
func (f *lockFile) lock(ctx context.Context, lt flock.Mode, wait time.Duration) error {
	if err := flock.Lock(ctx, f.fd, f.name, lt, wait); err != nil {
		return err
	}
	return f.stat()
}

// stat reads f's status and refuses a file that is not agentlock's to
// write, as lock does, for a file guarded by another's flock (the note
// beside a lock file).
func (f *lockFile) stat() error {
	if err := unix.Fstat(f.fd, &f.st); err != nil {
		return &fs.PathError{Op: "fstat", Path: f.name, Err: err}
	}
	return checkStat(f.name, &f.st)
}

// checkStat refuses a lock file that is not a regular file, or that is
// also another file: a second hard link makes it one planted to make
// agentlock write into, or empty, a victim. agentlock never links a lock
// file, so one with more links is not ours.
func checkStat(file string, st *unix.Stat_t) error {
	if st.Mode&unix.S_IFMT == unix.S_IFLNK {
		return symlinkError(file)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return fmt.Errorf("%s: lock file is not a regular file but %s", file, TypeOf(fileType(uint32(st.Mode))))
	}
	if st.Nlink > 1 {
		return fmt.Errorf("%s: lock file has %d hard links; refusing a file that is also another file (remove the other links)", file, st.Nlink)
	}
	return nil
}

func symlinkError(file string) error {
	return fmt.Errorf("%s: lock file is a symbolic link; refusing to follow it", file)
}

// fileType names the type bits of a mode as fs.FileMode prints them.
func fileType(mode uint32) fs.FileMode {
	switch mode & unix.S_IFMT {
	case unix.S_IFDIR:
		return fs.ModeDir
	case unix.S_IFIFO:
		return fs.ModeNamedPipe
	case unix.S_IFSOCK:
		return fs.ModeSocket
	case unix.S_IFCHR:
		return fs.ModeDevice | fs.ModeCharDevice
	case unix.S_IFBLK:
		return fs.ModeDevice
	}
	return fs.ModeIrregular
}

// readAll reads the file's whole content — at most limit+1 bytes, so that a
// caller tells a file over limit from one at it — in one pread(2) when the
// content is as long as the status read by lock says.
func (f *lockFile) readAll(limit int64) ([]byte, error) {
	n := min(f.size(), limit+1)
	if n <= 0 {
		return nil, nil
	}
	return f.readInto(make([]byte, n))
}

// replace writes data over the file's content from offset 0, then cuts
// the file to len(data) when the old content was longer.
func (f *lockFile) replace(data []byte) error {
	for off := 0; off < len(data); {
		m, err := unix.Pwrite(f.fd, data[off:], int64(off))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return &fs.PathError{Op: "write", Path: f.name, Err: err}
		}
		off += m
	}
	if int64(len(data)) < f.size() {
		for {
			err := unix.Ftruncate(f.fd, int64(len(data)))
			if errors.Is(err, unix.EINTR) {
				continue
			}
			if err != nil {
				return &fs.PathError{Op: "truncate", Path: f.name, Err: err}
			}
			break
		}
	}
	f.st.Size = int64(len(data))
	return nil
}

// statAt reads the status of the entry name of the folder dirfd without
// following a symbolic link.
func statAt(dirfd int, name string, st *unix.Stat_t) error {
	for {
		err := unix.Fstatat(dirfd, name, st, unix.AT_SYMLINK_NOFOLLOW)
		if !errors.Is(err, unix.EINTR) {
			return err
		}
	}
}

// maxRetries bounds how often a lock is retried because the folder or file
// it was taken on has just been removed by RemoveHome.
const maxRetries = 8

// lockDir opens the folder dir (creating it when create is set) and takes
// a flock of type lt on it. A folder removed while this process waited for
// its flock is opened again, so that the lock is always on the folder that
// the path names.
func lockDir(ctx context.Context, dir string, lt flock.Mode, create bool, wait time.Duration) (*lockFile, error) {
	for range maxRetries {
		if create {
			if err := ensureDir(dir); err != nil {
				return nil, err
			}
		}
		fd, err := openat(unix.AT_FDCWD, dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC)
		if err != nil {
			return nil, fmt.Errorf("open lock folder: %w", &fs.PathError{Op: "open", Path: dir, Err: err})
		}
		d := &lockFile{fd: fd, name: dir}
		if err := flock.Lock(ctx, d.fd, d.name, lt, wait); err != nil {
			d.close()
			return nil, err
		}
		if !removed(d.fd) {
			return d, nil
		}
		d.close()
	}
	return nil, fmt.Errorf("lock folder %s: removed again and again while waiting for it", dir)
}

// removed reports whether the open file or folder fd has been unlinked.
func removed(fd int) bool {
	var st unix.Stat_t
	return unix.Fstat(fd, &st) == nil && st.Nlink == 0
}

// openDocument opens a document (registry.md) for reading, without
// blocking: a FIFO planted in its place must not hang every command that
// reads the registry. Anything but a regular file is refused.
func openDocument(path string) (*os.File, error) {
	f, info, err := plainfile.OpenRegular(path, 0)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("not a regular file but %s", TypeOf(info.Mode()))
	}
	return f, nil
}

// openSidecar opens (creating it) the lock file that serialises the writers
// of a document, flocked exclusively. A sidecar removed while this process
// waited (RemoveHome) is created again.
func openSidecar(ctx context.Context, path, dir string, wait time.Duration) (*os.File, error) {
	for range maxRetries {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("create registry folder: %w", err)
		}
		// O_NONBLOCK: opening a FIFO planted there must not hang.
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0o644)
		if err != nil {
			return nil, fmt.Errorf("open registry lock: %w", err)
		}
		if info, err := f.Stat(); err != nil || !info.Mode().IsRegular() {
			f.Close()
			return nil, fmt.Errorf("%s: registry lock is not a regular file", path)
		}
		if err := checkLocalFile(f); err != nil {
			f.Close()
			return nil, err
		}
		if err := flock.Lock(ctx, int(f.Fd()), f.Name(), writeLock, wait); err != nil {
			f.Close()
			return nil, err
		}
		if !removed(int(f.Fd())) {
			return f, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("%s: removed again and again while waiting for it", path)
}

// ensureDir creates dir (and its parents) when missing, with mode 0700 for
// what it creates.
func ensureDir(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create lock directory: %w", err)
	}
	return nil
}

// scanDir reads every *.lock file of the folder dir (see Locks.Scan): one
// status per entry, and for a file that is not empty an open, a shared
// flock bounded by wait, one read and a close. Whether the folder is on a
// local file system is checked once.
func scanDir(ctx context.Context, dir string, wait time.Duration) ([]store.Slot, error) {
	d, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list locks: %w", err)
	}
	defer d.Close()
	all, err := d.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("list locks: %w", err)
	}
	dirfd := int(d.Fd())
	if err := checkLocal(dirfd, dir); err != nil {
		return nil, fmt.Errorf("list locks: %w", err)
	}
	names := all[:0]
	for _, name := range all {
		if filepath.Ext(name) == ".lock" {
			names = append(names, name)
		}
	}
	// Each file's name is the folder's, cleaned once, and its own, as
	// filepath.Join would give it.
	prefix := strings.TrimSuffix(filepath.Join(dir, "x"), "x")
	read := make([]store.Slot, len(names))
	scanEach(len(names), func(i int, buf []byte) {
		slot := store.Slot{Key: store.Key{Ref: prefix + names[i]}}
		slot.Record, slot.Written, slot.Err = readAt(ctx, dirfd, names[i], slot.Key, wait, buf)
		slot.Key.Path = slot.Record.Path
		read[i] = slot
	})
	slots := read[:0]
	for _, slot := range read {
		if errors.Is(slot.Err, fs.ErrNotExist) {
			continue // removed meanwhile: only RemoveHome does that
		}
		slots = append(slots, slot)
	}
	return slots, nil
}

// scanChunk is how many lock files one goroutine of a scan reads at a
// time; a folder smaller than two chunks is read by the caller alone.
const scanChunk = 256

// scanEach calls read(i, buf) for every i below n, on as many goroutines
// as the process may run at once: each file costs a few system calls and
// nothing else, so a large folder is read about that many times faster.
// buf is the calling goroutine's own buffer of maxLockFileSize+1 bytes,
// for read to fill and parse before it returns.
func scanEach(n int, read func(i int, buf []byte)) {
	workers := min(runtime.GOMAXPROCS(0), n/scanChunk)
	if workers < 2 {
		buf := make([]byte, maxLockFileSize+1)
		for i := range n {
			read(i, buf)
		}
		return
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			buf := make([]byte, maxLockFileSize+1)
			for {
				start := int(next.Add(scanChunk)) - scanChunk
				if start >= n {
					return
				}
				for i := start; i < min(start+scanChunk, n); i++ {
					read(i, buf)
				}
			}
		})
	}
	wg.Wait()
}

// readAt reads the lock file name of the folder dirfd, k's lock file,
// using buf (maxLockFileSize+1 bytes) for its content. An empty file is a
// free lock: nothing to open, lock or read.
//
// A scan only reads, so the status taken before the open serves for the
// checks that guard writes (a regular file of one link) and for the
// record's write time: a file that is not agentlock's is reported, and
// one swapped in after the status is only read, never written. The read
// asks for more than any record and needs no size: it gets the whole
// content as it stood under the shared flock, whatever happened to the
// file since its status was read.
func readAt(ctx context.Context, dirfd int, name string, k store.Key, wait time.Duration, buf []byte) (store.Record, time.Time, error) {
	var st unix.Stat_t
	if err := statAt(dirfd, name, &st); err != nil {
		return store.Record{}, time.Time{}, &fs.PathError{Op: "stat", Path: k.Ref, Err: err}
	}
	if err := checkStat(k.Ref, &st); err != nil {
		return store.Record{}, time.Time{}, err
	}
	sec, nsec := st.Mtim.Unix()
	written := time.Unix(sec, nsec)
	if st.Size == 0 {
		return store.Record{}, written, nil
	}
	// Opened as openLockFileAt opens for reading, into a lockFile of this
	// frame: a scan opens thousands, none of which outlives its read.
	fd, err := openat(dirfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC)
	if errors.Is(err, unix.ELOOP) {
		return store.Record{}, time.Time{}, symlinkError(k.Ref)
	}
	if err != nil {
		return store.Record{}, time.Time{}, &fs.PathError{Op: "open", Path: k.Ref, Err: err}
	}
	f := lockFile{fd: fd, name: k.Ref}
	defer f.close()
	if err := flock.Lock(ctx, f.fd, f.name, readLock, wait); err != nil {
		return store.Record{}, time.Time{}, err
	}
	data, err := f.readInto(buf)
	if err != nil {
		return store.Record{}, time.Time{}, err
	}
	rec, err := parseContent(data, f.name, k)
	return rec, written, err
}

// readInto reads the file's content from offset 0 into buf, until the
// end of the file or of buf, and returns what it read. A read of a regular
// file that returns less than it asked for has reached the end: one
// pread(2) reads a record.
func (f *lockFile) readInto(buf []byte) ([]byte, error) {
	got := 0
	for got < len(buf) {
		m, err := unix.Pread(f.fd, buf[got:], int64(got))
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: f.name, Err: err}
		}
		got += m
		if m == 0 || got < len(buf) {
			break
		}
	}
	return buf[:got], nil
}

// fileID is the inode number of a file's status.
func fileID(info os.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Ino)
	}
	return 0
}

// IsQueueFileName reports whether name is the name of a lock's queue
// file: a lock file's name followed by ".wait".
func IsQueueFileName(name string) bool {
	lock, ok := strings.CutSuffix(name, queueExt)
	return ok && filepath.Ext(lock) == ".lock"
}

// openQueue opens, creating it, the queue file of the lock file ref, and
// returns its descriptor, or -1 when it cannot be used (then the waiter
// watches the folder itself). It is opened read-only and never written:
// only its flock matters. Anything but a regular file is not used.
func openQueue(ref string) int {
	fd, err := openat(unix.AT_FDCWD, ref+queueExt, unix.O_RDONLY|unix.O_CREAT|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC)
	if err != nil {
		return -1
	}
	var st unix.Stat_t
	if unix.Fstat(fd, &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		unix.Close(fd)
		return -1
	}
	return fd
}

// closeQueue closes a queue file (none when fd is negative), dropping its
// flock.
func closeQueue(fd int) {
	if fd >= 0 {
		unix.Close(fd)
	}
}
