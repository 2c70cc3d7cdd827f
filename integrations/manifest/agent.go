package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"text/template"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/codex"
	"github.com/agentlock/agentlock/templates"
)

// Agent is an agent CLI described by a manifest. It implements
// integrations.Agent, integrations.Denier and integrations.PayloadDecoder.
type Agent struct {
	m *Manifest
	// copy, when set, is a copy of the manifest that init writes into the
	// project (CopyPath), so that the project's hooks find the agent.
	copy []byte
}

var (
	_ integrations.Agent          = (*Agent)(nil)
	_ integrations.Denier         = (*Agent)(nil)
	_ integrations.PayloadDecoder = (*Agent)(nil)
)

// New returns the agent m describes.
func New(m *Manifest) *Agent { return &Agent{m: m} }

// Load parses data (from source) into an agent.
func Load(data []byte, source string) (*Agent, error) {
	m, err := Parse(data, source)
	if err != nil {
		return nil, err
	}
	return New(m), nil
}

// ProjectDir is the folder of a project where the manifests of agents
// added to it live; init copies a manifest given by path there.
const ProjectDir = ".agentlock/agents"

// CopyPath is where, in the project, init keeps the manifest of agent name.
func CopyPath(name string) string { return ProjectDir + "/" + name + ".toml" }

// copyHeader is the first line of a manifest copied into the project.
const copyHeader = "# " + integrations.Marker + ": an agent manifest, copied here by agentlock init so that this project's hooks find the agent; change the original and run init --agent <its path> again.\n"

// WithCopy returns the agent with data (its manifest) planned as a file of
// the project, at CopyPath: what init --agent path/to/x.toml and the
// manifests of a project's .agentlock/agents/ do.
func (a *Agent) WithCopy(data []byte) *Agent {
	body := bytes.TrimPrefix(data, []byte(copyHeader))
	return &Agent{m: a.m, copy: append([]byte(copyHeader), body...)}
}

// Manifest returns the agent's manifest.
func (a *Agent) Manifest() *Manifest { return a.m }

// Name implements integrations.Agent.
func (a *Agent) Name() string { return a.m.Name }

// Title implements integrations.Agent.
func (a *Agent) Title() string { return a.m.Title }

// Provider implements integrations.Agent.
func (a *Agent) Provider() string { return a.m.Provider }

// SessionEnvVar implements integrations.Agent.
func (a *Agent) SessionEnvVar() string { return a.m.SessionEnv }

// MCPFile implements integrations.MCPRegistrar: the manifest's [mcp].
func (a *Agent) MCPFile(integrations.Env) (integrations.MCPFile, bool) {
	mc := a.m.MCP
	if mc == nil {
		return integrations.MCPFile{}, false
	}
	return integrations.MCPFile{Path: mc.Path, TOML: mc.Format == "toml", Trust: mc.Trust}, true
}

// Plan implements integrations.Agent.
func (a *Agent) Plan(env integrations.Env) ([]integrations.Artifact, []string, error) {
	m := a.m
	d := integrations.Identity{Name: m.Name, Title: m.Title, Provider: m.Provider, Command: m.Command}.Data(env)
	d.PreEditHook = m.preEdit() && (m.Hooks.Scope != "user" || env.Global)
	d.SessionIDText = m.SessionIDText
	var p integrations.Plan
	for _, in := range m.Instructions {
		p.Add(instruction(in, d))
	}
	if h := m.Hooks; h != nil {
		if h.Scope == "user" && !env.Global {
			p.Notes = append(p.Notes, fmt.Sprintf("%s reads its hooks from ~/%s, outside the project: run init --agent %s --global to add them; without them no edit is gated.",
				m.Title, h.Path, m.Name))
		} else {
			p.Add(a.hooksArtifact(env.Bin))
		}
	}
	if m.wrapper() {
		p.Add(integrations.Wrapper(d))
	}
	if a.copy != nil {
		p.Add(integrations.Artifact{Path: CopyPath(m.Name), Scope: integrations.Project, Kind: integrations.OwnedFile,
			Content: a.copy, Purpose: "the agent's manifest, which its hooks read"}, nil)
	}
	p.Notes = append(p.Notes, m.Notes...)
	return p.Result()
}

