//go:build unix

package main

import (
	"fmt"
	"os"
	"slices"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/agentlock/agentlock/workspace"
)

// handOver runs the etcd build (workspace.EtcdProgramFor) in place of this
// process with p's arguments and environment (workspace.FrontVar added)
// and, when stdin is not nil, those bytes as its standard input. It
// returns nil, doing nothing, when there is no etcd build, and an error
// when the hand-over failed; else it does not return.
func handOver(p workspace.Process, stdin []byte) error {
	bin := workspace.EtcdProgramFor(p)
	if bin == "" {
		return nil
	}
	return execIn(bin, p, stdin)
}

// execIn runs the program bin in place of this process with p's arguments
// and environment, workspace.FrontVar added (the program that hooks run:
// this one, or the one that handed over to it), and, when stdin is not
// nil, those bytes as its standard input. It returns only an error.
func execIn(bin string, p workspace.Process, stdin []byte) error {
	if stdin != nil {
		if err := replaceStdin(stdin); err != nil {
			return fmt.Errorf("hand over to %s: %w", bin, err)
		}
	}
	front, _ := workspace.SelfProgram(p.Env, os.Executable)
	env := append(slices.Clip(p.Env), workspace.FrontVar+"="+front)
	err := syscall.Exec(bin, append([]string{bin}, p.Args...), env)
	return fmt.Errorf("run %s: %w", bin, err)
}

// replaceStdin makes data this process's standard input: an unlinked
// temporary file holding it, so that the program exec'd next reads it.
func replaceStdin(data []byte) error {
	f, err := os.CreateTemp("", "agentlock-payload-")
	if err != nil {
		return err
	}
	defer f.Close()
	if err := os.Remove(f.Name()); err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	if _, err := f.Seek(0, 0); err != nil {
		return err
	}
	return unix.Dup2(int(f.Fd()), 0)
}
