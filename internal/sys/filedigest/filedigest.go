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
	"strings"

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
	// ("" for anything else): a status unchanged since a digest was taken
	// says, cheaply though not surely, that the content is unchanged too
	// (a hint for notices, never for the check).
	Stat string
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
		return Sum{Digest: "stat:" + StatOf(info), Stat: StatOf(info)}, nil
	}
	f, regular, err := openNoFollow(path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return Sum{Digest: Absent}, nil
		}
		return Sum{}, fmt.Errorf("read %s: %w", path, err)
	}
	defer f.Close()
	if !regular {
		// Replaced between the status and the open: read again.
		return Of(path)
	}
	h := xxhash.New()
	n, err := io.CopyBuffer(h, io.LimitReader(f, Limit+1), make([]byte, bufferFor(info.Size())))
	if err != nil {
		return Sum{}, fmt.Errorf("read %s: %w", path, err)
	}
	st, err := f.Stat()
	if err != nil {
		return Sum{}, fmt.Errorf("read %s: %w", path, err)
	}
	if n > Limit {
		// It grew past the limit while read: named as a large file.
		return Sum{Digest: "stat:" + StatOf(st), Stat: StatOf(st)}, nil
	}
	return Sum{Digest: fmt.Sprintf("xxh64:%d:%016x", n, h.Sum64()), Stat: StatOf(st)}, nil
}

// bufferFor is the size of the buffer that reads a file of size bytes:
// the whole file and the read that finds its end in one buffer, up to
// 128 KiB. A fixed 128 KiB buffer cost a lock call of a small file about
// 10 µs of its 3 ms (a span of its own, fresh pages); a file that grew
// since its status is still read whole, in more reads.
func bufferFor(size int64) int {
	const least, most = 512, 128 << 10
	return int(min(max(size+1, least), most))
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
