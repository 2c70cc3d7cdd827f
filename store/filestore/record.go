package filestore

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
)

// LockFileName returns the name of the lock file for a real path inside the
// lock folder: the first 16 hexadecimal digits of the SHA-256 of the path
// (UTF-8), followed by ".lock". It is the agent-registry 0.2 naming.
func LockFileName(realPath string) string {
	sum := sha256.Sum256([]byte(realPath))
	return hex.EncodeToString(sum[:8]) + ".lock"
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
