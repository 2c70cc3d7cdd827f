//go:build etcd

// Command etcdserver runs a one-member etcd on a loopback port, for the
// benchmark's etcd rows (bench/run.sh etcd) and docs/teams.md's quick
// start: it prints the store URL on stdout once it serves, and stops,
// removing its data, when its standard input closes (Ctrl-D).
//
//	etcdserver [-port N] [-prefix P]
//
// -port is the client port on 127.0.0.1 (default 0: a free one, which the
// URL names); -prefix the URL's key prefix (default bench).
package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/agentlock/agentlock/internal/testkit/etcdtest"
)

func main() {
	port := flag.Int("port", 0, "client port on 127.0.0.1 (0: a free one)")
	prefix := flag.String("prefix", "bench", "key prefix of the printed store URL")
	flag.Parse()
	if flag.NArg() > 0 || *port < 0 || *port > 65535 || *prefix == "" {
		fmt.Fprintln(os.Stderr, "usage: etcdserver [-port N] [-prefix P]")
		os.Exit(2)
	}
	if err := serve(*port, *prefix); err != nil {
		fmt.Fprintln(os.Stderr, "etcdserver:", err)
		os.Exit(1)
	}
}

// serve runs the member until standard input closes.
func serve(port int, prefix string) error {
	dir, err := os.MkdirTemp("", "agentlock-bench-etcd-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	c, err := etcdtest.StartOn(dir, port)
	if err != nil {
		return err
	}
	defer c.Stop()
	fmt.Println(c.URL(prefix))
	_, _ = io.Copy(io.Discard, os.Stdin)
	return nil
}