// instruction renders one instructions file.
func instruction(in Instruction, d templates.AgentData) (integrations.Artifact, error) {
	tmpl := in.Template
	if tmpl == "" {
		tmpl = "rule"
		if in.Kind == "block" {
			tmpl = "instructions"
		}
	}
	if tmpl == "skill" {
		a, err := integrations.Skill(in.Path, d)
		if in.Purpose != "" {
			a.Purpose = in.Purpose
		}
		return a, err
	}
	file := map[string]string{"rule": "rule.md.tmpl", "instructions": "block.md.tmpl"}[tmpl]
	kind := integrations.OwnedFile
	if in.Kind == "block" {
		kind = integrations.ManagedBlock
	}
	a, err := integrations.Rendered(in.Path, integrations.Project, kind, file, d, or(in.Purpose, "instructions"))
	if in.Placement == "bottom" {
		a.Placement = integrations.Bottom
	}
	return a, err
}

// hookCommand is the command line of the hook for agentlock's event.
func (m *Manifest) hookCommand(event, bin string) (string, error) {
	line, err := templates.HookLine(bin, m.Name, event)
	if err != nil {
		return "", err
	}
	shell, err := templates.HookCommand(bin, m.Name, event)
	if err != nil {
		return "", err
	}
	text := m.Hooks.Command
	if text == "" {
		text = "{{.Line}}"
	}
	t, err := template.New("command").Option("missingkey=error").Parse(text)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	data := struct{ Line, Shell, Bin, Agent, Event string }{line, shell, bin, m.Name, event}
	if err := t.Execute(&b, data); err != nil {
		return "", err
	}
	if strings.Contains(b.String(), "\n") {
		return "", fmt.Errorf("the command is more than one line")
	}
	return b.String(), nil
}

// hooksArtifact renders the hook configuration.
func (a *Agent) hooksArtifact(bin string) (integrations.Artifact, error) {
	h := a.m.Hooks
	scope := integrations.Project
	if h.Scope == "user" {
		scope = integrations.User
	}
	purpose := or(h.Purpose, "hooks: lock before an edit, register at start, renew after each tool, finish at the end")
	art := integrations.Artifact{Path: h.Path, Scope: scope, Purpose: purpose}
	var err error
	if h.Format == "toml" {
		art.Kind, art.Comment, art.Placement = integrations.TOMLBlock, "#", integrations.Bottom
		art.Content, err = a.tomlHooks(bin)
	} else {
		art.Kind, art.Comment = integrations.JSONHooks, "<!--"
		art.Content, err = a.jsonHooks(bin)
	}
	return art, err
}

// jsonEntry and jsonGroup are Claude Code's layout of a hook, in the
// order its members are written.
type jsonEntry struct {
	Name        string `json:"name,omitempty"`
	Type        string `json:"type"`
	Command     string `json:"command"`
	Timeout     int    `json:"timeout,omitempty"`
	Description string `json:"description,omitempty"`
}

type jsonGroup struct {
	Matcher string      `json:"matcher,omitempty"`
	Hooks   []jsonEntry `json:"hooks"`
}

// flatEntry is a hook in the flat layout (Crush's), in the order its
// members are written.
type flatEntry struct {
	Name    string `json:"name,omitempty"`
	Matcher string `json:"matcher,omitempty"`
	Command string `json:"command"`
	Timeout int    `json:"timeout,omitempty"`
}

