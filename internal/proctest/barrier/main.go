// Command barrier waits at a starting line shared with its siblings, then
// becomes the program named by its first argument. proctest.Race starts one
// barrier per racing process: each reports ready on fd 3, blocks reading
// fd 4 until the parent closes it, and execs. All of them wake at once, so
// the programs under test start together and collide on the same files.
package main

import (
	"fmt"
	"os"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: barrier PROGRAM [ARG...] (started by proctest.Race)")
		os.Exit(125)
	}
	ready, gun := os.NewFile(3, "ready"), os.NewFile(4, "gun")
	if _, err := ready.Write([]byte{1}); err != nil {
		fail("report ready: %v", err)
	}
	ready.Close()
	var b [1]byte
	gun.Read(b[:]) // returns at EOF, when the parent fires
	gun.Close()
	err := syscall.Exec(os.Args[1], os.Args[1:], os.Environ())
	fail("exec %s: %v", os.Args[1], err)
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "proctest barrier: "+format+"\n", args...)
	os.Exit(125)
}
