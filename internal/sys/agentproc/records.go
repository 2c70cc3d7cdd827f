package agentproc

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/agentlock/agentlock/internal/sys/atomicfile"
	"github.com/agentlock/agentlock/internal/sys/plainfile"
	"github.com/agentlock/agentlock/internal/sys/procs"
)

// DirName is the folder of a workspace's home that holds the agent
// records, one file per agent process, named "<pid>-<start>".
const DirName = "agents"

// Record kinds: who recorded the agent process.
const (
	// KindHook is a harness process recorded by the session-start hook.
	KindHook = "hook"
	// KindWrapper is a wrapper script that recorded itself: its session
	// wins over every other source but an explicit one.
	KindWrapper = "wrapper"
)

// Record says which session an agent process runs.
type Record struct {
	Session string `json:"session_id"`
	// Agent is the integration's name (claude, codex, ...); empty when
	// not known.
	Agent string `json:"agent,omitempty"`
	Kind  string `json:"kind"`
	PID   int    `json:"pid"`
	// Start is the process's start time (see procs.Process.Start).
	Start uint64 `json:"start"`
	// Name is the process's command name when it was recorded.
	Name       string    `json:"name"`
	RecordedAt time.Time `json:"recorded_at"`
	// PIDNamespace is the PID namespace the record was written in
	// (procs.Namespace): only a process of the same namespace can tell
	// whether the recorded process is gone.
	PIDNamespace string `json:"pid_ns,omitempty"`
}

// ID returns the identity of the recorded process.
func (r Record) ID() procs.ID { return procs.ID{PID: r.PID, Start: r.Start} }

// Describe says, for people, where the session came from.
func (r Record) Describe() string {
	if r.Kind == KindWrapper {
		return fmt.Sprintf("the wrapper script %d (%s) this runs under", r.PID, r.Name)
	}
	return fmt.Sprintf("the agent process %d (%s), recorded by the session-start hook", r.PID, r.Name)
}

// Dir is the record folder of a workspace home.
func Dir(home string) string { return filepath.Join(home, DirName) }

// Write records that the process p runs session, in the folder dir
// (created if missing), replacing an earlier record of the same process.
// Records of processes that are gone stay until their session is dealt
// with (see Exited): a session whose agent process exited without its
// session-end hook is finished from its record. Write removes only the
// records of gone processes that Exited never judges: unreadable ones,
// and those of an older agentlock, which name no PID namespace.
func Write(dir string, p procs.Process, session, agent, kind string, now time.Time) (Record, error) {
	r := Record{Session: session, Agent: agent, Kind: kind, PID: p.PID, Start: p.Start, Name: p.Name, RecordedAt: now.UTC()}
	if ns, err := procs.Namespace(); err == nil {
		r.PIDNamespace = ns
	}
	data, err := json.Marshal(r)
	if err != nil {
		return r, fmt.Errorf("agent record: %w", err)
	}
	// The folder's creation is made durable like the record itself.
	if err := atomicfile.MkdirAll(dir, filepath.Dir(dir), 0o700); err != nil {
		return r, fmt.Errorf("agent records: %w", err)
	}
	if err := atomicfile.Write(filepath.Join(dir, p.ID().String()), append(data, '\n'), 0o600); err != nil {
		return r, fmt.Errorf("agent record: %w", err)
	}
	sweep(dir, r.PIDNamespace)
	return r, nil
}

// sweep removes the records of dir whose process is gone and that Exited
// never judges: unreadable, or written by an older agentlock (no PID
// namespace) where namespaces exist (ns, the caller's, is not empty).
// Best effort: a record it cannot remove is left for the next write.
func sweep(dir, ns string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		id, ok := parseName(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		if _, err := procs.Get(id.PID); errors.Is(err, procs.ErrUnsupported) {
			return
		}
		if procs.Alive(id) {
			continue
		}
		if r, ok, err := Read(dir, id); err != nil || !ok || (r.PIDNamespace == "" && ns != "") {
			_ = Remove(dir, id)
		}
	}
}

// Gone is the record of an agent process that exited.
type Gone struct {
	ID     procs.ID
	Record Record
}