// jsonHooks is the settings file agentlock would write alone:
// {"hooks": {<event>: [{"matcher": …, "hooks": [{…}]}]}}, two-space
// indented, events in the manifest's order (one group per entry; entries
// of the same event share its array).
func (a *Agent) jsonHooks(bin string) ([]byte, error) {
	var order []string
	groups := map[string][]any{}
	for _, e := range a.m.Hooks.Events {
		cmd, err := a.m.hookCommand(e.Run, bin)
		if err != nil {
			return nil, fmt.Errorf("hooks of %s: %w", a.m.Name, err)
		}
		if _, ok := groups[e.Name]; !ok {
			order = append(order, e.Name)
		}
		var g any = jsonGroup{Matcher: e.Matcher,
			Hooks: []jsonEntry{{Name: e.Label, Type: "command", Command: cmd, Timeout: e.Timeout, Description: e.Description}}}
		if a.m.Hooks.Layout == "flat" {
			g = flatEntry{Name: e.Label, Matcher: e.Matcher, Command: cmd, Timeout: e.Timeout}
		}
		groups[e.Name] = append(groups[e.Name], g)
	}
	var b bytes.Buffer
	b.WriteString("{\n  \"hooks\": {\n")
	for i, name := range order {
		key, err := jsonLine(name, "")
		if err != nil {
			return nil, err
		}
		value, err := jsonLine(groups[name], "    ")
		if err != nil {
			return nil, err
		}
		b.WriteString("    " + key + ": " + value)
		if i < len(order)-1 {
			b.WriteString(",")
		}
		b.WriteString("\n")
	}
	b.WriteString("  }\n}\n")
	return b.Bytes(), nil
}

// jsonLine encodes v indented by two spaces after prefix, leaving <, >
// and & readable (hook commands redirect), without a final newline.
func jsonLine(v any, prefix string) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent(prefix, "  ")
	if err := enc.Encode(v); err != nil {
		return "", fmt.Errorf("hook entries: %w", err)
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// tomlHooks is the block of [[hooks]] tables, Kimi's layout.
func (a *Agent) tomlHooks(bin string) ([]byte, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# agentlock's hooks for %s. They do nothing where agentlock is not set up\n# (no .agent-registry folder).\n", a.m.Title)
	for i, e := range a.m.Hooks.Events {
		cmd, err := a.m.hookCommand(e.Run, bin)
		if err != nil {
			return nil, fmt.Errorf("hooks of %s: %w", a.m.Name, err)
		}
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "[[hooks]]\nevent = %s\n", tomlString(e.Name))
		if e.Matcher != "" {
			fmt.Fprintf(&b, "matcher = %s\n", tomlString(e.Matcher))
		}
		fmt.Fprintf(&b, "command = %s\n", tomlString(cmd))
		if e.Timeout > 0 {
			fmt.Fprintf(&b, "timeout = %d\n", e.Timeout)
		}
	}
	return []byte(b.String()), nil
}

// tomlString quotes s as a TOML basic string (JSON's escapes are TOML's
// for the characters a command line holds).
func tomlString(s string) string {
	q, _ := jsonLine(s, "")
	return q
}

// EditedPaths implements integrations.Agent: the first of the payload's
// path fields that holds a path, for a tool the manifest counts as an
// edit (every tool, when it lists none; a call that names no tool, see
// integrations.EditCall).
func (a *Agent) EditedPaths(in integrations.HookInput) ([]string, error) {
	if len(a.m.EditTools) > 0 && !integrations.EditCall(in.ToolName, a.m.EditTools...) {
		return nil, nil
	}
	for _, field := range a.m.Payload.Patches {
		var text string
		if v, ok := lookup(in.Raw, field); !ok || json.Unmarshal(v, &text) != nil || text == "" {
			continue
		}
		paths := codex.PatchPaths([]string{text})
		if len(paths) == 0 {
			return nil, fmt.Errorf("%w: the patch in %s names no file agentlock can read (want *** Begin Patch, then *** Add File:, *** Update File: or *** Delete File: lines)", integrations.ErrUncheckable, field)
		}
		return paths, nil
	}
	for _, field := range a.m.Payload.Paths {
		v, ok := lookup(in.Raw, field)
		if !ok {
			continue
		}
		var one string
		if json.Unmarshal(v, &one) == nil && one != "" {
			return []string{one}, nil
		}
		var many []string
		if json.Unmarshal(v, &many) == nil && len(many) > 0 {
			return slices.DeleteFunc(many, func(s string) bool { return s == "" }), nil
		}
	}
	return nil, nil
}

