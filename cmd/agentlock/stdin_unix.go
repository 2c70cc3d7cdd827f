//go:build unix && !etcd

package main

import (
	"os"

	"golang.org/x/sys/unix"
)

// dupStdin makes f the process's standard input (file descriptor 0), for
// the program handOver execs next.
func dupStdin(f *os.File) error {
	return unix.Dup2(int(f.Fd()), 0)
}
