//go:build unix

package main

import (
	"errors"
	"os"
	"syscall"
)

// alive reports whether process pid still runs. For the parent, being
// re-parented (to init or a subreaper) also means the parent is gone.
func alive(pid int, isParent bool) bool {
	if isParent && os.Getppid() != pid {
		return false
	}
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// unsupported returns nil: this system is supported.
func unsupported() error { return nil }
