package integrations

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/agentlock/agentlock/templates"
)

// Rendered returns an artifact whose content is the integration template
// tmpl rendered with d. Blocks are markdown ("<!--" markers, at the top)
// except TOML blocks ("#" markers, at the bottom).
func Rendered(path string, scope Scope, kind Kind, tmpl string, d templates.AgentData, purpose string) (Artifact, error) {
	content, err := templates.Render(tmpl, d)
	if err != nil {
		return Artifact{}, err
	}
	a := Artifact{Path: path, Scope: scope, Kind: kind, Content: content, Purpose: purpose, Comment: "<!--"}
	if kind == TOMLBlock {
		a.Comment, a.Placement = "#", Bottom
	}
	return a, nil
}

// WrapperPath is where the wrapper script of an agent goes in the project.
func WrapperPath(agent string) string { return "scripts/agentlock-" + agent }

// Wrapper returns the agent's wrapper script: it registers a session, runs
// the agent CLI with AGENTLOCK_SESSION exported, renews the session's
// locks while it runs and finishes the session when it exits.
func Wrapper(d templates.AgentData) (Artifact, error) {
	a, err := Rendered(WrapperPath(d.Agent), Project, OwnedFile, "wrapper.sh.tmpl", d, "wrapper script: runs "+d.Command+" as one agentlock session")
	a.Mode = 0o755
	return a, err
}

// Skill returns the agentlock skill (SKILL.md) at path.
func Skill(path string, d templates.AgentData) (Artifact, error) {
	return Rendered(path, Project, OwnedFile, "skill.md.tmpl", d, "skill: when and how to use agentlock")
}

// Gitignore returns the .gitignore block that keeps agentlock's local
// state (.agent-registry/) out of git.
func Gitignore(bin string) (Artifact, error) {
	a, err := Rendered(".gitignore", Project, ManagedBlock, "gitignore.tmpl", templates.AgentData{Bin: bin}, "keeps .agent-registry/ out of git")
	a.Comment, a.Placement = "#", Bottom
	return a, err
}

// AdditionalContext is the session-start (or after-tool) hook output that
// Claude Code, Codex and Gemini CLI add to the model's context.
func AdditionalContext(event, text string) ([]byte, error) {
	out := map[string]any{"hookSpecificOutput": map[string]string{"hookEventName": event, "additionalContext": text}}
	data, err := json.Marshal(out)
	if err != nil {
		return nil, fmt.Errorf("session context: %w", err)
	}
	return append(data, '\n'), nil
}

// StringField decodes one string member of a tool_input object; absent or
// non-string members give "".
func StringField(toolInput json.RawMessage, name string) string {
	var fields map[string]json.RawMessage
	if json.Unmarshal(toolInput, &fields) != nil {
		return ""
	}
	var s string
	if json.Unmarshal(fields[name], &s) != nil {
		return ""
	}
	return s
}

// EditCall reports whether a pre-edit hook's tool call is an edit, for an
// agent whose edit tools are edits: one of them, or a call that names no
// tool at all. A harness runs the pre-edit hook for its edit tools; a
// payload that does not say which tool it is, yet names a path, is gated by
// that path (fail closed: the hook policy of docs/integrations/README.md).
func EditCall(tool string, edits ...string) bool {
	return tool == "" || slices.Contains(edits, tool)
}

// UnmarshalPayload decodes a hook payload, a JSON object, into v. A member
// of an unexpected type (a number where the cwd is, say) is left as if
// absent and every other member is decoded: such a payload still names the
// paths it carries, which are gated as in any other payload. Only a payload
// that is not a JSON object at all is an error.
func UnmarshalPayload(data []byte, v any) error {
	err := json.Unmarshal(data, v)
	// encoding/json decodes every member it can before it reports the
	// first one of the wrong type; Field is empty when the whole value is.
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &typeErr) && typeErr.Field != "" {
		return nil
	}
	return err
}

// Plan accumulates the artifacts of an agent's plan and the first error,
// so that a Plan method reads as a list.
type Plan struct {
	Artifacts []Artifact
	Notes     []string
	Err       error
}

// Add appends a unless an earlier artifact failed to render.
func (p *Plan) Add(a Artifact, err error) {
	if p.Err == nil {
		p.Err = err
		p.Artifacts = append(p.Artifacts, a)
	}
}

