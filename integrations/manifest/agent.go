package manifest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"
	"text/template"

	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/templates"
)

// Agent is an agent CLI described by a manifest, with the templates and
// the Go extension of its folder when it is built in. It implements
// integrations.Agent and its optional interfaces.
type Agent struct {
	// head is what every command reads of the agent (Head); m returns its
	// whole manifest, built on first use for a built-in agent.
	head Head
	m    func() *Manifest
	// templates are the agent's own templates; nil for a user's manifest.
	templates fs.FS
	ext       Extension
	// copy, when set, is a copy of the manifest that init writes into the
	// project (CopyPath), so that the project's hooks find the agent.
	copy []byte
}

var (
	_ integrations.Agent          = (*Agent)(nil)
	_ integrations.Denier         = (*Agent)(nil)
	_ integrations.DenyFormer     = (*Agent)(nil)
	_ integrations.Contexter      = (*Agent)(nil)
	_ integrations.PayloadDecoder = (*Agent)(nil)
	_ integrations.MCPRegistrar   = (*Agent)(nil)
	_ integrations.Variables      = (*Agent)(nil)
	_ integrations.Doctor         = (*Agent)(nil)
	_ integrations.Reader         = (*Agent)(nil)
)

// Extension is the Go code of a built-in agent, for what its manifest
// cannot say; the manifest names each part it has (Manifest.Extensions).
// A nil function leaves that part to the manifest.
type Extension struct {
	// Plan plans every file of the agent, in place of the manifest
	// (ExtPlan: Kimi's hooks in a user-level file, only with consent).
	Plan func(a *Agent, env integrations.Env) ([]integrations.Artifact, []string, error)
	// HookFiles plans the files that run agentlock's hooks, after the
	// manifest's hooks and files and before the wrapper script
	// (ExtHookFiles: Cline's, one executable per event).
	HookFiles func(d templates.AgentData) ([]integrations.Artifact, error)
	// DecodePayload reads the harness's hook payload (ExtPayload).
	DecodePayload func(data []byte) (integrations.HookInput, error)
	// EditedPaths returns the paths a pre-edit payload is about to change
	// (ExtEditedPaths: Codex's patches run through the shell).
	EditedPaths func(in integrations.HookInput) ([]string, error)
	// Checks are the agent's own checks of a connected project, after the
	// standard ones (ExtChecks: what keeps its CLI from running
	// agentlock's hooks, such as a trust step).
	Checks func(a *Agent, env integrations.DoctorEnv) []integrations.Check
	// Legacy is the check that files an older agentlock wrote for a CLI it
	// no longer supports (the artifacts its Plan marks Unsupported) are
	// still there, in files; connected or not (ExtLegacy: Kimi's).
	Legacy func(files string) integrations.Check
	// ReadPaths returns the files an after-tool payload of a read tool
	// read (ExtReadPaths: a payload the manifest's fields cannot name).
	ReadPaths func(in integrations.HookInput) ([]string, error)
	// WholePaths returns the paths an edit payload writes whole
	// (ExtWholePaths).
	WholePaths func(in integrations.HookInput) []string
}

// names returns the extensions e has, in the order of extensionNames.
func (e Extension) names() []string {
	var names []string
	for _, x := range []struct {
		name string
		set  bool
	}{{ExtPlan, e.Plan != nil}, {ExtHookFiles, e.HookFiles != nil}, {ExtPayload, e.DecodePayload != nil},
		{ExtEditedPaths, e.EditedPaths != nil}, {ExtChecks, e.Checks != nil}, {ExtLegacy, e.Legacy != nil},
		{ExtReadPaths, e.ReadPaths != nil}, {ExtWholePaths, e.WholePaths != nil}} {
		if x.set {
			names = append(names, x.name)
		}
	}
	return names
}

// Head is what every command reads of every agent, whatever it does: the
// agent's name and the variables of its harness and CLI (the session's,
// the root session's, the folders' and the others': the session of a
// command is resolved from them). A built-in agent's is generated beside
// its manifest (Declared), so that a command builds only the manifests
// of the agents it works with (building the thirteen cost every lock call
// and hook 0.03 ms: docs/speed.md).
type Head struct {
	Name           string
	SessionEnv     string
	RootSessionEnv string
	DirVars        []string
	EnvVars        []string
}