// Exited returns the records of dir whose process is gone: no process has
// the PID, or the one that has it started at another time. Only records
// written in the caller's PID namespace are judged: from a sandbox with a
// namespace of its own (Codex's workspace-write), the recorded harness is
// out of sight, not gone. Where processes or the namespace cannot be read
// it returns none; records that cannot be read are left alone.
func Exited(dir string) []Gone {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	ns, err := procs.Namespace()
	if err != nil {
		return nil
	}
	var out []Gone
	for _, e := range entries {
		id, ok := parseName(e.Name())
		if !ok || !e.Type().IsRegular() {
			continue
		}
		if _, err := procs.Get(id.PID); errors.Is(err, procs.ErrUnsupported) {
			return nil
		}
		if procs.Alive(id) {
			continue
		}
		if r, ok, err := Read(dir, id); err == nil && ok && r.PIDNamespace == ns {
			out = append(out, Gone{ID: id, Record: r})
		}
	}
	return out
}

// Remove deletes the record of process id from dir; a record already gone
// is no error.
func Remove(dir string, id procs.ID) error {
	err := os.Remove(filepath.Join(dir, id.String()))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("agent record: %w", err)
	}
	return nil
}

// RemoveSession deletes every record in dir of session, whatever its
// process: a finished session is nobody's identity, so the processes it
// was recorded for stop answering with it. A record that names another
// session is kept, even of the same process (a harness that ended one
// session and started the next, Claude Code's /clear); one rewritten for
// another session between this read and the removal is lost, and that
// process's commands find no session until its next session start.
func RemoveSession(dir, session string) error {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("agent records: %w", err)
	}
	var errs []error
	for _, e := range entries {
		id, ok := parseName(e.Name())
		if !ok {
			continue
		}
		if r, ok, err := Read(dir, id); err == nil && ok && r.Session == session {
			errs = append(errs, Remove(dir, id))
		}
	}
	return errors.Join(errs...)
}

// hasRecords reports whether dir holds at least one record's name.
func hasRecords(dir string) bool {
	d, err := os.Open(dir)
	if err != nil {
		return false
	}
	defer d.Close()
	for {
		names, err := d.Readdirnames(64)
		for _, n := range names {
			if _, ok := parseName(n); ok {
				return true
			}
		}
		if err != nil {
			return false
		}
	}
}

// parseName reads a record's file name, "<pid>-<start>".
func parseName(name string) (procs.ID, bool) {
	pid, start, ok := strings.Cut(name, "-")
	if !ok {
		return procs.ID{}, false
	}
	p, err1 := strconv.Atoi(pid)
	s, err2 := strconv.ParseUint(start, 10, 64)
	if err1 != nil || err2 != nil || p <= 0 {
		return procs.ID{}, false
	}
	return procs.ID{PID: p, Start: s}, true
}

// Read returns the record of process id in dir; ok is false when there is
// none. A record that cannot be parsed, or that names another process than
// its file name, is an error.
func Read(dir string, id procs.ID) (Record, bool, error) {
	data, err := plainfile.ReadFile(filepath.Join(dir, id.String()))
	if errors.Is(err, fs.ErrNotExist) {
		return Record{}, false, nil
	}
	if err != nil {
		return Record{}, false, fmt.Errorf("agent record: %w", err)
	}
	var r Record
	if err := json.Unmarshal(data, &r); err != nil {
		return Record{}, false, fmt.Errorf("agent record %s: %w", filepath.Join(dir, id.String()), err)
	}
	if r.ID() != id || r.Session == "" {
		return Record{}, false, fmt.Errorf("agent record %s: names process %s, session %q", filepath.Join(dir, id.String()), r.ID(), r.Session)
	}
	return r, true, nil
}

// OfSession returns the records in dir of session whose process still
// runs, most recent first.
func OfSession(dir, session string) []Record {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []Record
	for _, e := range entries {
		id, ok := parseName(e.Name())
		if !ok {
			continue
		}
		if r, ok, err := Read(dir, id); err == nil && ok && r.Session == session && procs.Alive(id) {
			out = append(out, r)
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].RecordedAt.After(out[j-1].RecordedAt); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
