package store

import (
	"context"
	"errors"
	"fmt"
	"hash/crc32"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Read versions (issue 34): what each session last saw of a file, and what
// agentlock knows of each file's last change, so that a write based on a
// stale reading can be refused. Locks order writes; versions order a write
// after a read.
//
// A store that keeps them implements Versions. A session's versions are
// its own (gone with its finish, and with its lease where a store has
// one); a file's changes are the workspace's, one record per path and
// kind, overwritten by the next. Both are kept by the path's lock
// identity (Key.Path: the real path, or in repository scope the path as
// its lock names it), so that a version and a lock always speak of the
// same file. Neither changes the lock record format.

// Version is what one session last saw of one file.
type Version struct {
	// Path is the file's lock identity (see Key.Path).
	Path string
	// Digest names the content seen (package filedigest's forms:
	// "sha256:…", "stat:…", "absent", …); the store keeps it as it is.
	Digest string
	// Stat is the file's status when its content was last digested, kept
	// as it is: a status that proves the content while it stays the same
	// (filedigest's Sum.Key, not racy), prefixed "told:" when that content
	// was Told's, or a hint that proves nothing ("<size>:<mtime_ns>:<inode>",
	// filedigest's Sum.Stat); "" when unknown. Only the after-tool hook's
	// notice uses it, never the check (docs/read-versions.md).
	Stat string
	// At is when it was recorded.
	At time.Time
	// Held names another session that held the file's lock when the
	// version was recorded: that session may have changed the file
	// between the read and its recording, so the version is unsettled
	// and a write based on it is refused until the file is read again
	// with nobody else holding it. "" when nobody else held it. Held is
	// the version's own session when its pre-edit hook let an edit of
	// the file through after the version: a change since is its own
	// tool's unless another session's is recorded (a CLI that runs no
	// after-tool hook for that edit — Codex's apply_patch through its
	// shell — never reports the new content).
	Held string
	// Told is the digest the session was last told about (a stale
	// notice), so that it is told of each change once; "" for none.
	Told string
}

// ChangeKind says what a Change records.
type ChangeKind uint8

// The kinds of changes.
const (
	// ChangeEdit: an edit a hook saw (the session's after-tool event).
	ChangeEdit ChangeKind = iota
	// ChangeHold: a lock taken by a command: its session may change the
	// file by any means while it holds it.
	ChangeHold
	// ChangeRelease: a lock released, its session's hold (or edit) over.
	ChangeRelease
)

// Change is what agentlock knows of one change of a file: the session
// whose hook saw its edit, the session that took the file's lock by a
// command, which may have changed it by any means while holding it, or
// the session that released the lock.
type Change struct {
	// Path is the file's lock identity (see Key.Path).
	Path string
	// Session made or may have made the change.
	Session string
	// At is when the change was seen (the edit's after-tool event, the
	// acquisition).
	At time.Time
	// Digest is the content after the edit, when the lock was taken, or
	// when it was released; "" when unknown.
	Digest string
	// Kind says which it is.
	Kind ChangeKind
}

// View is what a store keeps of one session's reads of some files.
type View struct {
	// Since is when the session began, as recorded by its first version or
	// its session start; zero when the store has no record of it.
	Since time.Time
	// Versions are the session's versions of the paths asked, those it
	// has, in no particular order.
	Versions []Version
	// Damaged are the records of the session, among those read, that
	// cannot be decoded: each a *DamagedError, whose Path is the file it
	// was about when that much could be read ("" when not: it may be
	// about any path of the same record file). The next See of a path
	// repairs its record.
	Damaged []*DamagedError
}

// Version returns the view's version of path.
func (v View) Version(path string) (Version, bool) {
	for _, x := range v.Versions {
		if x.Path == path {
			return x, true
		}
	}
	return Version{}, false
}

// DamagedFor returns the damage that may hide the version of path: a
// damaged record of path, or one whose path could not be read.
func (v View) DamagedFor(path string) *DamagedError {
	for _, d := range v.Damaged {
		if d.Path == path || d.Path == "" {
			return d
		}
	}
	return nil
}

// Versions is implemented by the lock stores that keep read versions. Every
// method reaches the records of the keys' own lock spaces (the store of a
// path's project), so a version lives where the lock of its path lives.
type Versions interface {
	// See records versions of files for session, each replacing the
	// session's version of the same path (and repairing a damaged record of
	// it). since, when not zero, is when the session began: kept unless
	// the store already knows it.
	See(ctx context.Context, session string, since time.Time, vs []Version) error
	// Seen returns session's view of the paths of keys: its versions of
	// them, when it began, and the damaged records met. With no keys it
	// returns every version of session kept in the store's own lock space
	// (the after-tool hook's notice of files changed since they were read).
	Seen(ctx context.Context, session string, keys []Key) (View, error)
	// Forget drops every version of session kept in the store's own lock
	// space (a session's finish).
	Forget(ctx context.Context, session string) error
	// Change records changes of files; per path the store keeps the last
	// change of each kind (an edit, a hold, a release).
	Change(ctx context.Context, cs []Change) error
	// Changed returns the changes known of the paths of keys (the last of
	// each kind), in no particular order, and the damaged records met.
	Changed(ctx context.Context, keys []Key) ([]Change, []*DamagedError, error)
	// Damaged lists the damaged version and change records of the store's
	// own lock space, for agentlock doctor.
	Damaged(ctx context.Context) ([]*DamagedError, error)
}

// ErrDamaged matches a version or change record that cannot be decoded.
var ErrDamaged = errors.New("damaged version record")

// DamagedError reports a version or change record that cannot be decoded.
// It matches ErrDamaged with errors.Is.
type DamagedError struct {
	Ref    string // the store's name for the record (a file, a key)
	Path   string // the file it is about, when known
	Reason string
}

func (e *DamagedError) Error() string {
	if e.Path != "" {
		return fmt.Sprintf("%s: damaged version record of %s (%s)", e.Ref, e.Path, e.Reason)
	}
	return fmt.Sprintf("%s: damaged version record (%s)", e.Ref, e.Reason)
}

// Is makes errors.Is(err, ErrDamaged) true.
func (e *DamagedError) Is(target error) bool { return target == ErrDamaged }

// The kinds of version records, the first field of each line.
const (
	kindSince = "since"
	kindSeen  = "seen"
	kindEdit  = "edit"
	kindHold  = "hold"
	kindFree  = "free"
)

// changeKinds are the kinds' names in the records, by ChangeKind.
var changeKinds = [...]string{ChangeEdit: kindEdit, ChangeHold: kindHold, ChangeRelease: kindFree}

// String names k as the records spell it: edit, hold, free.
func (k ChangeKind) String() string {
	if int(k) < len(changeKinds) {
		return changeKinds[k]
	}
	return "unknown"
}

// seal appends "|<crc>" to a record's fields.
func seal(fields ...string) []byte {
	line := strings.Join(fields, "|")
	return []byte(line + "|" + strconv.FormatUint(uint64(crc32.Checksum([]byte(line), &crcTable)), 16))
}

// unseal checks a line's checksum and splits its fields: want before the
// quoted path, then the path. The path, quoted (strconv.Quote), may hold
// any byte.
func unseal(line string, want int) (fields []string, path string, err error) {
	i := strings.LastIndexByte(line, '|')
	if i < 0 {
		return nil, "", errors.New("no checksum")
	}
	body, sum := line[:i], line[i+1:]
	got, perr := strconv.ParseUint(sum, 16, 32)
	fields = strings.SplitN(body, "|", want+1)
	if len(fields) == want+1 {
		// The path, when it can be read, says which file the damage is
		// about even when the checksum does not match.
		path, _ = strconv.Unquote(fields[want])
	}
	if perr != nil || uint32(got) != crc32.Checksum([]byte(body), &crcTable) {
		return nil, path, errors.New("checksum mismatch (a torn or edited record)")
	}
	if len(fields) != want+1 {
		return nil, "", fmt.Errorf("want %d fields, found %d", want+2, len(fields)+1)
	}
	p, err := strconv.Unquote(fields[want])
	if err != nil {
		return nil, "", errors.New("the path is not quoted")
	}
	return fields[:want], p, nil
}

func nanos(t time.Time) string {
	if t.IsZero() {
		return "0"
	}
	return strconv.FormatInt(t.UnixNano(), 10)
}

func parseNanos(s string) (time.Time, error) {
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return time.Time{}, fmt.Errorf("bad time %q", Clip(s))
	}
	if n == 0 {
		return time.Time{}, nil
	}
	return time.Unix(0, n), nil
}

