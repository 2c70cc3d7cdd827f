package integrations

// agentlock's hook events: the last argument of "agentlock hook <agent>
// <event>", which each agent maps to its harness's own events (its
// manifest's hooks.events, or its hook file's template).
const (
	// PreEdit runs before a tool changes files: it takes their locks or
	// denies the call.
	PreEdit = "pre-edit"
	// SessionStart registers the session and tells the model its id.
	SessionStart = "session-start"
	// Renew renews every lock the session holds.
	Renew = "renew"
	// SessionEnd finishes the session.
	SessionEnd = "session-end"
	// TurnEnd ends a turn of the session (Claude Code's Stop, Gemini
	// CLI's AfterAgent, ...): the locks its pre-edit hooks took are
	// released where they live as long as a turn (docs/lock-lifetime.md).
	TurnEnd = "turn-end"
)

// HookEvents returns agentlock's hook events, in the order of a session:
// the one list that the hook front end and the manifests check against.
func HookEvents() []string { return []string{PreEdit, SessionStart, Renew, TurnEnd, SessionEnd} }