// Result returns the plan as Agent.Plan does.
func (p *Plan) Result() ([]Artifact, []string, error) {
	if p.Err != nil {
		return nil, nil, p.Err
	}
	return p.Artifacts, p.Notes, nil
}

// ErrUncheckable is returned by Agent.EditedPaths for a tool call that
// changes files the payload does not name (a patch read from a file): the
// pre-edit hook denies it where agentlock is set up.
var ErrUncheckable = errors.New("cannot see which files this edit changes")

// Denier is implemented by an Agent whose harness reads a structured
// denial from a pre-edit hook that exits 0: the model then reads only the
// reason. On a bare exit 2 some harnesses show the model the whole hook
// command line as well (Claude Code), or label the denial as a failed hook
// (Gemini CLI). An Agent without it denies with exit 2 and the reason on
// stderr.
type Denier interface {
	// DenyOutput returns the stdout of a pre-edit hook that refuses the
	// tool call for reason (one line).
	DenyOutput(reason string) ([]byte, error)
}

// ErrExitDeny is returned by a Denier for an agent whose harness reads a
// denial as exit 2 with the reason on stderr, which the caller then does.
var ErrExitDeny = errors.New("deny with exit 2 and the reason on stderr")

// ErrExitDenyWithOutput is returned, with the output, by a Denier for an
// agent whose harness reads its denial on stdout only together with exit 2
// (Cursor: any other non-zero exit fails open): the caller writes the
// output, the reason on stderr, and exits 2.
var ErrExitDenyWithOutput = errors.New("deny with the output on stdout and exit 2")

// Contexter is implemented by an Agent whose harness passes a pre-edit
// hook's text to the model on an allowed tool call (Claude Code's
// PreToolUse additionalContext). An Agent without it gets the text on the
// hook's stderr.
type Contexter interface {
	// EditContext returns the stdout of a pre-edit hook that allows the
	// tool call and gives the model text, or ErrNoEditContext when its
	// harness has no such form.
	EditContext(text string) ([]byte, error)
}

// ErrNoEditContext is returned by a Contexter whose agent has no form for
// text on an allowed edit: the caller writes it on stderr.
var ErrNoEditContext = errors.New("no pre-edit context form")

// AfterToolContexter is implemented by an Agent whose harness passes an
// after-tool hook's text to the model (Claude Code's PostToolUse
// additionalContext, Gemini CLI's AfterTool): the renew hook tells the
// model there that a file it read was changed since by another session.
type AfterToolContexter interface {
	// AfterToolContext returns the stdout of an after-tool hook that gives
	// the model text, or ErrNoAfterToolContext when its harness has none.
	AfterToolContext(text string) ([]byte, error)
}

// ErrNoAfterToolContext is returned by an AfterToolContexter whose agent
// declares no form for text after a tool: the model is not told early.
var ErrNoAfterToolContext = errors.New("no after-tool context form")

// PermissionContext is the PreToolUse output that allows the tool call and
// adds text to the model's context (Claude Code's additionalContext).
func PermissionContext(text string) ([]byte, error) {
	out := map[string]any{"hookSpecificOutput": map[string]string{
		"hookEventName": "PreToolUse", "additionalContext": text}}
	return MarshalLine(out, "pre-edit context")
}

// PermissionDeny is the PreToolUse denial that Claude Code and Codex read
// on stdout with exit 0: hookSpecificOutput.permissionDecision "deny" with
// permissionDecisionReason, the only text the model sees.
func PermissionDeny(reason string) ([]byte, error) {
	out := map[string]any{"hookSpecificOutput": map[string]string{
		"hookEventName": "PreToolUse", "permissionDecision": "deny", "permissionDecisionReason": reason}}
	return MarshalLine(out, "pre-edit denial")
}

// DecisionDeny is the denial that Gemini CLI reads on stdout with exit 0:
// {"decision":"deny","reason":...}; Gemini shows the model the reason
// without labelling the hook as failed.
func DecisionDeny(reason string) ([]byte, error) {
	return MarshalLine(map[string]string{"decision": "deny", "reason": reason}, "pre-edit denial")
}

// MarshalLine is a hook's answer v as one line of JSON and a newline, in
// the one encoding agentlock gives harnesses (templates.JSON); what names
// the output in an error.
func MarshalLine(v any, what string) ([]byte, error) {
	text, err := templates.JSON(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return []byte(text + "\n"), nil
}
