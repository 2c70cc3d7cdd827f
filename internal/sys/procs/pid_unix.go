//go:build unix

package procs

import (
	"errors"
	"syscall"
)

// pidRuns reports whether process pid still runs, where package procs
// cannot read processes (a BSD): a signal 0 reaches it.
func pidRuns(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
