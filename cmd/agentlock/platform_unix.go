//go:build unix

package main

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
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

// dupStdin makes f the process's standard input (file descriptor 0).
func dupStdin(f *os.File) error {
	return unix.Dup2(int(f.Fd()), 0)
}
