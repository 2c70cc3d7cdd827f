package agentproc

import (
	"path/filepath"
	"strings"

	"github.com/agentlock/agentlock/internal/sys/procs"
)

// shortLived are the command names of the processes that stand between a
// harness and the commands it runs, and live no longer than one command:
// shells, env, and agentlock itself. The harness is the nearest ancestor
// that is none of them.
var shortLived = map[string]bool{
	"sh": true, "bash": true, "dash": true, "zsh": true, "fish": true, "ksh": true, "mksh": true,
	"ash": true, "busybox": true, "tcsh": true, "csh": true, "yash": true, "env": true,
	"agentlock": true, "timeout": true, "nice": true, "nohup": true, "xargs": true, "sudo": true,
}

// ShortLived reports whether a process called name is a shell or another
// short-lived go-between rather than an agent harness. Login shells'
// names ("-bash") count too.
func ShortLived(name string) bool {
	name = strings.TrimPrefix(filepath.Base(name), "-")
	return shortLived[name] || strings.HasPrefix(name, "agentlock")
}

// Harness returns the harness process that a hook runs under: in chain
// (the hook's ancestry, nearest first, itself included), the first process
// that is not short-lived. ok is false when every ancestor up to PID 1 is.
func Harness(chain []procs.Process) (procs.Process, bool) {
	for _, p := range chain {
		if p.PID == 1 {
			break
		}
		if !ShortLived(p.Name) {
			return p, true
		}
	}
	return procs.Process{}, false
}

// Found is the outcome of a lookup of the agent records of a process.
type Found struct {
	// Agent is the record of the nearest recorded ancestor; zero when none.
	Agent Record
	// Wrapper is the record of the nearest wrapper script among the
	// ancestors; zero when none.
	Wrapper Record
	// Via says how the records were reached when not through the
	// process's own ancestry: "process group" or "session" (the process
	// was re-parented, but its process group or session leader is a
	// recorded agent).
	Via string
}

// Lookup finds the records, in dir, of the ancestors of chain (the
// process's ancestry, nearest first). When the ancestry holds none — a
// command started in the background by a shell that exited at once has
// lost its ancestry — the leaders of the process's group and session are
// looked up too. Unreadable records are skipped.
func Lookup(dir string, chain []procs.Process) Found {
	var f Found
	for _, p := range chain {
		if p.PID == 1 {
			// init, or the first process of a PID namespace (Codex runs
			// each sandboxed command under a fresh one): never an agent
			// that hooks recorded, and nothing above it is visible.
			break
		}
		r, ok, err := Read(dir, p.ID())
		if err != nil || !ok {
			continue
		}
		if f.Agent.Session == "" {
			f.Agent = r
		}
		if r.Kind == KindWrapper && f.Wrapper.Session == "" {
			f.Wrapper = r
		}
	}
	if f.Agent.Session != "" || len(chain) == 0 {
		return f
	}
	self := chain[0]
	for _, leader := range []struct {
		pid int
		via string
	}{{self.PGID, "process group"}, {self.SID, "session"}} {
		if leader.pid <= 1 || leader.pid == self.PID {
			continue
		}
		p, err := procs.Get(leader.pid)
		if err != nil {
			continue
		}
		if r, ok, err := Read(dir, p.ID()); err == nil && ok {
			f.Agent, f.Via = r, leader.via
			if r.Kind == KindWrapper {
				f.Wrapper = r
			}
			return f
		}
	}
	return f
}
