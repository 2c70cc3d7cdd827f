//go:build linux

package procs

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// get parses /proc/<pid>/stat. The command name (field 2) is in
// parentheses and may itself hold spaces and parentheses, so the fields
// after it are split from the last ')'.
func get(pid int) (Process, error) {
	data, err := readProcFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrPermission) && !procMounted() {
		return Process{}, fmt.Errorf("process %d: %w", pid, ErrGone)
	}
	if err != nil {
		return Process{}, fmt.Errorf("process %d: %w", pid, err)
	}
	return parseStat(pid, string(data))
}

// readProcFile reads a small /proc file with plain system calls: os.ReadFile
// would register the descriptor with the runtime's poller, which costs a
// one-shot command more than the read itself.
func readProcFile(name string) ([]byte, error) {
	var fd int
	var err error
	for {
		fd, err = unix.Open(name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
		if !errors.Is(err, unix.EINTR) {
			break
		}
	}
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer unix.Close(fd)
	buf := make([]byte, 0, 512)
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// procMounted reports whether /proc is there to be read.
func procMounted() bool {
	_, err := os.Stat("/proc/self/stat")
	return err == nil
}

// parseStat reads the fields of a /proc/<pid>/stat line: after "pid
// (comm) ", field 3 is the state, 4 the parent, 5 the process group, 6 the
// session and 22 the start time in clock ticks after boot.
func parseStat(pid int, s string) (Process, error) {
	open, end := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || end < open {
		return Process{}, fmt.Errorf("process %d: malformed /proc stat line", pid)
	}
	fields := strings.Fields(s[end+1:])
	// fields[0] is field 3 (state); field n is fields[n-3].
	if len(fields) < 20 {
		return Process{}, fmt.Errorf("process %d: short /proc stat line", pid)
	}
	if state := fields[0]; state == "Z" || state == "X" {
		// A zombie has exited; only its exit status waits to be read.
		return Process{}, fmt.Errorf("process %d: exited: %w", pid, ErrGone)
	}
	num := func(n int) (uint64, error) { return strconv.ParseUint(fields[n-3], 10, 64) }
	var vals [4]uint64
	for i, n := range []int{4, 5, 6, 22} {
		v, err := num(n)
		if err != nil {
			return Process{}, fmt.Errorf("process %d: /proc stat field %d: %w", pid, n, err)
		}
		vals[i] = v
	}
	return Process{PID: pid, Name: s[open+1 : end], PPID: int(vals[0]), PGID: int(vals[1]), SID: int(vals[2]),
		Start: vals[3]}, nil
}

// namespace is the PID namespace of the current process: the target of
// /proc/self/ns/pid ("pid:[4026531836]").
func namespace() (string, error) {
	ns, err := os.Readlink("/proc/self/ns/pid")
	if err != nil {
		return "", fmt.Errorf("read the PID namespace: %w", err)
	}
	return ns, nil
}
