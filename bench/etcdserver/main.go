//go:build etcd

// Command etcdserver runs a one-member etcd on a loopback port for the
// benchmark's etcd rows (bench/run.sh etcd): it prints the store URL on
// stdout once it serves, and stops, removing its data, when its standard
// input closes.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/agentlock/agentlock/internal/testkit/etcdtest"
)

func main() {
	dir, err := os.MkdirTemp("", "agentlock-bench-etcd-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "etcdserver:", err)
		os.Exit(1)
	}
	defer os.RemoveAll(dir)
	c, err := etcdtest.StartIn(dir, 1)
	if err != nil {
		fmt.Fprintln(os.Stderr, "etcdserver:", err)
		os.Exit(1)
	}
	defer c.Stop()
	fmt.Println(c.URL("bench"))
	_, _ = io.Copy(io.Discard, os.Stdin)
}
