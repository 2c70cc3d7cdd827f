//go:build unix

package dashboard

import (
	"os"
	"syscall"
)

// statKey returns the registryKey of a file; ok is false when it cannot
// be stated.
func statKey(path string) (registryKey, bool) {
	info, err := os.Stat(path)
	if err != nil {
		return registryKey{}, false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return registryKey{}, false
	}
	return registryKey{ino: int64(st.Ino), size: info.Size(), mtime: info.ModTime()}, true //nolint:unconvert // Ino is uint64 on Linux
}
