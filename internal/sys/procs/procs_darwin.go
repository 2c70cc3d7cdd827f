//go:build darwin

package procs

import (
	"errors"
	"fmt"

	"golang.org/x/sys/unix"
)

// sZomb is p_stat of a process that exited and was not reaped yet
// (SZOMB in <sys/proc.h>).
const sZomb = 5

// get asks the kernel for the process's kinfo_proc (sysctl
// kern.proc.pid.<pid>).
func get(pid int) (Process, error) {
	k, err := unix.SysctlKinfoProc("kern.proc.pid", pid)
	if errors.Is(err, unix.ESRCH) || err == nil && k.Proc.P_pid != int32(pid) {
		return Process{}, fmt.Errorf("process %d: %w", pid, ErrGone)
	}
	if err != nil {
		return Process{}, fmt.Errorf("process %d: %w", pid, err)
	}
	if k.Proc.P_stat == sZomb {
		// A zombie has exited; only its exit status waits to be read.
		return Process{}, fmt.Errorf("process %d: exited: %w", pid, ErrGone)
	}
	start := k.Proc.P_starttime
	name := unix.ByteSliceToString(k.Proc.P_comm[:])
	return Process{PID: pid, PPID: int(k.Eproc.Ppid), PGID: int(k.Eproc.Pgid), SID: 0,
		Start: uint64(start.Sec)*1e6 + uint64(start.Usec), Name: name}, nil
}

// namespace is "": macOS has no PID namespaces, every process sees every
// PID.
func namespace() (string, error) { return "", nil }