// checkField refuses a field that would break its line: a "|" or a line
// break.
func checkField(what, s string) error {
	if strings.ContainsAny(s, "|\n\r") {
		return fmt.Errorf("%s %q holds '|' or a line break", what, Clip(s))
	}
	return nil
}

// EncodeVersion renders a version as one line (no line break), the one
// codec of version records every backend stores:
// "seen|<unix ns>|<digest>|<stat>|<held>|<told>|<quoted path>|<crc32c>".
func EncodeVersion(v Version) ([]byte, error) {
	for _, f := range [][2]string{{"digest", v.Digest}, {"status", v.Stat}, {"session", v.Held}, {"digest", v.Told}} {
		if err := checkField(f[0], f[1]); err != nil {
			return nil, err
		}
	}
	return seal(kindSeen, nanos(v.At), v.Digest, v.Stat, v.Held, v.Told, strconv.Quote(v.Path)), nil
}

// DecodeVersion decodes a line of EncodeVersion. An error is a
// *DamagedError with ref, naming the path when it could be read.
func DecodeVersion(ref string, line []byte) (Version, error) {
	fields, path, err := unseal(string(line), 6)
	if err == nil && fields[0] != kindSeen {
		err = fmt.Errorf("not a version: %q", Clip(fields[0]))
	}
	var at time.Time
	if err == nil {
		at, err = parseNanos(fields[1])
	}
	if err != nil {
		return Version{}, &DamagedError{Ref: ref, Path: path, Reason: err.Error()}
	}
	return Version{Path: path, At: at, Digest: fields[2], Stat: fields[3], Held: fields[4], Told: fields[5]}, nil
}