// HeadOf returns m's head.
func HeadOf(m *Manifest) Head {
	return Head{Name: m.Name, SessionEnv: m.SessionEnv, RootSessionEnv: m.RootSessionEnv, DirVars: m.DirVars, EnvVars: m.EnvVars}
}

// Declared is a built-in agent's manifest as manifestgen generates it from
// its folder's TOML (checked then): its head, and a function that builds
// the whole manifest.
type Declared struct {
	Head     Head
	Manifest func() *Manifest
}

// Builtin returns a built-in agent: its manifest d, the templates of its
// folder (nil for none) and its Go extension. No manifest is parsed, and
// the manifest is built the first time something other than its head is
// asked for, once.
func Builtin(d Declared, templates fs.FS, ext Extension) *Agent {
	return &Agent{head: d.Head, m: sync.OnceValue(d.Manifest), templates: templates, ext: ext}
}

// CheckExtension reports a built-in agent whose Go extension is not the
// one its manifest names (a test checks every built-in agent).
func (a *Agent) CheckExtension() error {
	want := slices.Clone(a.m().Extensions)
	slices.SortFunc(want, func(x, y string) int { return slices.Index(extensionNames(), x) - slices.Index(extensionNames(), y) })
	if got := a.ext.names(); !slices.Equal(got, want) {
		return fmt.Errorf("agent %s: its manifest names the extensions %v, its Go code has %v", a.m().Name, want, got)
	}
	return nil
}

// Load parses data (from source), a user's manifest, into an agent. A
// user's manifest has no Go code and no templates of its own.
func Load(data []byte, source string) (*Agent, error) {
	m, err := Parse(data, source)
	if err != nil {
		return nil, err
	}
	if len(m.Extensions) > 0 {
		return nil, &FieldError{Source: source, Field: "extensions", Reason: "only an agent built into agentlock has Go code"}
	}
	if fields := m.templateFiles(); len(fields) > 0 {
		return nil, &FieldError{Source: source, Field: fields[0], Reason: "only an agent built into agentlock has templates of its own: use instructions, rule or skill, and hooks.events"}
	}
	return &Agent{head: HeadOf(m), m: func() *Manifest { return m }}, nil
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
	b := *a
	b.copy = append([]byte(copyHeader), body...)
	return &b
}

// Manifest returns the agent's manifest.
func (a *Agent) Manifest() *Manifest { return a.m() }

// Head returns the agent's head (Head).
func (a *Agent) Head() Head { return a.head }

// Name implements integrations.Agent.
func (a *Agent) Name() string { return a.head.Name }

// Title implements integrations.Agent.
func (a *Agent) Title() string { return a.m().Title }

// Provider implements integrations.Agent.
func (a *Agent) Provider() string { return a.m().Provider }

// SessionEnvVar implements integrations.Agent.
func (a *Agent) SessionEnvVar() string { return a.head.SessionEnv }

// RootSessionEnvVar implements integrations.RootSessionVar: the
// manifest's root_session_env.
func (a *Agent) RootSessionEnvVar() string { return a.head.RootSessionEnv }

// SubAgents implements integrations.SubAgentTeller: the manifest's
// sub_agents.
func (a *Agent) SubAgents() string { return a.m().SubAgents }

// DirVars implements integrations.Variables.
func (a *Agent) DirVars() []string { return slices.Clone(a.head.DirVars) }

// EnvVars implements integrations.Variables.
func (a *Agent) EnvVars() []string { return slices.Clone(a.head.EnvVars) }

// MCPFile implements integrations.MCPRegistrar: the manifest's [mcp].
func (a *Agent) MCPFile(integrations.Env) (integrations.MCPFile, bool) {
	mc := a.m().MCP
	if mc == nil {
		return integrations.MCPFile{}, false
	}
	return integrations.MCPFile{Path: mc.Path, TOML: mc.Format == "toml", Trust: mc.Trust}, true
}

