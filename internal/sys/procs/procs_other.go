//go:build !linux && !darwin

package procs

import "fmt"

// get cannot read processes on this system.
func get(pid int) (Process, error) {
	return Process{}, fmt.Errorf("process %d: %w", pid, ErrUnsupported)
}

// namespace cannot be read on this system.
func namespace() (string, error) { return "", ErrUnsupported }