// DecodePayload implements integrations.PayloadDecoder: the fields at the
// manifest's paths (Claude Code's names where it gives none).
func (a *Agent) DecodePayload(data []byte) (integrations.HookInput, error) {
	in := integrations.HookInput{Raw: data}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return in, fmt.Errorf("the payload is not JSON: %w", err)
	}
	p := a.m.Payload
	in.SessionID = stringAt(data, or(p.SessionID, "session_id"))
	in.Cwd = stringAt(data, or(p.Cwd, "cwd"))
	in.ToolName = stringAt(data, or(p.ToolName, "tool_name"))
	in.Event = stringAt(data, "hook_event_name")
	if v, ok := lookup(data, or(p.Model, "model")); ok {
		in.Model = v
	}
	return in, nil
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// stringAt is the string at a dotted path, "" when there is none.
func stringAt(data []byte, path string) string {
	v, ok := lookup(data, path)
	if !ok {
		return ""
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

// lookup walks a dotted path through JSON objects. A step that meets a
// JSON string holding an object decodes that string and goes on.
func lookup(data []byte, path string) (json.RawMessage, bool) {
	cur := json.RawMessage(data)
	for _, step := range strings.Split(path, ".") {
		var obj map[string]json.RawMessage
		if json.Unmarshal(cur, &obj) != nil {
			var s string
			if json.Unmarshal(cur, &s) != nil || json.Unmarshal([]byte(s), &obj) != nil {
				return nil, false
			}
		}
		v, ok := obj[step]
		if !ok {
			return nil, false
		}
		cur = v
	}
	return cur, true
}

// DenyOutput implements integrations.Denier. For the exit2 form it
// returns integrations.ErrExitDeny: the caller writes the reason on stderr
// and exits 2.
func (a *Agent) DenyOutput(reason string) ([]byte, error) { return a.m.denyOutput(reason) }

func (m *Manifest) denyOutput(reason string) ([]byte, error) {
	switch m.Deny.Form {
	case "claude-json":
		return integrations.PermissionDeny(reason)
	case "gemini-json":
		return integrations.DecisionDeny(reason)
	case "top-level-json":
		return jsonOut(map[string]string{"permissionDecision": "deny", "permissionDecisionReason": reason})
	case "template":
		return execTemplate("deny.template", m.Deny.Template, map[string]string{"Reason": reason})
	}
	return nil, integrations.ErrExitDeny
}

// EditContext implements integrations.Contexter: with Claude Code's
// denial form, the text is PreToolUse's additionalContext on an allowed
// call; the other forms have none (integrations.ErrNoEditContext).
func (a *Agent) EditContext(text string) ([]byte, error) {
	if a.m.Deny.Form == "claude-json" {
		return integrations.PermissionContext(text)
	}
	return nil, integrations.ErrNoEditContext
}

// SessionContext implements integrations.Agent.
func (a *Agent) SessionContext(text string) ([]byte, error) { return a.m.sessionContext(text) }

func (m *Manifest) sessionContext(text string) ([]byte, error) {
	switch m.SessionContext.Form {
	case "top-level":
		return jsonOut(map[string]string{"additionalContext": text})
	case "plain":
		return []byte(text), nil
	case "template":
		return execTemplate("session_context.template", m.SessionContext.Template, map[string]string{"Text": text})
	}
	return integrations.AdditionalContext(or(m.SessionContext.Event, "SessionStart"), text)
}

// jsonOut encodes v as one line of JSON.
func jsonOut(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("hook output: %w", err)
	}
	return b.Bytes(), nil
}

// execTemplate runs a manifest's output template; json quotes a string.
func execTemplate(name, text string, data any) ([]byte, error) {
	t, err := template.New(name).Option("missingkey=error").Funcs(template.FuncMap{
		"json": func(s string) (string, error) { return jsonLine(s, "") },
	}).Parse(text)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}
