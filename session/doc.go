// Package session is the session service: the verbs every front end of
// agentlock calls — the command line, the agent hooks, the dashboard and
// the MCP server — so that each front end only adapts its input to a
// request and renders the outcome (package report renders the command
// line's). It is part of the SDK.
//
// # One command, one Service
//
// A Service runs the verbs of one command: a command line, one hook event,
// one MCP tool call. It is made from what the front end gathered (Config):
// the workspace settings, the inputs of the identity (flags, environment
// values, hook payload fields, harness variables — the service reads none
// of them itself) and the working folder. For the life of the command it
//
//   - opens each workspace once: the workspaces it opens share one
//     workspace.Cache, keyed by where their state lives, which the
//     workspace's own re-opens (the router, the registry mirror) use too;
//     opening a workspace finishes the sessions whose agent exited
//     (workspace.Open);
//   - resolves the identity once (Identity), lazily, in the order Inputs
//     gives, looking up the agent records of the process's ancestry at most
//     once.
//
// # The verbs
//
// Each verb takes a context.Context, which bounds its waits (a waiting
// Acquire ends when it is cancelled), and returns a typed outcome that the
// front end only renders, with an error that is a refusal (the engine's
// typed errors, core.ErrLocked and kin, or a Gate's) or a failure:
//
//	Acquire       AcquireRequest → Acquired       (wait, OnWait progress, Gate: the pre-edit hook,
//	                                               its stale-write check: StaleError, Acquired.Stale)
//	Read, Wrote   ReadRequest    → Seen           (read versions: what a session read, its own edits)
//	Release       ReleaseRequest → Released       (paths, or All)
//	ForceRelease  ForceRequest   → ForceReleased  (the one release by force, with its guard)
//	RenewPaths    paths          → []workspace.Renewal
//	RenewSession  session, list  → Renewed
//	KeepRenewing  the one renewal loop; Life says what bounds it
//	Start         StartRequest   → Started        (register, session-start; Claim)
//	Finish        session        → Finished
//	Check         paths          → Checked
//	Status        StatusRequest  → Listing        (Changes: the store's feed)
//	Show                         → Shown
//	Update, Handoff              → Changed
//	Identity, Context            → Identity       (whoami; the typed-id rules)
//
// Paths whose locks live in several workspaces follow one rule, the same
// for every front end: see Acquire.
//
// # Sub-agents
//
// A sub-agent is a child session "<parent>/<sub-id>" (core.ChildSession:
// within the id rules, a long or odd sub-agent id shortened stably). Its
// identity is resolved like any other, from one more input,
// Inputs.SubAgent (the sub-agent's id in a hook payload, or a sub-agent's
// shell where its harness says so): the session the other inputs name is
// its parent, Identity.Parent, and the verbs act for Identity.ID. The
// rules between a parent and its children (a child takes over what its
// parent's hooks took, siblings exclude each other) are the engine's
// decision (core.Claim.Parent), which Acquire passes on; Start registers a
// child under its parent; Finish and Release All of a parent end its
// children's locks too (docs/architecture.md, Sub-agents).
//
// # Read versions
//
// Stale writes (issue 34, docs/read-versions.md): Read records what a
// session read of files (their versions, kept in the store of each file's
// lock), Wrote what its own edit wrote, and the Gate, once Acquire took the
// locks, judges the session's view of each file by its workspace's
// stale-write mode (Gate.Whole, Gate.ReadsUnseen; Acquired.Stale,
// StaleError). Versions key by Identity.ID: a sub-agent's are its own, so
// a sibling's change refuses a stale sibling's write as any other
// session's does.
package session
