//go:build unix

package proctest

import (
	"fmt"
	"os"
	"strconv"
	"syscall"
)

// KeepInheritedFiles marks close-on-exec every file descriptor above
// standard error that this process inherited open, so that no child it
// starts inherits it in turn. Go opens its own files close-on-exec, but a
// descriptor the developer's shell or a wrapper (flock(1), make's job
// server, an editor) left open passes to every child, and a child run
// with few descriptors (ulimit -n) then finds its slots taken: the test
// would depend on how it was started. Isolate calls it.
func KeepInheritedFiles() error {
	dir, err := os.Open("/dev/fd")
	if err != nil {
		return fmt.Errorf("list inherited files: %w", err)
	}
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return fmt.Errorf("list inherited files: %w", err)
	}
	for _, name := range names {
		if fd, err := strconv.Atoi(name); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
	return nil
}
