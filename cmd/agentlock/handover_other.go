//go:build !unix

package main

import (
	"errors"

	"github.com/agentlock/agentlock/workspace"
)

// handOver cannot run another program in place of this process on this
// system (agentlock refuses to run here anyway).
func handOver(p workspace.Process, _ []byte) error {
	if workspace.EtcdProgramFor(p) == "" {
		return nil
	}
	return errors.New("handing a command over to " + workspace.EtcdProgram + " is not supported on this system")
}
