//go:build unix

// Command scan is the floor of bench/run.sh's status row: a static Go
// process that reads every lock file of one folder the way a consistent
// scan must, and nothing else — per file a status, an open, a shared
// flock, one read and a close, on as many goroutines as processors — then
// prints how many files held a record. No parsing, no sorting, no output
// per file: `agentlock status` cannot list a folder faster than this.
//
// Usage: scan <lock folder>
package main

import (
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: scan <lock folder>")
		os.Exit(2)
	}
	dir, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	names, err := dir.Readdirnames(-1)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	dirfd := int(dir.Fd())
	var next, held atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			buf := make([]byte, 4097)
			for {
				i := int(next.Add(1)) - 1
				if i >= len(names) {
					return
				}
				var st unix.Stat_t
				if unix.Fstatat(dirfd, names[i], &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Size == 0 {
					continue
				}
				fd, err := unix.Openat(dirfd, names[i], unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
				if err != nil {
					continue
				}
				if unix.Flock(fd, unix.LOCK_SH) == nil {
					if n, _ := unix.Pread(fd, buf, 0); n > 0 {
						held.Add(1)
					}
				}
				unix.Close(fd)
			}
		})
	}
	wg.Wait()
	fmt.Println(held.Load(), "held")
}
