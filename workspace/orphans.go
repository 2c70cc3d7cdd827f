package workspace

import (
	"context"
	"fmt"

	"github.com/agentlock/agentlock/core"
)

// Owners is the registry's view of the sessions that hold locks: which
// are working and which are finished (or whose agent process exited
// without finishing them, see Exited). It decides the one "orphaned" rule
// that the dashboard and the command line share.
type Owners struct {
	finished, working map[string]bool
}

// OwnersOf reads the sessions of a registry as loaded: a working session
// in exited (Exited's ids; nil for none) counts as finished.
func OwnersOf(sessions []core.Session, exited map[string]bool) Owners {
	o := Owners{finished: map[string]bool{}, working: map[string]bool{}}
	for i := range sessions {
		s := &sessions[i]
		switch {
		case !s.IsSession():
		case s.Status == core.StatusFinished, s.Status == core.StatusWorking && exited[s.SessionID]:
			o.finished[s.SessionID] = true
		case s.Status == core.StatusWorking:
			o.working[s.SessionID] = true
		}
	}
	return o
}

// Owners reads the workspace's registry once (see OwnersOf). When it
// cannot be read, the Owners know no session (nobody is finished, so no
// fresh lock is called orphaned) and the error says why.
func (w *Workspace) Owners(ctx context.Context) (Owners, error) {
	doc, err := w.Registry().Load(ctx)
	if err != nil {
		return OwnersOf(nil, nil), fmt.Errorf("read the registry: %w", err)
	}
	return OwnersOf(doc.Agents, w.Exited()), nil
}

// Finished reports whether the registry lists session id as finished (or
// its agent process exited).
func (o Owners) Finished(id string) bool { return o.finished[id] }

// Working reports whether the registry lists session id as working.
func (o Owners) Working(id string) bool { return o.working[id] }

// Orphaned reports whether a held lock's owner is gone: its session is
// Finished (a crash, or agent-registry 0.2's finish that kept the lock),
// or its lock is stale and the owner is no working session. An
// unregistered owner whose lock is fresh is still renewing it (locks do
// not need a registration): never orphaned.
func (o Owners) Orphaned(st core.State) bool {
	return st.Owner != "" && (o.finished[st.Owner] || st.Stale && !o.working[st.Owner])
}

// Releasable reports whether a person may release a held lock without
// taking it from an owner still at work: it is stale, or its session is
// Finished. The dashboard releases only these; release --force warns
// about the others.
func (o Owners) Releasable(st core.State) bool {
	return st.Owner != "" && (st.Stale || o.finished[st.Owner])
}
