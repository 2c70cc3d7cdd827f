//go:build !unix

package main

import (
	"errors"

	"github.com/agentlock/agentlock/workspace"
)

// handOver cannot run another program in place of this process on this
// system (agentlock refuses to run here anyway).
func handOver(p workspace.Process, stdin []byte) error {
	if bin := workspace.EtcdProgramFor(p); bin != "" {
		return execIn(bin, p, stdin)
	}
	return nil
}

// execIn cannot run bin in place of this process on this system.
func execIn(bin string, _ workspace.Process, _ []byte) error {
	return errors.New("handing a command over to " + bin + " is not supported on this system")
}
