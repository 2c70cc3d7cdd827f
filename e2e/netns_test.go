//go:build linux

package e2e

import (
	"fmt"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// offline moves the calling test goroutine, for the rest of the test, onto
// an OS thread of its own in a new network namespace where only loopback
// is up (what `unshare --net` gives a command): the mock server this
// goroutine starts afterwards listens on that namespace's 127.0.0.1, and
// every process it starts — the CLI, and the hooks and commands the CLI
// runs — inherits the namespace, so it reaches nothing but 127.0.0.1. The
// thread is never unlocked: it ends with the test goroutine (the Go
// runtime starts its other threads from a clean template thread, so the
// namespace stays on this one). Without the privilege to do so
// (CAP_SYS_ADMIN), the test is skipped loudly.
func offline(t *testing.T) {
	t.Helper()
	runtime.LockOSThread()
	if err := unix.Unshare(unix.CLONE_NEWNET); err != nil {
		skipLoudly(t, "cannot give the CLI a network namespace of its own (unshare --net): %v", err)
	}
	if err := loopbackUp(); err != nil {
		t.Fatalf("network namespace: %v", err)
	}
}

// loopbackUp sets the flag IFF_UP on the interface lo of the calling
// thread's network namespace (ip link set lo up).
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("socket: %w", err)
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return fmt.Errorf("lo: %w", err)
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return fmt.Errorf("read the flags of lo: %w", err)
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP)
	if err := unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr); err != nil {
		return fmt.Errorf("set lo up: %w", err)
	}
	return nil
}
