//go:build linux

// Package ancestry reads a process's chain of ancestors from /proc, so that
// end-to-end tests can see which processes an agent CLI puts between itself
// and the hooks and shell commands it runs.
package ancestry

import (
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Proc is one process of a chain.
type Proc struct {
	PID  int `json:"pid"`
	PPID int `json:"ppid"`
	// Comm is the kernel's short name of the process (/proc/<pid>/comm).
	Comm string `json:"comm"`
	// Start is the process's start time in clock ticks since boot (field 22
	// of /proc/<pid>/stat): with PID, it names one process for good.
	Start uint64 `json:"start"`
	// Exe is the target of /proc/<pid>/exe, empty when it cannot be read.
	Exe string `json:"exe,omitempty"`
	// Args is the command line (/proc/<pid>/cmdline).
	Args []string `json:"args"`
}

// Read reads one process from /proc.
func Read(pid int) (Proc, error) {
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return Proc{}, fmt.Errorf("read process %d: %w", pid, err)
	}
	p, err := parseStat(string(stat))
	if err != nil {
		return Proc{}, fmt.Errorf("process %d: %w", pid, err)
	}
	if cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); err == nil {
		p.Args = strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
	}
	p.Exe, _ = os.Readlink(fmt.Sprintf("/proc/%d/exe", pid))
	return p, nil
}

// parseStat parses /proc/<pid>/stat. The name sits in parentheses and may
// hold spaces and parentheses itself, so the fields after it are found after
// the last ')'.
func parseStat(stat string) (Proc, error) {
	open, closing := strings.IndexByte(stat, '('), strings.LastIndexByte(stat, ')')
	if open < 0 || closing < open {
		return Proc{}, fmt.Errorf("malformed stat %q", stat)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(stat[:open]))
	if err != nil {
		return Proc{}, fmt.Errorf("stat pid: %w", err)
	}
	// After the name: state(3) ppid(4) … starttime(22), so index 0 is field 3.
	fields := strings.Fields(stat[closing+1:])
	if len(fields) < 20 {
		return Proc{}, fmt.Errorf("stat has %d fields after the name", len(fields))
	}
	ppid, err := strconv.Atoi(fields[1])
	if err != nil {
		return Proc{}, fmt.Errorf("stat ppid: %w", err)
	}
	start, err := strconv.ParseUint(fields[19], 10, 64)
	if err != nil {
		return Proc{}, fmt.Errorf("stat starttime: %w", err)
	}
	return Proc{PID: pid, PPID: ppid, Comm: stat[open+1 : closing], Start: start}, nil
}

// Chain returns pid and its ancestors, nearest first, up to process 1 (or
// the first that cannot be read: it may have exited meanwhile).
func Chain(pid int) ([]Proc, error) {
	var chain []Proc
	for pid > 0 {
		p, err := Read(pid)
		if err != nil {
			if len(chain) == 0 {
				return nil, err
			}
			break
		}
		chain = append(chain, p)
		if p.PPID == pid {
			break
		}
		pid = p.PPID
	}
	return chain, nil
}

// Same reports whether a and b are the same process: same PID and same
// start time.
func Same(a, b Proc) bool {
	return a.PID == b.PID && a.Start == b.Start
}

// shells are the programs a harness runs a command through and that do not
// outlive it: the short-lived links of a chain.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true, "ksh": true,
	"mksh": true, "fish": true, "env": true, "busybox": true}

// IsShell reports whether p is a shell (or env) by its name or executable.
func IsShell(p Proc) bool {
	if shells[p.Comm] {
		return true
	}
	if i := strings.LastIndexByte(p.Exe, '/'); i >= 0 && shells[p.Exe[i+1:]] {
		return true
	}
	return false
}

// NearestNonShell returns the first process of chain that is not a shell:
// the harness, by issue 9's rule. It finds none when the chain ends first,
// or when the first non-shell process is the init of a PID namespace
// (pid 1, parent 0, as a sandbox shows it): that process is not the
// harness, which the namespace hides.
func NearestNonShell(chain []Proc) (Proc, bool) {
	for _, p := range chain {
		if IsShell(p) {
			continue
		}
		if p.PID == 1 && p.PPID == 0 {
			return Proc{}, false
		}
		return p, true
	}
	return Proc{}, false
}
