package hooks

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/session"
	"github.com/agentlock/agentlock/workspace"
)

// recordVersions records, after a tool ran, what it read (the agent's
// read tools, integrations.Reader) and what the session's own edit wrote
// (its edit tools, the paths the pre-edit hook gated), as the session's
// versions of those files (docs/read-versions.md). A file that could not
// be recorded is a warning: its next write is judged without that
// version.
func (h run) recordVersions(ctx context.Context) {
	name := h.req.Agent.Name()
	if r, ok := h.req.Agent.(integrations.Reader); ok {
		reads, err := r.ReadPaths(h.in)
		if err != nil {
			h.res.warnf("%s renew hook: the files this tool read: %v", name, err)
		}
		if len(reads) > 0 {
			h.warnSeen(h.svc.Read(ctx, session.ReadRequest{Paths: reads, Session: h.session, Before: h.started}))
		}
		// A read tool changed nothing, though its payload may name its
		// file where an edit's does (Kimi Code's Read and Write both
		// carry tool_input.path).
		if h.in.ToolName != "" && slices.Contains(r.ReadTools(), h.in.ToolName) {
			return
		}
	}
	// An edit tool's payload names the files it changed, as it did for
	// the pre-edit hook; a payload whose files cannot be seen changed
	// none that agentlock let through.
	edits, err := h.req.Agent.EditedPaths(h.in)
	if err == nil && len(edits) > 0 {
		h.warnSeen(h.svc.Wrote(ctx, session.ReadRequest{Paths: edits, Session: h.session}))
	}
}

// tellUntold tells the model, where its harness passes an after-tool
// hook's text to it (integrations.AfterToolContexter), of the files it
// read that were changed since by another session, each once
// (session.Service.Untold): which file, who changed it, and to read it
// again before it edits it. Nothing is told with the check off.
func (h run) tellUntold(ctx context.Context) {
	c, ok := h.req.Agent.(integrations.AfterToolContexter)
	if !ok {
		return
	}
	if _, err := c.AfterToolContext(""); errors.Is(err, integrations.ErrNoAfterToolContext) {
		return
	}
	if mode, _, err := h.ws.StaleMode(); err == nil && mode == workspace.StaleOff {
		return
	}
	name := h.req.Agent.Name()
	views, err := h.svc.Untold(ctx, h.session)
	if err != nil {
		h.res.warnf("%s renew hook: could not look for files changed since this session read them: %v", name, err)
	}
	if len(views) == 0 {
		return
	}
	// One sentence a file, escaped each, one after the other on one line:
	// a newline between them reached the model as a literal "\n" once
	// escaped, and a plugin passes its hook's output on as one line.
	notices := make([]string, len(views))
	for i, v := range views {
		notices[i] = report.Escape(h.untoldNotice(v))
	}
	out, err := c.AfterToolContext(strings.Join(notices, " "))
	if err != nil {
		h.res.warnf("%s renew hook: %v", name, err)
		return
	}
	h.res.Output = append(h.res.Output, out...)
}

// untoldNotice words one file of tellUntold.
func (h run) untoldNotice(v workspace.View) string {
	return fmt.Sprintf("agentlock: %s %s since you (%s) read it: changed by %s. Your view of it is stale: %s before you edit it (a write based on what you read would be refused).",
		v.Path, session.StaleWhat(v), h.session, session.StaleBy(v), h.readHint())
}

// warnSeen warns of what Read or Wrote could not record.
func (h run) warnSeen(seen session.Seen, err error) {
	name := h.req.Agent.Name()
	for _, f := range seen.Files {
		if f.Err != nil {
			h.res.warnf("%s renew hook: could not record what this session saw of a file (%v): a write of it is judged without it", name, f.Err)
		}
	}
	if err != nil {
		h.res.warnf("%s renew hook: could not record what this session saw: %v", name, err)
	}
}

// readsSeen reports whether agentlock sees the agent's reads (it declares
// read tools).
func (h run) readsSeen() bool {
	r, ok := h.req.Agent.(integrations.Reader)
	return ok && len(r.ReadTools()) > 0
}

// readHint names the agent's read tool for a message: "read it again
// (with Read)", or "read it again" for an agent whose reads agentlock
// cannot see.
func (h run) readHint() string {
	if h.readsSeen() {
		return "read it again with " + h.req.Agent.(integrations.Reader).ReadTools()[0]
	}
	return "read it again"
}

// staleReason words the refusal of a write based on a stale view: which
// file, who changed it and when, and what to do — read it again and redo
// the change on the current content, the file being reserved for the
// session meanwhile (its lock is the session's).
func (h run) staleReason(e *session.StaleError) string {
	v := e.Views[0]
	reserved := fmt.Sprintf("The file is reserved for you (agentlock took its lock for %s), so nobody else can change it meanwhile: %s, then redo your change on the current content.", e.Session, h.readHint())
	if !h.readsSeen() {
		reserved += " agentlock cannot see your reads, so this refusal counts as your notice: your next write of it goes through."
	}
	var b strings.Builder
	switch {
	case v.Err != nil:
		fmt.Fprintf(&b, "agentlock: cannot check whether %s changed since you (%s) read it (%v), so agentlock cannot let this write through: "+
			"%s; if this persists ask a person to run `agentlock doctor`.", v.Path, e.Session, v.Err, h.readHint())
		return b.String()
	case v.Why == workspace.ViewDamaged:
		fmt.Fprintf(&b, "agentlock: cannot compare %s with what you (%s) read: agentlock's record of that read is damaged (%s). "+
			"Your write could overwrite a change you have not seen, so it is refused. ", v.Path, e.Session, v.Damaged.Reason)
	case v.Why == workspace.ViewOverwrite:
		fmt.Fprintf(&b, "agentlock: %s was changed by %s, after your session (%s) began, and you have not read it since: "+
			"writing the whole file would overwrite that change, so it is refused. ", v.Path, session.StaleBy(v), e.Session)
	case v.Why == workspace.ViewUnsettled:
		fmt.Fprintf(&b, "agentlock: %s may have changed since you (%s) read it: session %s held its lock, or changed it, as you read it. "+
			"Your write could overwrite that change, so it is refused. ", v.Path, e.Session, v.Read.Held)
	default:
		fmt.Fprintf(&b, "agentlock: %s %s since you (%s) read it: changed by %s. "+
			"Your write would overwrite that change, so it is refused. ", v.Path, session.StaleWhat(v), e.Session, session.StaleBy(v))
	}
	if len(e.Views) > 1 {
		var others []string
		for _, o := range e.Views[1:] {
			others = append(others, o.Path)
		}
		fmt.Fprintf(&b, "Also changed since you read them: %s. ", strings.Join(others, ", "))
	}
	b.WriteString(reserved)
	return b.String()
}

// staleWarning words a stale view in warn mode: the write goes on.
func (h run) staleWarning(v workspace.View) string {
	if v.Err != nil {
		return fmt.Sprintf("agentlock: warning: cannot check whether %s changed since you read it (%v).", v.Path, v.Err)
	}
	return fmt.Sprintf("agentlock: warning: %s %s since you read it (%s): this write may overwrite that change; %s and redo your change if it must be kept.",
		v.Path, session.StaleWhat(v), session.StaleBy(v), h.readHint())
}
