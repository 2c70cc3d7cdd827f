// Package audit is the append-only history of a home: every act that
// takes a lock from another session — the takeover of a stale lock, a
// release by force from the command line or the dashboard — and every
// finish, with who, what, when and the previous owner. People read it with
// `agentlock log` and on the dashboard; agents never need it.
//
// The log is one JSON object per line in the home's audit.log (which
// agent-registry 0.2 ignores). Each entry is written with one O_APPEND
// write, so that entries of processes writing at once never interleave.
// When the file passes MaxBytes it is rotated — audit.log becomes
// audit.log.1, the older ones shift up to Keep — under an flock of
// audit.log.lock, so that the log stays bounded.
package audit

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"time"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/internal/sys/flock"
)

// FileName is the log's file in a home.
const FileName = "audit.log"

// The defaults of Log: 1 MiB per file, 3 rotated files kept (about 4 MiB,
// some 20,000 entries).
const (
	DefaultMaxBytes = 1 << 20
	DefaultKeep     = 3
)

// The actions recorded.
const (
	ActionTakeover     = "takeover"      // a stale (or unreadable, expired) lock taken by another session
	ActionForceRelease = "force release" // agentlock release --force
	ActionPageRelease  = "page release"  // the dashboard's Release button
	ActionFinish       = "finish"        // a session finished (its locks released)
	ActionStaleWrite   = "stale write"   // a write refused: based on a stale view of the file (docs/read-versions.md)
)

// Entry is one line of the log.
type Entry struct {
	Kind string `json:"kind"` // always "audit"
	// Time is when it happened, RFC 3339 with nanoseconds, UTC.
	Time   string `json:"time"`
	Action string `json:"action"`
	// Path is the real path of the lock; empty for a finish.
	Path string `json:"path,omitempty"`
	// SessionID is the session that acted: the new owner of a takeover,
	// the session that finished; empty for a release by force, which a
	// person does.
	SessionID string `json:"session_id,omitempty"`
	// Who is who did it: the session, or the user (and, for the
	// dashboard, "dashboard") of a release by force.
	Who string `json:"who"`
	// PreviousOwner is who held the lock before.
	PreviousOwner string `json:"previous_owner,omitempty"`
	// PreviousRenewed is when the previous owner last renewed it, RFC
	// 3339; empty when unknown.
	PreviousRenewed string `json:"previous_renewed,omitempty"`
	// Released counts the locks a finish released.
	Released int `json:"released,omitempty"`
}

// Log is the audit log of one home.
type Log struct {
	// Path is the log file (home/audit.log).
	Path string
	// MaxBytes is the size past which the file is rotated; zero means
	// DefaultMaxBytes.
	MaxBytes int64
	// Keep is how many rotated files are kept; zero means DefaultKeep.
	Keep int
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Wait bounds the wait for another process's rotation (its flock of
	// audit.log.lock); zero means flock.DefaultWait. Past it, Append
	// fails with a *store.BusyError rather than hang.
	Wait time.Duration
}

// In returns the log of a home.
func In(home string) *Log { return &Log{Path: filepath.Join(home, FileName)} }

func (l *Log) max() int64 {
	if l.MaxBytes > 0 {
		return l.MaxBytes
	}
	return DefaultMaxBytes
}

func (l *Log) keep() int {
	if l.Keep > 0 {
		return l.Keep
	}
	return DefaultKeep
}

