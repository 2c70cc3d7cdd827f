// Package agentproc keeps the records of agent processes: the harness
// process a session-start hook runs under, or a wrapper script, recorded in
// a workspace's home (<home>/agents/<pid>-<start>) with the session it
// runs, so that a command started under it later finds its session by
// walking up its own ancestry, and so that a session whose recorded
// processes are all gone can be finished by the next command
// (workspace.Open). A process is its PID plus its start time: a reused PID
// never inherits a session.
//
// It is internal, in the platform layer beside procs, rather than part of
// the SDK: its API is about this machine's processes (procs.Process,
// procs.ID), which an outside program has no business spelling. The rules
// that turn a record into the session a command acts for are the session
// service's (package session), whose public Identity says where an id came
// from without naming these types.
package agentproc

import "github.com/agentlock/agentlock/internal/sys/procs"

// LookupSelf returns a lookup of the current process's ancestry in the
// record folder dir. Where processes cannot be read it finds nothing.
func LookupSelf(dir string) func() Found {
	return func() Found {
		// Most commands run where no agent process was ever recorded (a
		// person's shell, a script, any project without hooks): one read
		// of the folder spares them the walk up their ancestry.
		if !hasRecords(dir) {
			return Found{}
		}
		self, err := procs.Self()
		if err != nil {
			return Found{}
		}
		chain, err := procs.Ancestry(self.PID)
		if err != nil {
			return Found{}
		}
		return Lookup(dir, chain)
	}
}

// AnyAlive returns whether any of the processes ids still runs, each time
// it is called; nil when ids is empty (nothing known to watch).
func AnyAlive(ids []procs.ID) func() bool {
	if len(ids) == 0 {
		return nil
	}
	return func() bool {
		for _, id := range ids {
			if procs.Alive(id) {
				return true
			}
		}
		return false
	}
}
