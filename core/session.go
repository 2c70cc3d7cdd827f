package core

import (
	"fmt"
	"strconv"
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
