package store

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// EncodeRecord renders r in the lock record format of agent-registry 0.2,
// the one content every backend stores: "<session>|<unix seconds with six
// decimals>|<real path>", no line break. A free record is empty; a record
// without a path (renewing one of agent-registry 0.1.0, which does not say
// its path) is "<session>|<seconds>". The stamp is written to the
// microsecond, rounded.
func EncodeRecord(r Record) []byte {
	if r.Free() {
		return []byte{}
	}
	secs := strconv.FormatFloat(float64(r.Stamp.Round(time.Microsecond).UnixMicro())/1e6, 'f', 6, 64)
	if r.Path == "" {
		return []byte(r.Session + "|" + secs)
	}
	return []byte(r.Session + "|" + secs + "|" + r.Path)
}

// DecodeRecord decodes a lock record. Empty (or blank) content is a free
// record. Both the 0.2 form "sid|ts|path" and the 0.1.0 form "sid|ts" are
// accepted; anything else is an error saying why (wrap it in a
// *CorruptError, see NewCorruptError), so that damage is reported instead
// of being read as free or overwritten.
//
// The path is returned byte for byte, a final line break included: a real
// path may end in "\n". Whether it is part of the path or was added by a
// person editing the record is for the backend to settle (the lock files
// know from the file's name, the hash of the path).
func DecodeRecord(data []byte) (Record, error) {
	text := string(data)
	if strings.TrimSpace(text) == "" {
		return Record{}, nil
	}
	session, rest, ok := strings.Cut(text, "|")
	if !ok {
		return Record{}, fmt.Errorf("want session|timestamp|path, found no '|'")
	}
	// Session ids are checked strictly when they come in, but a lock
	// written by another tool is read as long as it names one.
	if strings.TrimSpace(session) == "" {
		return Record{}, fmt.Errorf("empty session id")
	}
	stamp, path, _ := strings.Cut(rest, "|")
	secs, err := strconv.ParseFloat(strings.TrimSpace(stamp), 64)
	if err != nil || math.IsNaN(secs) || math.IsInf(secs, 0) {
		return Record{}, fmt.Errorf("bad timestamp %q", Clip(stamp))
	}
	// Microseconds are all a float of this size holds exactly, and all
	// that EncodeRecord writes.
	whole, frac := math.Modf(secs)
	return Record{
		Session: session,
		Stamp:   time.Unix(int64(whole), int64(math.Round(frac*1e6))*1e3),
		Path:    path,
	}, nil
}

// NewCorruptError returns the error of the content data, stored under ref,
// that cannot be decoded for reason: what it holds is cut to a short
// prefix, so that garbage of any size does not flood a listing.
func NewCorruptError(ref string, data []byte, reason string) *CorruptError {
	content := string(data)
	if len(content) > 80 {
		content = content[:80] + "..."
	}
	return &CorruptError{Ref: ref, Content: content, Reason: reason}
}

// Clip shortens a piece of a damaged record to a few dozen bytes for an
// error message.
func Clip(s string) string {
	const max = 40
	if len(s) <= max {
		return s
	}
	return s[:max] + "..."
}
