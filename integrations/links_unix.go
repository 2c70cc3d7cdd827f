//go:build unix

package integrations

import (
	"io/fs"
	"syscall"
)

// hardLinks returns how many names the file of info has.
func hardLinks(info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
