package report

import (
	"errors"
	"time"

	"github.com/agentlock/agentlock/core"
)

// Refusal is what an all-or-none acquire reports of one of its paths when
// another is held: the refusal of a held path (Held: its line is a
// diagnostic), or the record of a free path it did not take (no line; for
// machines only).
type Refusal struct {
	Record Acquire
	Line   string
	Held   bool
}

// AcquireRefusals reports, path by path in order, an acquire of paths
// refused with err (the *core.HeldError of each held path, joined), after
// waiting for waited (zero when it did not wait); places say where each
// holder works, by session id (nil for nowhere known).
func AcquireRefusals(paths []string, err error, waited time.Duration, places map[string]string) ([]Refusal, error) {
	heldBy := map[string]*core.HeldError{}
	for _, e := range core.Unjoin(err) {
		var held *core.HeldError
		if errors.As(e, &held) {
			heldBy[held.Path] = held
		}
	}
	out := make([]Refusal, 0, len(paths))
	for _, p := range paths {
		// Resolve each path again to line it up with the refusals, which
		// name real paths.
		real, rerr := core.LockPath(p, "")
		if rerr != nil {
			return nil, rerr
		}
		if held, ok := heldBy[real]; ok {
			rec, line := AcquireRefused(held, waited, places[held.Owner])
			out = append(out, Refusal{Record: rec, Line: line, Held: true})
		} else {
			out = append(out, Refusal{Record: AcquireNotTaken(real)})
		}
	}
	return out, nil
}

// AcquireNotes are the lines for people that follow an acquisition (on
// stderr, each to be prefixed with "agentlock: "): a path of a repository
// that is not set up for agentlock, whose lock is in lockDir (redirected
// names that repository for a path, "" for none); a takeover of an
// unreadable record; a repaired index of the session's locks.
func AcquireNotes(leases []core.Lease, lockDir string, redirected func(path string) string) []string {
	var notes []string
	for _, l := range leases {
		if repo := redirected(l.Path); repo != "" && !l.Renewed {
			notes = append(notes, linef("note: %s is in %s, which is not set up for agentlock: its lock is in %s, "+
				"where only sessions of this home see it (run agentlock init in %s to coordinate its files there)", l.Path, repo, lockDir, repo))
		}
	}
	for _, l := range leases {
		if l.Corrupt != nil {
			notes = append(notes, linef("warning: took over an unreadable lock record nobody had written for longer than the timeout: %v", l.Corrupt))
		}
	}
	if len(leases) > 0 && leases[0].Unindexed != nil {
		notes = append(notes, linef("warning: %v", leases[0].Unindexed))
	}
	return notes
}

// Waiting is the line, for people, of an acquire that waits up to wait
// for the lock that held refused it: who holds it, or who is ahead in the
// queue.
func Waiting(held *core.HeldError, wait time.Duration) string {
	what := core.HeldBy(held.Path, held.Via, held.Owner)
	if held.Queued {
		what = QueuedFor(held.Path, held.Owner, held.Age)
	}
	return linef("%s; waiting up to %s...", what, Human(wait))
}
