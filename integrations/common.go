package integrations

import (
	"encoding/json"
	"fmt"

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

// AdditionalContext is the session-start hook output that Claude Code,
// Codex and Gemini CLI add to the model's context.
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
