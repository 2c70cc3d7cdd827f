package core

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// LockFileName returns the name of the lock file for a real path inside the
// lock directory: the first 16 hexadecimal digits of the SHA-256 of the path
// (UTF-8), followed by ".lock". It is the agent-registry 0.2 naming.
func LockFileName(realPath string) string {
	sum := sha256.Sum256([]byte(realPath))
	return hex.EncodeToString(sum[:8]) + ".lock"
}

// record is the content of a lock file: who owns the path and when they last
// renewed it. The zero record (empty file) means free.
type record struct {
	session string
	stamp   time.Time
	// path is the real path written in the file; empty for the two-field
	// form written by agent-registry 0.1.0.
	path string
}

func (r record) free() bool { return r.session == "" }

// encode renders the record as agent-registry 0.2 writes it:
// "<session>|<unix seconds with fraction>|<real path>", no newline.
func (r record) encode() []byte {
	secs := float64(r.stamp.UnixNano()) / 1e9
	if r.path == "" { // renewing a 0.1.0 lock, which does not record its path
		return []byte(r.session + "|" + strconv.FormatFloat(secs, 'f', 6, 64))
	}
	return []byte(r.session + "|" + strconv.FormatFloat(secs, 'f', 6, 64) + "|" + r.path)
}

// parseRecord decodes lock file content. Empty (or blank) content is a free
// lock. Both the 0.2 form "sid|ts|path" and the 0.1.0 form "sid|ts" are
// accepted; anything else is an error, so that a damaged file is reported
// instead of being treated as free or overwritten.
func parseRecord(data []byte) (record, error) {
	text := strings.TrimRight(string(data), "\r\n")
	if strings.TrimSpace(text) == "" {
		return record{}, nil
	}
	session, rest, ok := strings.Cut(text, "|")
	if !ok {
		return record{}, fmt.Errorf("want session|timestamp|path, found no '|'")
	}
	// Session ids are checked strictly when they come in (ValidateSession),
	// but a lock written by another tool is read as long as it names one.
	if strings.TrimSpace(session) == "" {
		return record{}, fmt.Errorf("empty session id")
	}
	stamp, path, _ := strings.Cut(rest, "|")
	secs, err := strconv.ParseFloat(strings.TrimSpace(stamp), 64)
	if err != nil || math.IsNaN(secs) || math.IsInf(secs, 0) {
		return record{}, fmt.Errorf("bad timestamp %q", stamp)
	}
	// Microseconds are all a float of this size holds exactly, and all
	// that encode writes.
	whole, frac := math.Modf(secs)
	return record{
		session: session,
		stamp:   time.Unix(int64(whole), int64(math.Round(frac*1e6))*1e3),
		path:    path,
	}, nil
}

// maxSessionLen bounds a session id, so that a lock file stays one short line.
const maxSessionLen = 128

// ValidateSession reports whether id can be used as a session id: 1 to 128
// printable characters, with no '|', no white space and no control
// characters. The '|' would break the lock file format.
func ValidateSession(id string) error {
	if id == "" {
		return fmt.Errorf("%w: empty session id", ErrInvalidSession)
	}
	if n := len([]rune(id)); n > maxSessionLen {
		return fmt.Errorf("%w: session id is %d characters long, at most %d allowed", ErrInvalidSession, n, maxSessionLen)
	}
	for _, c := range id {
		if c == '|' || c == '\uFFFD' || !strconv.IsPrint(c) || c == ' ' {
			return fmt.Errorf("%w: session id %q contains %q", ErrInvalidSession, id, c)
		}
	}
	return nil
}
