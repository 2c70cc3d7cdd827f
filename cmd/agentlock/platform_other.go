//go:build !unix

package main

import "errors"

// unsupported says why agentlock does not run on this system: its lock
// files need flock(2) and POSIX file semantics.
func unsupported() error {
	return errors.New("agentlock runs on Unix-like systems only (Linux, macOS, BSD): " +
		"its locks rely on flock(2); on Windows, run it inside WSL")
}
