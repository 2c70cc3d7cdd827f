//go:build !unix

package main

import (
	"errors"
	"os"
)

// alive cannot watch a process on this system; agentlock refuses to run
// here anyway (see unsupported).
func alive(int, bool) bool { return false }

// unsupported says why agentlock does not run on this system: its lock
// files need flock(2) and POSIX file semantics.
func unsupported() error {
	return errors.New("agentlock runs on Unix-like systems only (Linux, macOS, BSD): " +
		"its locks rely on flock(2); on Windows, run it inside WSL")
}

// dupStdin cannot replace the standard input on this system.
func dupStdin(*os.File) error { return errors.New("not supported on this system") }
