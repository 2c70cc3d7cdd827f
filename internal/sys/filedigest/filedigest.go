// Package filedigest names the content of a file in one short string, its
// digest, so that agentlock can tell whether a file changed since a
// session read it (read versions, docs/read-versions.md).
//
// A regular file of at most Limit bytes is named by its size and the
// 64-bit xxHash of its content ("xxh64:<size>:<hex>"): content, not
// times, so that a change of the same size within one clock tick is seen,
// and a rewrite of the same bytes is no change. xxHash is not a
// cryptographic hash: it tells a change from none (a same-size change
// goes unseen with a chance of one in 2^64), not a forgery, which no
// agent is assumed to make; it is chosen for its cost, several times
// below SHA-256's, which the pre-edit hook pays on every checked edit. A larger file is named by its size, modification time in
// nanoseconds and inode ("stat:<size>:<mtime_ns>:<inode>"), which costs
// nothing to read. Anything else has a digest of its own kind: "absent"
// (no such file), "folder", "symlink" (a final symbolic link is never
// followed: the caller resolves the path it means) and "special:<type>"
// (a FIFO, a socket, a device: never opened, so a FIFO cannot hang the
// caller). Two digests are equal exactly when the strings are.
package filedigest

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/cespare/xxhash/v2"
)

// Limit is the size up to which a file's content is hashed. It was chosen
// against the pre-edit hook's budget (docs/read-versions.md#cost): hashing
// a file of Limit bytes keeps the hook within 1.2 times its cost without
// the check.
const Limit = 1 << 20

// The digests of what is not a regular file.
const (
	Absent  = "absent"
	Folder  = "folder"
	Symlink = "symlink"
)

// Sum is what Of says of a file.
type Sum struct {
	// Digest names the content (see the package's doc).
	Digest string
	// Stat is the status of a regular file, "<size>:<mtime_ns>:<inode>"
	// ("" for anything else), after its content was read: a hint, never
	// proof, that the content is unchanged while it stays the same.
	Stat string
	// Key is the status of the regular file whose content Digest names,
	// taken before its content was read (Key names the form); "" for
	// anything else, where the system gives no status change time, or
	// when the file changed while it was read. Changed is its status
	// change time (ctime). See Racy for when an unchanged Key proves the
	// content unchanged.
	Key     string
	Changed time.Time
}

// RacyMargin is how much older than the moment its status was taken a
// file's status change time must be for its Key to prove, while it stays
// the same, that the content is unchanged (Racy). It exceeds the coarsest
// timestamps of the file systems agentlock expects (FAT's 2 s counts
// modification times; the Linux kernel's coarse clock ticks every 1-10 ms):
// a write after the status was taken then gives the file a status change
// time later than the one seen.
const RacyMargin = 2 * time.Second

// Racy reports whether s's Key cannot prove the content unchanged: there
// is none, or the file's status changed less than RacyMargin before
// before, a time taken before Of began (a write in the same clock tick as
// the one seen could leave every field of the status as it was). Git
// calls such an index entry racily clean, for the same reason.
//
// A Key that is not racy and is the same later (StatKey) means that no
// write changed the file since: every write, truncation or rename sets
// the status change time to the clock, which no program can set back.
// What escapes it is said in docs/read-versions.md: a write through a
// shared memory mapping to a page already dirty (the kernel updates the
// times only at the page's first write after it was flushed), the
// system clock set back by more than RacyMargin, a single write call
// started more than RacyMargin before the status was taken and still
// copying, and a network file system whose server's clock lags this
// machine's by more than RacyMargin.
func (s Sum) Racy(before time.Time) bool {
	return s.Key == "" || !s.Changed.Before(before.Add(-RacyMargin))
}

