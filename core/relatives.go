package core

import "github.com/agentlock/agentlock/store"

// Relation is how the holder of a lock is related to the session that
// asks for it, through sub-agents (issue 35): a sub-agent is a child
// session "<parent>/<sub-agent id>" (ChildSession).
type Relation int

// The relations between a session asking for a lock and its holder.
const (
	// Unrelated: another session.
	Unrelated Relation = iota
	// Sibling: another sub-agent of the asker's own parent session.
	Sibling
	// Parent: the session the asking sub-agent works for.
	Parent
	// Child: a sub-agent of the asking session.
	Child
)

// Relate returns how holder is related to the claim's session.
func (c Claim) Relate(holder string) Relation {
	switch {
	case c.Parent != "" && holder == c.Parent:
		return Parent
	case c.Parent != "" && IsChildOf(holder, c.Parent):
		return Sibling
	case IsChildOf(holder, c.Session):
		return Child
	}
	return Unrelated
}

// Words name the relation for the session refused, after the holder's id:
// ", another sub-agent of your session"; "" when unrelated.
func (r Relation) Words() string {
	switch r {
	case Sibling:
		return ", another sub-agent of your session"
	case Parent:
		return ", the session you work for"
	case Child:
		return ", a sub-agent of yours"
	}
	return ""
}

// Holder names the holder of a lock for the session refused: its id, and
// how it is related (Relation.Words).
func Holder(owner string, r Relation) string { return owner + r.Words() }

// mayTakeFromParent reports whether the claim's sub-agent may take over a
// fresh lock of its parent, read in slot: only one the parent's hooks took
// (store.TakenByHook), for the edits the sub-agent makes for it; never
// one the parent took explicitly, nor one whose note is lost.
func (c Claim) mayTakeFromParent(slot store.Slot) (bool, error) {
	how, err := slot.HowTaken()
	return how == store.TakenByHook, err
}
