//go:build linux

// Package ancestry records a process's chain of ancestors, so that
// end-to-end tests can see which processes an agent CLI puts between itself
// and the hooks and shell commands it runs. The chain is the one agentlock
// reads (procs.Ancestry) and the harness is the one agentlock picks
// (agentproc.Harness): the tests check the rule agentlock really applies.
// This package adds only what a diagnosis needs on top: each process's
// executable and command line, the session-naming environment, and the
// JSON record the ancestry-dump program writes.
package ancestry

import (
	"fmt"
	"os"
	"strings"

	"github.com/agentlock/agentlock/internal/sys/agentproc"
	"github.com/agentlock/agentlock/internal/sys/procs"
)

// Proc is one process of a chain: what agentlock reads of it, plus its
// executable and command line.
type Proc struct {
	procs.Process
	// Exe is the target of /proc/<pid>/exe, empty when it cannot be read.
	Exe string `json:"exe,omitempty"`
	// Args is the command line (/proc/<pid>/cmdline).
	Args []string `json:"args"`
}

// describe adds the executable and command line of p, when readable.
func describe(p procs.Process) Proc {
	d := Proc{Process: p}
	if cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", p.PID)); err == nil {
		d.Args = strings.Split(strings.TrimRight(string(cmdline), "\x00"), "\x00")
	}
	d.Exe, _ = os.Readlink(fmt.Sprintf("/proc/%d/exe", p.PID))
	return d
}

// Read reads one process.
func Read(pid int) (Proc, error) {
	p, err := procs.Get(pid)
	if err != nil {
		return Proc{}, fmt.Errorf("read process %d: %w", pid, err)
	}
	return describe(p), nil
}

// Chain returns pid and its ancestors, nearest first, as procs.Ancestry
// reads them.
func Chain(pid int) ([]Proc, error) {
	chain, err := procs.Ancestry(pid)
	if err != nil {
		return nil, fmt.Errorf("ancestry of %d: %w", pid, err)
	}
	out := make([]Proc, len(chain))
	for i, p := range chain {
		out[i] = describe(p)
	}
	return out, nil
}

// Same reports whether a and b are the same process: same PID and same
// start time.
func Same(a, b Proc) bool {
	return a.ID() == b.ID()
}

// IsShell reports whether agentlock takes p for a short-lived go-between
// (a shell, env, agentlock itself) rather than a harness.
func IsShell(p Proc) bool {
	return agentproc.ShortLived(p.Name)
}

// Harness returns the process of chain that agentlock takes for the
// harness (agentproc.Harness): the nearest that is not short-lived, none
// when the chain reaches PID 1 first (init, or the first process of a PID
// namespace, as a sandbox shows it).
func Harness(chain []Proc) (Proc, bool) {
	plain := make([]procs.Process, len(chain))
	for i, p := range chain {
		plain[i] = p.Process
	}
	h, ok := agentproc.Harness(plain)
	if !ok {
		return Proc{}, false
	}
	for _, p := range chain {
		if p.ID() == h.ID() {
			return p, true
		}
	}
	return Proc{}, false
}
