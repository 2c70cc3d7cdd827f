package core

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxSessionLen bounds a session id, so that a lock record stays one short
// line.
const maxSessionLen = 128

// ValidateSession reports whether id can be used as a session id: 1 to 128
// printable characters, with no '|', no white space and no control
// characters. The '|' would break the lock record format.
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

// maxExistingSessionLen bounds the ids that ValidateExistingSession
// accepts: far more than any agent uses, far less than a lock file holds.
const maxExistingSessionLen = 4096

// ValidateExistingSession reports whether id can name a session that
// already has state: a lock or a registry entry, written by agentlock or by
// agent-registry 0.2, which took any command-line argument as an id (one
// with spaces, say). It accepts every id that a lock record can hold and
// give back: not empty or blank, valid UTF-8, no '|', at most 4096 bytes.
// Commands that act on existing state (release, heartbeat, finish) use it,
// so that a session 0.2 started can be ended by agentlock; commands that
// create state use ValidateSession, so new ids stay plain.
func ValidateExistingSession(id string) error {
	switch {
	case strings.TrimSpace(id) == "":
		return fmt.Errorf("%w: empty session id", ErrInvalidSession)
	case len(id) > maxExistingSessionLen:
		return fmt.Errorf("%w: session id is %d bytes long, at most %d allowed", ErrInvalidSession, len(id), maxExistingSessionLen)
	case !utf8.ValidString(id):
		return fmt.Errorf("%w: session id %q is not UTF-8", ErrInvalidSession, id)
	case strings.ContainsRune(id, '|'):
		return fmt.Errorf("%w: session id %q contains '|', which a lock record cannot hold", ErrInvalidSession, id)
	}
	return nil
}