// Append writes entries, stamping those without a time. A home that does
// not exist is not created: nothing is recorded there.
func (l *Log) Append(entries ...Entry) error {
	if len(entries) == 0 {
		return nil
	}
	if _, err := os.Stat(filepath.Dir(l.Path)); err != nil {
		return nil
	}
	now := time.Now
	if l.Now != nil {
		now = l.Now
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	for _, e := range entries {
		e.Kind = "audit"
		if e.Time == "" {
			e.Time = now().UTC().Format(time.RFC3339Nano)
		}
		if err := enc.Encode(e); err != nil {
			return fmt.Errorf("audit: %w", err)
		}
	}
	if err := l.rotateIfFull(); err != nil {
		return err
	}
	f, err := os.OpenFile(l.Path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("audit: open %s: %w", l.Path, err)
	}
	// A line torn by a process killed mid-write is ended first, so that
	// this entry is not glued to it.
	data := buf.Bytes()
	if info, err := f.Stat(); err == nil && info.Size() > 0 {
		last := make([]byte, 1)
		if _, err := f.ReadAt(last, info.Size()-1); err == nil && last[0] != '\n' {
			data = append([]byte("\n"), data...)
		}
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("audit: write %s: %w", l.Path, err)
	}
	return nil
}

// rotateIfFull rotates the log when it passed MaxBytes, under an flock so
// that two processes never rotate the same file twice.
func (l *Log) rotateIfFull() error {
	if info, err := os.Stat(l.Path); err != nil || info.Size() < l.max() {
		return nil
	}
	lock, err := os.OpenFile(l.Path+".lock", os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return fmt.Errorf("audit: %w", err)
	}
	defer lock.Close() // drops the flock
	// Where there is no flock, two processes rotating at once may shift a
	// rotated file once too often: the log is history, not state. The
	// wait is bounded (Wait): a rotation stuck in another process fails
	// this entry rather than hang the command.
	if flock.Supported {
		if err := flock.Lock(context.Background(), int(lock.Fd()), lock.Name(), flock.Exclusive, l.Wait); err != nil {
			return fmt.Errorf("audit: %w", err)
		}
	}
	// Another process may have rotated it meanwhile.
	if info, err := os.Stat(l.Path); err != nil || info.Size() < l.max() {
		return nil
	}
	for i := l.keep() - 1; i >= 1; i-- {
		if err := os.Rename(l.rotated(i), l.rotated(i+1)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("audit: rotate: %w", err)
		}
	}
	if err := os.Rename(l.Path, l.rotated(1)); err != nil {
		return fmt.Errorf("audit: rotate: %w", err)
	}
	return nil
}

func (l *Log) rotated(i int) string { return l.Path + "." + strconv.Itoa(i) }

// Read returns every entry kept, oldest first: the rotated files, then the
// current one. A line that is not an entry (a torn write of a killed
// process) is skipped and counted in bad.
func (l *Log) Read() (entries []Entry, bad int, err error) {
	for i := l.keep(); i >= 0; i-- {
		p := l.Path
		if i > 0 {
			p = l.rotated(i)
		}
		f, err := os.Open(p)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, 0, fmt.Errorf("audit: %w", err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 64<<10), 1<<20)
		for sc.Scan() {
			var e Entry
			if json.Unmarshal(sc.Bytes(), &e) != nil || e.Kind != "audit" {
				bad++
				continue
			}
			entries = append(entries, e)
		}
		err = sc.Err()
		f.Close()
		if err != nil {
			return nil, 0, fmt.Errorf("audit: read %s: %w", p, err)
		}
	}
	return entries, bad, nil
}

// Person names the user of this process, for an act done by a person:
// the login name, or the user id when it has none.
func Person() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return "uid " + strconv.Itoa(os.Getuid())
}

// ForceReleased is the entry of a release by force (action is
// ActionForceRelease or ActionPageRelease) of the lock prev was, done by
// who.
func ForceReleased(action, who string, prev core.State) Entry {
	e := Entry{Action: action, Path: prev.Path, Who: who, PreviousOwner: prev.Owner}
	if prev.Path == "" {
		e.Path = prev.Name()
	}
	if prev.Owner == "" && prev.Corrupt != nil {
		e.PreviousOwner = "(unreadable record)"
	}
	if !prev.Stamp.IsZero() {
		e.PreviousRenewed = prev.Stamp.UTC().Format(time.RFC3339Nano)
	}
	return e
}

// Filter returns the entries of a session — the one that acted or the
// previous owner — or every entry when session is "".
func Filter(entries []Entry, session string) []Entry {
	if session == "" {
		return entries
	}
	var out []Entry
	for _, e := range entries {
		if e.SessionID == session || e.PreviousOwner == session || e.Who == session {
			out = append(out, e)
		}
	}
	return out
}

// tailBytes is how much of the end of the current file Tail reads.
const tailBytes = 256 << 10

// Tail returns the last n entries of the current file (not the rotated
// ones), oldest first, reading no more than its last 256 KiB: what a page
// shows, cheap enough to read on every change.
func (l *Log) Tail(n int) ([]Entry, error) {
	f, err := os.Open(l.Path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("audit: %w", err)
	}
	start := max(info.Size()-tailBytes, 0)
	buf := make([]byte, info.Size()-start)
	if _, err := f.ReadAt(buf, start); err != nil {
		return nil, fmt.Errorf("audit: read %s: %w", l.Path, err)
	}
	if start > 0 {
		if i := bytes.IndexByte(buf, '\n'); i >= 0 {
			buf = buf[i+1:] // a line cut by the start
		}
	}
	var out []Entry
	for _, line := range bytes.Split(buf, []byte("\n")) {
		var e Entry
		if len(line) > 0 && json.Unmarshal(line, &e) == nil && e.Kind == "audit" {
			out = append(out, e)
		}
	}
	if len(out) > n {
		out = out[len(out)-n:]
	}
	return out, nil
}