// Of returns the digest of the file at path, without following a final
// symbolic link. An error means the file exists but could not be read (no
// permission, an I/O error): the caller cannot tell whether it changed.
func Of(path string) (Sum, error) {
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotDir):
		return Sum{Digest: Absent}, nil
	case err != nil:
		return Sum{}, fmt.Errorf("read %s: %w", path, err)
	}
	switch mode := info.Mode(); {
	case mode.IsDir():
		return Sum{Digest: Folder}, nil
	case mode&fs.ModeSymlink != 0:
		return Sum{Digest: Symlink}, nil
	case !mode.IsRegular():
		return Sum{Digest: "special:" + special(mode)}, nil
	case info.Size() > Limit:
		key, changed := keyOf(info)
		return Sum{Digest: "stat:" + StatOf(info), Stat: StatOf(info), Key: key, Changed: changed}, nil
	}
	f, st, err := openNoFollow(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Sum{Digest: Absent}, nil
		}
		return Sum{}, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	if !st.Mode().IsRegular() {
		// Replaced between the status and the open: read again.
		return Of(path)
	}
	key, changed := keyOf(st)
	h := xxhash.New()
	n, err := io.CopyBuffer(h, io.LimitReader(f, Limit+1), make([]byte, min(st.Size()+1, 128<<10)))
	if err != nil {
		return Sum{}, fmt.Errorf("read %s: %w", path, err)
	}
	if st, err = f.Stat(); err != nil {
		return Sum{}, fmt.Errorf("read %s: %w", path, err)
	}
	if after, _ := keyOf(st); after != key {
		// Changed while read: what was hashed may be neither version.
		key, changed = "", time.Time{}
	}
	if n > Limit {
		// It grew past the limit while read: named as a large file.
		return Sum{Digest: "stat:" + StatOf(st), Stat: StatOf(st)}, nil
	}
	return Sum{Digest: fmt.Sprintf("xxh64:%d:%016x", n, h.Sum64()), Stat: StatOf(st), Key: key, Changed: changed}, nil
}

// StatKey returns the Key of the regular file at path as it is now,
// without following a final symbolic link and without reading it: ""
// for anything else, or where the system gives no status change time.
// Equal to a Sum's Key that is not racy, it says the file's content is
// still the one the Sum's Digest names (Sum.Racy).
func StatKey(path string) (string, error) {
	info, err := os.Lstat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNotDir):
		return "", nil
	case err != nil:
		return "", fmt.Errorf("status of %s: %w", path, err)
	case !info.Mode().IsRegular():
		return "", nil
	}
	key, _ := keyOf(info)
	return key, nil
}

// keyOf returns a regular file's Key,
// "<size>:<mtime_ns>:<inode>:<ctime_ns>:<device>", and its status change
// time; "" where the system gives no status change time.
func keyOf(info os.FileInfo) (string, time.Time) {
	ino, ctime, dev, ok := status(info)
	if !ok {
		return "", time.Time{}
	}
	b := make([]byte, 0, 80)
	b = strconv.AppendInt(b, info.Size(), 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, info.ModTime().UnixNano(), 10)
	b = append(b, ':')
	b = strconv.AppendUint(b, ino, 10)
	b = append(b, ':')
	b = strconv.AppendInt(b, ctime.UnixNano(), 10)
	b = append(b, ':')
	b = strconv.AppendUint(b, dev, 10)
	return string(b), ctime
}

// StatOf is the status of a regular file as Sum.Stat names it.
func StatOf(info os.FileInfo) string {
	return fmt.Sprintf("%d:%d:%d", info.Size(), info.ModTime().UnixNano(), inode(info))
}

// special names the type of a file that is neither regular, a folder nor
// a symbolic link.
func special(mode fs.FileMode) string {
	switch {
	case mode&fs.ModeNamedPipe != 0:
		return "fifo"
	case mode&fs.ModeSocket != 0:
		return "socket"
	case mode&fs.ModeDevice != 0:
		return "device"
	}
	return "irregular"
}

// Hashed reports whether a digest names content (a file of at most
// Limit bytes) rather than a file's status.
func Hashed(d string) bool { return strings.HasPrefix(d, "xxh64:") }

// Describe says in a few words what a digest is, for a message: "deleted",
// "a folder", "a symbolic link", "a special file"; "" for a file.
func Describe(d string) string {
	switch {
	case d == Absent:
		return "deleted"
	case d == Folder:
		return "a folder"
	case d == Symlink:
		return "a symbolic link"
	case strings.HasPrefix(d, "special:"):
		return "a special file (" + strings.TrimPrefix(d, "special:") + ")"
	}
	return ""
}