// EncodeSince renders when a session began: "since|<unix ns>|""|<crc32c>".
func EncodeSince(t time.Time) []byte {
	return seal(kindSince, nanos(t), strconv.Quote(""))
}

// DecodeSince decodes a line of EncodeSince; an error is a *DamagedError
// with ref.
func DecodeSince(ref string, line []byte) (time.Time, error) {
	fields, _, err := unseal(string(line), 2)
	if err == nil && fields[0] != kindSince {
		err = fmt.Errorf("not a session start: %q", Clip(fields[0]))
	}
	var t time.Time
	if err == nil {
		t, err = parseNanos(fields[1])
	}
	if err != nil {
		return time.Time{}, &DamagedError{Ref: ref, Reason: err.Error()}
	}
	return t, nil
}

// IsSince reports whether a record line is a session start rather than a
// version.
func IsSince(line []byte) bool { return strings.HasPrefix(string(line), kindSince+"|") }

// EncodeChange renders a change as one line:
// "edit|<unix ns>|<session>|<digest>|<quoted path>|<crc32c>" ("hold|…"
// for a hold, "free|…" for a release).
func EncodeChange(c Change) ([]byte, error) {
	for _, f := range [][2]string{{"session", c.Session}, {"digest", c.Digest}} {
		if err := checkField(f[0], f[1]); err != nil {
			return nil, err
		}
	}
	if int(c.Kind) >= len(changeKinds) {
		return nil, fmt.Errorf("change kind %d", c.Kind)
	}
	return seal(c.Kind.String(), nanos(c.At), c.Session, c.Digest, strconv.Quote(c.Path)), nil
}

// DecodeChange decodes a line of EncodeChange; an error is a
// *DamagedError with ref, naming the path when it could be read.
func DecodeChange(ref string, line []byte) (Change, error) {
	fields, path, err := unseal(string(line), 4)
	kind := ChangeKind(0)
	if err == nil {
		k := slices.Index(changeKinds[:], fields[0])
		if k < 0 {
			err = fmt.Errorf("not a change: %q", Clip(fields[0]))
		}
		kind = ChangeKind(max(k, 0))
	}
	var at time.Time
	if err == nil {
		at, err = parseNanos(fields[1])
	}
	if err == nil && fields[2] == "" {
		err = errors.New("no session")
	}
	if err != nil {
		return Change{}, &DamagedError{Ref: ref, Path: path, Reason: err.Error()}
	}
	return Change{Path: path, At: at, Session: fields[2], Digest: fields[3], Kind: kind}, nil
}
