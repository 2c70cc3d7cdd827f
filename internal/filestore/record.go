package filestore

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/agentlock/agentlock/store"
)

// LockFileName returns the name of the lock file for a real path inside the
// lock folder: the first 16 hexadecimal digits of the SHA-256 of the path
// (UTF-8), followed by ".lock". It is the agent-registry 0.2 naming.
func LockFileName(realPath string) string {
	sum := sha256.Sum256([]byte(realPath))
	return hex.EncodeToString(sum[:8]) + ".lock"
}

// encodeRecord renders a record as agent-registry 0.2 writes it:
// "<session>|<unix seconds with fraction>|<real path>", no newline. A free
// record is the empty file.
func encodeRecord(r store.Record) []byte {
	if r.Free() {
		return []byte{}
	}
	secs := strconv.FormatFloat(float64(r.Stamp.UnixNano())/1e9, 'f', 6, 64)
	if r.Path == "" { // renewing a 0.1.0 lock, which does not record its path
		return []byte(r.Session + "|" + secs)
	}
	return []byte(r.Session + "|" + secs + "|" + r.Path)
}

// parseRecord decodes lock file content. Empty (or blank) content is a free
// lock. Both the 0.2 form "sid|ts|path" and the 0.1.0 form "sid|ts" are
// accepted; anything else is an error, so that a damaged file is reported
// instead of being treated as free or overwritten.
//
// The path is returned byte for byte, a final line break included: a real
// path may end in "\n". Which of the two a record means — a path ending in
// a line break, or a line break a person added after the path — is for
// recordPath to decide, from the lock file's name.
func parseRecord(data []byte) (store.Record, error) {
	text := string(data)
	if strings.TrimSpace(text) == "" {
		return store.Record{}, nil
	}
	session, rest, ok := strings.Cut(text, "|")
	if !ok {
		return store.Record{}, fmt.Errorf("want session|timestamp|path, found no '|'")
	}
	// Session ids are checked strictly when they come in, but a lock
	// written by another tool is read as long as it names one.
	if strings.TrimSpace(session) == "" {
		return store.Record{}, fmt.Errorf("empty session id")
	}
	stamp, path, _ := strings.Cut(rest, "|")
	secs, err := strconv.ParseFloat(strings.TrimSpace(stamp), 64)
	if err != nil || math.IsNaN(secs) || math.IsInf(secs, 0) {
		return store.Record{}, fmt.Errorf("bad timestamp %q", clip(stamp))
	}
	// Microseconds are all a float of this size holds exactly, and all
	// that encodeRecord writes.
	whole, frac := math.Modf(secs)
	return store.Record{
		Session: session,
		Stamp:   time.Unix(int64(whole), int64(math.Round(frac*1e6))*1e3),
		Path:    path,
	}, nil
}

// recordPath returns the real path that a record read from the lock file
// named name guards. agentlock and agent-registry write the path byte for
// byte, with no line break after it, and a real path may itself end in
// "\n" or "\r\n"; but a person editing a lock file of agent-registry
// 0.2 or 0.1.0 by hand may leave a line break after it, which 0.2's reader
// strips. The name settles it: it is the hash of the path the record was
// written for. A path whose hash is the name is taken as it is; else the
// path without its final line breaks, as before byte-exact paths.
func recordPath(path, name string) string {
	trimmed := strings.TrimRight(path, "\r\n")
	if trimmed == path || LockFileName(path) == name {
		return path
	}
	return trimmed
}

// clip shortens what a corrupt record holds to a few dozen bytes for an
// error message: garbage of any size must not flood a listing.
func clip(s string) string {
	const max = 40
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}
