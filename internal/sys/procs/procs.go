// Package procs reads the ancestry of processes: for a PID, its parent, its
// start time and its command name. A process is identified by its PID and
// its start time together, so that a PID the system reused for another
// process is never taken for the process that had it before.
//
// Linux reads /proc/<pid>/stat; macOS asks the kernel (sysctl
// kern.proc.pid); other systems return ErrUnsupported.
package procs

import (
	"errors"
	"fmt"
	"os"
)

// ErrUnsupported is returned where this system's processes cannot be read.
var ErrUnsupported = errors.New("reading process ancestry is not supported on this system")

// ErrGone matches the error of Get for a process that does not exist.
var ErrGone = errors.New("no such process")

// Process is one process at the time it was read.
type Process struct {
	PID  int
	PPID int
	// PGID and SID are its process group and session.
	PGID, SID int
	// Start is the process's start time in a system-specific unit that is
	// only compared for equality (Linux: clock ticks after boot; macOS:
	// microseconds since the epoch).
	Start uint64
	// Name is the command name (Linux: the comm field, at most 15 bytes;
	// macOS: p_comm).
	Name string
}

// ID is the identity of a process: PID and start time.
type ID struct {
	PID   int
	Start uint64
}

// ID returns the identity of p.
func (p Process) ID() ID { return ID{PID: p.PID, Start: p.Start} }

// String is "PID-START", the form used in file names.
func (id ID) String() string { return fmt.Sprintf("%d-%d", id.PID, id.Start) }

// Get reads the process pid. A process that does not exist, or that has
// exited and waits to be reaped (a zombie), is an error matching ErrGone.
func Get(pid int) (Process, error) {
	if pid <= 0 {
		return Process{}, fmt.Errorf("process %d: %w", pid, ErrGone)
	}
	return get(pid)
}

// Alive reports whether the process id still runs: its PID exists and has
// the same start time (a PID reused by another process is not alive).
func Alive(id ID) bool {
	p, err := Get(id.PID)
	return err == nil && p.Start == id.Start
}

// Namespace returns the PID namespace of the current process ("" where
// the system has none). PIDs, and so Get and Alive, mean the same process
// only between processes of one namespace: a command in a sandbox of its
// own (Codex's workspace-write) sees other PIDs, or none, for the
// processes outside it.
func Namespace() (string, error) { return namespace() }

// Self reads the current process.
func Self() (Process, error) { return Get(os.Getpid()) }

// Ancestry returns the process pid and its ancestors, nearest first, up to
// (and including) PID 1 or the first ancestor that cannot be read (it may
// have exited meanwhile). It fails only when pid itself cannot be read.
func Ancestry(pid int) ([]Process, error) {
	p, err := Get(pid)
	if err != nil {
		return nil, err
	}
	chain := []Process{p}
	seen := map[int]bool{p.PID: true}
	for p.PPID > 0 && !seen[p.PPID] {
		parent, err := Get(p.PPID)
		if err != nil {
			break
		}
		// A "parent" that started after its child cannot be its parent:
		// the real one exited and its PID was reused meanwhile.
		if parent.Start > p.Start {
			break
		}
		chain = append(chain, parent)
		seen[parent.PID] = true
		p = parent
	}
	return chain, nil
}

// Watch returns whether process pid still runs, each time it is called:
// the process with pid's start time (a reused PID is another process),
// or, where this system's processes cannot be read, any process with
// that PID. An error when there is no such process.
func Watch(pid int) (func() bool, error) {
	p, err := Get(pid)
	switch {
	case errors.Is(err, ErrUnsupported):
		return func() bool { return pidRuns(pid) }, nil
	case err != nil:
		return nil, err
	}
	id := p.ID()
	return func() bool { return Alive(id) }, nil
}