// Data returns the template data of the agent planning in env: its files
// run env.Bin, its wrapper script is at integrations.WrapperPath, and its
// own templates come with it.
func (a *Agent) Data(env integrations.Env) templates.AgentData {
	m := a.m()
	return templates.AgentData{Bin: env.Bin, Agent: m.Name, Title: m.Title, Command: m.Command, Provider: m.Provider,
		Wrapper: integrations.WrapperPath(m.Name), PreEditHook: m.gates(env.Global),
		SessionVar: m.SessionEnv, RootSessionVar: m.RootSessionEnv, SessionIDText: m.SessionIDText, Templates: a.templates}
}

// Plan implements integrations.Agent: the instructions, the hooks, the
// other files, the wrapper script and the project's copy of a manifest
// given by path, in that order (or the extension's plan).
func (a *Agent) Plan(env integrations.Env) ([]integrations.Artifact, []string, error) {
	if a.ext.Plan != nil {
		return a.ext.Plan(a, env)
	}
	m := a.m()
	d := a.Data(env)
	var p integrations.Plan
	for _, in := range m.Instructions {
		p.Add(instruction(in, d))
	}
	if h := m.Hooks; h != nil {
		if h.Scope == "user" && !env.Global {
			p.Notes = append(p.Notes, fmt.Sprintf("%s reads its hooks from ~/%s, outside the project: run init --agent %s --global to add them; without them no edit is gated.",
				m.Title, h.Path, m.Name))
		} else {
			p.Add(a.hooksArtifact(d))
		}
	}
	for _, f := range m.Files {
		p.Add(file(f, d))
	}
	if a.ext.HookFiles != nil {
		arts, err := a.ext.HookFiles(d)
		if err != nil {
			p.Add(integrations.Artifact{}, err)
		}
		for _, art := range arts {
			p.Add(art, nil)
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

// file renders one of the manifest's other files.
func file(f File, d templates.AgentData) (integrations.Artifact, error) {
	kind := integrations.OwnedFile
	if f.Kind == "block" {
		kind = integrations.ManagedBlock
	}
	a, err := integrations.Rendered(f.Path, integrations.Project, kind, f.Template, d, f.Purpose)
	if f.Comment != "" {
		a.Comment = f.Comment
	}
	if f.Placement == "bottom" {
		a.Placement = integrations.Bottom
	}
	return a, err
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
	file := tmpl
	if !isTemplateFile(tmpl) {
		file = map[string]string{"rule": "rule.md.tmpl", "instructions": "block.md.tmpl"}[tmpl]
	}
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

// hooksArtifact renders the hook configuration: from the agent's
// template, or generated from the events.
func (a *Agent) hooksArtifact(d templates.AgentData) (integrations.Artifact, error) {
	h := a.m().Hooks
	scope := integrations.Project
	if h.Scope == "user" {
		scope = integrations.User
	}
	purpose := or(h.Purpose, "hooks: lock before an edit, register at start, renew after each tool, finish at the end")
	art := integrations.Artifact{Path: h.Path, Scope: scope, Purpose: purpose}
	switch {
	case h.Kind == "owned":
		art.Kind, art.Comment = integrations.OwnedFile, "<!--"
	case h.Format == "toml":
		art.Kind, art.Comment, art.Placement = integrations.TOMLBlock, "#", integrations.Bottom
	default:
		art.Kind, art.Comment = integrations.JSONHooks, "<!--"
	}
	var err error
	switch {
	case h.Template != "":
		art.Content, err = templates.Render(h.Template, d)
	case h.Format == "toml":
		art.Content, err = a.tomlHooks(d.Bin)
	default:
		art.Content, err = a.jsonHooks(d.Bin)
	}
	return art, err
}

// jsonEntry and jsonGroup are Claude Code's layout of a hook, in the
// order its members are written.
type jsonEntry struct {
	Name          string `json:"name,omitempty"`
	Type          string `json:"type"`
	Command       string `json:"command"`
	Timeout       int    `json:"timeout,omitempty"`
	Description   string `json:"description,omitempty"`
	StatusMessage string `json:"statusMessage,omitempty"`
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
	for _, e := range a.m().Hooks.Events {
		cmd, err := a.m().hookCommand(e.Run, bin)
		if err != nil {
			return nil, fmt.Errorf("hooks of %s: %w", a.m().Name, err)
		}
		if _, ok := groups[e.Name]; !ok {
			order = append(order, e.Name)
		}
		var g any = jsonGroup{Matcher: e.Matcher,
			Hooks: []jsonEntry{{Name: e.Label, Type: "command", Command: cmd, Timeout: e.Timeout, Description: e.Description, StatusMessage: e.StatusMessage}}}
		if a.m().Hooks.Layout == "flat" {
			g = flatEntry{Name: e.Label, Matcher: e.Matcher, Command: cmd, Timeout: e.Timeout}
		}
		groups[e.Name] = append(groups[e.Name], g)
	}
	var b bytes.Buffer
	b.WriteString("{\n  \"hooks\": {\n")
	for i, name := range order {
		key, err := templates.JSON(name)
		if err != nil {
			return nil, fmt.Errorf("hook entries: %w", err)
		}
		value, err := templates.IndentedJSON(groups[name], "    ")
		if err != nil {
			return nil, fmt.Errorf("hook entries: %w", err)
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

// tomlHooks is the block of [[hooks]] tables, Kimi's layout.
func (a *Agent) tomlHooks(bin string) ([]byte, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "# agentlock's hooks for %s. They do nothing where agentlock is not set up\n# (no .agent-registry folder).\n", a.m().Title)
	for i, e := range a.m().Hooks.Events {
		cmd, err := a.m().hookCommand(e.Run, bin)
		if err != nil {
			return nil, fmt.Errorf("hooks of %s: %w", a.m().Name, err)
		}
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "[[hooks]]\nevent = %s\n", templates.TOML(e.Name))
		if e.Matcher != "" {
			fmt.Fprintf(&b, "matcher = %s\n", templates.TOML(e.Matcher))
		}
		fmt.Fprintf(&b, "command = %s\n", templates.TOML(cmd))
		if e.Timeout > 0 {
			fmt.Fprintf(&b, "timeout = %d\n", e.Timeout)
		}
	}
	return []byte(b.String()), nil
}

// EditedPaths implements integrations.Agent: for a tool the manifest
// counts as an edit (every tool, when it lists none; a call that names no
// tool, see integrations.EditCall), the extension's paths, or the first of
// the payload's path fields that holds a path.
func (a *Agent) EditedPaths(in integrations.HookInput) ([]string, error) {
	if len(a.m().EditTools) > 0 && !integrations.EditCall(in.ToolName, a.m().EditTools...) {
		return nil, nil
	}
	if a.ext.EditedPaths != nil {
		return a.ext.EditedPaths(in)
	}
	if len(a.m().Payload.Patches) == 0 && len(a.m().Payload.Paths) == 0 {
		return nil, nil
	}
	top, _ := members(in.Raw) // decoded once: a Write's payload holds the file's whole text
	for _, field := range a.m().Payload.Patches {
		var text string
		if v, ok := lookup(top, field); !ok || json.Unmarshal(v, &text) != nil || text == "" {
			continue
		}
		paths := integrations.PatchPaths([]string{text})
		if len(paths) == 0 {
			return nil, fmt.Errorf("%w: the patch in %s names no file agentlock can read (want *** Begin Patch, then *** Add File:, *** Update File: or *** Delete File: lines)", integrations.ErrUncheckable, field)
		}
		return paths, nil
	}
	return pathsAt(top, a.m().Payload.Paths), nil
}

// ReadTools implements integrations.Reader: the manifest's read_tools.
func (a *Agent) ReadTools() []string { return slices.Clone(a.m().ReadTools) }

// ReadPaths implements integrations.Reader: for one of the manifest's
// read tools, the first of payload.read_paths that holds a path (or
// paths); or the extension's.
func (a *Agent) ReadPaths(in integrations.HookInput) ([]string, error) {
	if a.ext.ReadPaths != nil {
		return a.ext.ReadPaths(in)
	}
	if !slices.Contains(a.m().ReadTools, in.ToolName) || len(a.m().Payload.ReadPaths) == 0 {
		return nil, nil
	}
	top, _ := members(in.Raw)
	return pathsAt(top, a.m().Payload.ReadPaths), nil
}

// WholePaths implements integrations.Reader: the paths a whole-file write
// tool of write_tools edits, and the files a patch adds or deletes; or the
// extension's.
func (a *Agent) WholePaths(in integrations.HookInput) []string {
	if a.ext.WholePaths != nil {
		return a.ext.WholePaths(in)
	}
	if len(a.m().Payload.Patches) > 0 {
		top, _ := members(in.Raw)
		for _, field := range a.m().Payload.Patches {
			var text string
			if v, ok := lookup(top, field); ok && json.Unmarshal(v, &text) == nil && text != "" {
				return integrations.PatchWholePaths([]string{text})
			}
		}
	}
	if in.ToolName != "" && slices.Contains(a.m().WriteTools, in.ToolName) {
		paths, _ := a.EditedPaths(in)
		return paths
	}
	return nil
}

// pathsAt is the first of fields, read from top (lookup), that holds a
// path, or an array of paths.
func pathsAt(top map[string]json.RawMessage, fields []string) []string {
	for _, field := range fields {
		v, ok := lookup(top, field)
		if !ok {
			continue
		}
		var one string
		if json.Unmarshal(v, &one) == nil && one != "" {
			return []string{one}
		}
		var many []string
		if json.Unmarshal(v, &many) == nil && len(many) > 0 {
			return slices.DeleteFunc(many, func(s string) bool { return s == "" })
		}
	}
	return nil
}

// DecodePayload implements integrations.PayloadDecoder: the fields at the
// manifest's paths (Claude Code's names where it gives none; the tool's
// input is tool_input, for the extension's EditedPaths), or the
// extension's reading.
func (a *Agent) DecodePayload(data []byte) (integrations.HookInput, error) {
	if a.ext.DecodePayload != nil {
		return a.ext.DecodePayload(data)
	}
	in := integrations.HookInput{Raw: data}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return in, fmt.Errorf("the payload is not JSON: %w", err)
	}
	p := a.m().Payload
	in.SessionID = stringAt(top, or(p.SessionID, "session_id"))
	if p.SubAgent != "" {
		in.SubAgent = stringAt(top, p.SubAgent)
	}
	in.Cwd = stringAt(top, or(p.Cwd, "cwd"))
	in.ToolName = stringAt(top, or(p.ToolName, "tool_name"))
	in.Event = stringAt(top, "hook_event_name")
	if v, ok := lookup(top, or(p.Model, "model")); ok {
		in.Model = v
	}
	if v, ok := top["tool_input"]; ok {
		in.ToolInput = v
	}
	return in, nil
}

func or(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// stringAt is the string at a dotted path from top (lookup), "" when
// there is none.
func stringAt(top map[string]json.RawMessage, path string) string {
	v, ok := lookup(top, path)
	if !ok {
		return ""
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return ""
	}
	return s
}

// lookup walks a dotted path through JSON objects, from top, the members
// of the payload (members): each member is decoded only when the path
// goes through it, and the payload, which can hold a whole file's text,
// is decoded once for every field read. A step that meets a JSON string
// holding an object decodes that string and goes on.
func lookup(top map[string]json.RawMessage, path string) (json.RawMessage, bool) {
	obj := top
	steps := strings.Split(path, ".")
	for i, step := range steps {
		v, ok := obj[step]
		if !ok {
			return nil, false
		}
		if i == len(steps)-1 {
			return v, true
		}
		if obj, ok = members(v); !ok {
			return nil, false
		}
	}
	return nil, false
}

// members decodes the members of a JSON object, or of a JSON string
// holding one; false when v is neither.
func members(v json.RawMessage) (map[string]json.RawMessage, bool) {
	var obj map[string]json.RawMessage
	if json.Unmarshal(v, &obj) != nil {
		var s string
		if json.Unmarshal(v, &s) != nil || json.Unmarshal([]byte(s), &obj) != nil {
			return nil, false
		}
	}
	return obj, true
}

// DenyOutput implements integrations.Denier. For the exit2 form it
// returns integrations.ErrExitDeny: the caller writes the reason on stderr
// and exits 2; for a template with exit 2, the output and
// integrations.ErrExitDenyWithOutput.
func (a *Agent) DenyOutput(reason string) ([]byte, error) { return a.m().denyOutput(reason) }

func (m *Manifest) denyOutput(reason string) ([]byte, error) {
	switch m.Deny.Form {
	case "claude-json":
		return integrations.PermissionDeny(reason)
	case "gemini-json":
		return integrations.DecisionDeny(reason)
	case "top-level-json":
		return integrations.MarshalLine(map[string]string{"permissionDecision": "deny", "permissionDecisionReason": reason}, "pre-edit denial")
	case "template":
		out, err := execTemplate("deny.template", m.Deny.Template, map[string]string{"Reason": reason})
		if err == nil && m.Deny.Exit == 2 {
			err = integrations.ErrExitDenyWithOutput
		}
		return out, err
	}
	return nil, integrations.ErrExitDeny
}

// DenyForm implements integrations.DenyFormer: the denial's exit code and
// output, with "..." for the reason.
func (a *Agent) DenyForm() string {
	d := a.m().Deny
	switch d.Form {
	case "claude-json":
		return `exit 0 and {"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":...}} on stdout`
	case "gemini-json":
		return `exit 0 and {"decision":"deny","reason":...} on stdout`
	case "top-level-json":
		return `exit 0 and {"permissionDecision":"deny","permissionDecisionReason":...} on stdout`
	case "template":
		out := strings.TrimSpace(strings.NewReplacer("{{json .Reason}}", "...", "{{.Reason}}", "...").Replace(d.Template))
		if d.Exit == 2 {
			return "exit 2, " + out + " on stdout and the line on stderr"
		}
		return "exit 0 and " + out + " on stdout"
	}
	return "exit 2 and the line on stderr"
}

// EditContext implements integrations.Contexter: Claude Code's
// PreToolUse additionalContext on an allowed call (by default with its
// denial form); the other forms have none (integrations.ErrNoEditContext).
func (a *Agent) EditContext(text string) ([]byte, error) {
	form := a.m().EditContext.Form
	if form == "" && a.m().Deny.Form == "claude-json" {
		form = "hook-specific"
	}
	if form == "hook-specific" {
		return integrations.PermissionContext(text)
	}
	return nil, integrations.ErrNoEditContext
}

// AfterToolContext implements integrations.AfterToolContexter: the
// manifest's after_tool_context form, or integrations.ErrNoAfterToolContext
// when it declares none.
func (a *Agent) AfterToolContext(text string) ([]byte, error) {
	switch c := a.m().AfterToolContext; c.Form {
	case "hook-specific":
		return integrations.AdditionalContext(c.Event, text)
	case "top-level":
		return integrations.MarshalLine(map[string]string{"additionalContext": text}, "after-tool context")
	case "template":
		return execTemplate("after_tool_context.template", c.Template, map[string]string{"Text": text})
	}
	return nil, integrations.ErrNoAfterToolContext
}

// SessionContext implements integrations.Agent.
func (a *Agent) SessionContext(text string) ([]byte, error) { return a.m().sessionContext(text) }

func (m *Manifest) sessionContext(text string) ([]byte, error) {
	switch m.SessionContext.Form {
	case "top-level":
		return integrations.MarshalLine(map[string]string{"additionalContext": text}, "session context")
	case "plain":
		return []byte(text), nil
	case "template":
		return execTemplate("session_context.template", m.SessionContext.Template, map[string]string{"Text": text})
	}
	return integrations.AdditionalContext(or(m.SessionContext.Event, "SessionStart"), text)
}

// execTemplate runs a manifest's output template; json quotes a string.
func execTemplate(name, text string, data any) ([]byte, error) {
	t, err := template.New(name).Option("missingkey=error").Funcs(template.FuncMap{
		"json": func(s string) (string, error) { return templates.JSON(s) },
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

// Doctor implements integrations.Doctor: the check of what an older
// agentlock left for an unsupported CLI (the extension's Legacy), then,
// for a connected agent, the standard checks and the extension's Checks.
func (a *Agent) Doctor(env integrations.DoctorEnv) []integrations.Check {
	var checks []integrations.Check
	if env.Legacy != "" && a.ext.Legacy != nil {
		checks = append(checks, a.ext.Legacy(env.Legacy))
	}
	checks = append(checks, integrations.StandardChecks(env)...)
	if env.Connected && a.ext.Checks != nil {
		checks = append(checks, a.ext.Checks(a, env)...)
	}
	return checks
}
