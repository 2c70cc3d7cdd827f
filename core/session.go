package core

import (
	"crypto/sha256"
	"encoding/hex"
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
		if c != '/' && !plainRune(c) {
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

// SubAgentSeparator joins a session id and the id of one of its
// sub-agents into the sub-agent's own session id (see ChildSession).
const SubAgentSeparator = "/"

// shortSubLen is the length of the stable digest that stands in for a
// sub-agent id that does not fit (see ChildSession): 12 hexadecimal
// digits, after a "~".
const shortSubLen = 12

// ChildSession returns the session id of the sub-agent sub of the session
// parent: "<parent>/<sub>" (issue 35), within the rules of ValidateSession.
// sub is kept as the CLI gave it when it is plain (printable, no white
// space, no '|' or '/') and fits in the 128 characters; otherwise it is
// shortened stably: the plain characters of its start that fit, then "~"
// and the first 12 hexadecimal digits of its SHA-256 — the same sub-agent
// always gets the same id, two different ones different ids. A parent too
// long to leave room for that (over 114 characters) gives an id that
// ValidateSession refuses, which every command and hook then reports.
func ChildSession(parent, sub string) string {
	room := maxSessionLen - utf8.RuneCountInString(parent) - len(SubAgentSeparator)
	if plainSub(sub) && sub != "" && utf8.RuneCountInString(sub) <= room {
		return parent + SubAgentSeparator + sub
	}
	sum := sha256.Sum256([]byte(sub))
	digest := "~" + hex.EncodeToString(sum[:])[:shortSubLen]
	var keep []rune
	for _, c := range sub {
		if len(keep)+len(digest) >= room || !plainRune(c) || c == '~' {
			break
		}
		keep = append(keep, c)
	}
	return parent + SubAgentSeparator + string(keep) + digest
}

// ParentOf returns the session whose sub-agent id is, by the form of its
// id (ChildSession): the part before its last "/"; "" for an id without
// one. A view of the locks alone (status) nests a lock's owner under it;
// the rules between relatives take the parent from the sub-agent's
// resolution instead (core.Claim.Parent), never from an id typed.
func ParentOf(id string) string {
	i := strings.LastIndex(id, SubAgentSeparator)
	if i <= 0 || i == len(id)-1 {
		return ""
	}
	return id[:i]
}

// IsChildOf reports whether id is the session of a sub-agent of parent
// (ChildSession's form).
func IsChildOf(id, parent string) bool {
	sub, ok := strings.CutPrefix(id, parent+SubAgentSeparator)
	return ok && parent != "" && sub != "" && !strings.Contains(sub, SubAgentSeparator)
}

// plainSub reports whether a sub-agent id can be kept as it is in a child
// session id.
func plainSub(sub string) bool {
	for _, c := range sub {
		if !plainRune(c) {
			return false
		}
	}
	return true
}

// plainRune reports whether c may stand in a sub-agent's part of a
// session id: a character ValidateSession accepts, and no '/'.
func plainRune(c rune) bool {
	return c != '|' && c != '/' && c != ' ' && c != '\uFFFD' && strconv.IsPrint(c)
}
