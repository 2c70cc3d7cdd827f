// Package manifest is how agentlock describes an agent CLI: one TOML
// manifest says where the agent's instructions go, where and in which
// format its hooks go, how to read its hook payload, which tools edit, how
// to deny an edit, how to give the model its session context, and which
// environment variable holds its session id in the model's shell. An
// Agent is a manifest; package manifest implements integrations.Agent for
// it.
//
// A built-in agent is a folder, integrations/<name>/: its manifest
// (<name>.toml, turned into Go by manifestgen so that no process parses
// it), its templates, its golden files, and Go code only where the
// manifest cannot say it — an Extension, which the manifest names in its
// extensions field. A user's agent is a manifest alone
// (docs/integrations/plugins.md).
package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"text/template"

	toml "github.com/pelletier/go-toml/v2"

	"github.com/agentlock/agentlock/integrations"
)

// Manifest is the decoded TOML of one agent.
type Manifest struct {
	// Name is the agent's name on the command line and its sessions' id
	// prefix: "qwen".
	Name string `toml:"name"`
	// Title is the product name: "Qwen Code".
	Title string `toml:"title"`
	// Provider is the vendor recorded in the registry.
	Provider string `toml:"provider"`
	// Command is the agent's CLI, which the wrapper script runs.
	Command string `toml:"command"`
	// SessionEnv is the variable holding the harness's session id in the
	// model's shell and hooks ("" when there is none).
	SessionEnv string `toml:"session_env"`
	// RootSessionEnv is the variable holding, in a sub-agent's shell, the
	// id of the session it works for, SessionEnv holding the sub-agent's
	// own (integrations.RootSessionVar); "" when the CLI has none.
	RootSessionEnv string `toml:"root_session_env"`
	// SessionIDText completes the instructions' "Your session id: you
	// never type it. agentlock finds it by itself: ..." line.
	SessionIDText string `toml:"session_id_text"`
	// SubAgents says, for doctor and people, how the CLI's sub-agents are
	// told apart: each is then a child session "<session>/<sub-agent id>"
	// (docs/integrations/README.md, Sub-agents). Empty when they are not
	// (no identity in their hooks' payloads): they share their session's
	// locks.
	SubAgents string `toml:"sub_agents"`
	// Wrapper plans scripts/agentlock-<name>; true unless set false.
	Wrapper *bool `toml:"wrapper"`
	// Notes are told to the user by init.
	Notes []string `toml:"notes"`
	// Extensions name what the agent's Go code does where the manifest
	// cannot say it (see Extension): "plan", "hook_files", "payload",
	// "edited_paths", "checks", "legacy". Only a built-in agent has Go
	// code.
	Extensions []string `toml:"extensions"`
	// DirVars are the variables that move the CLI's user folders
	// (KIMI_CODE_HOME), which its Go code reads (Env.AgentDirs).
	DirVars []string `toml:"dir_vars"`
	// EnvVars are other variables of the user's environment that its Go
	// code reads (CODEX_HOME, for doctor).
	EnvVars []string `toml:"env_vars"`

	Instructions []Instruction `toml:"instructions"`
	Hooks        *Hooks        `toml:"hooks"`
	// Files are other files of the agent, rendered from its templates (a
	// plugin, an extension).
	Files     []File   `toml:"files"`
	Payload   Payload  `toml:"payload"`
	EditTools []string `toml:"edit_tools"`
	// WriteTools are the edit tools that write a whole file (Claude
	// Code's Write): a file the session never read is judged before such
	// a write too (docs/read-versions.md). A patch's Add File and Delete
	// File are whole-file writes whatever the tool.
	WriteTools []string `toml:"write_tools"`
	// ReadTools are the tools that read a file, whose after-tool event
	// (the hook that runs renew) records the version the session read
	// (payload.read_paths names the files); none when the CLI reports no
	// read to a hook.
	ReadTools      []string       `toml:"read_tools"`
	Deny           Deny           `toml:"deny"`
	EditContext    EditContext    `toml:"edit_context"`
	SessionContext SessionContext `toml:"session_context"`
	// AfterToolContext is how the after-tool (renew) hook gives the model
	// text at its next tool call: that a file it read was changed by
	// another session since (docs/read-versions.md). None by default.
	AfterToolContext AfterToolContext `toml:"after_tool_context"`
	// MCP is the project file where the CLI reads MCP servers, for the
	// entry of agentlock mcp that init writes; nil when it reads none.
	MCP *MCP `toml:"mcp"`
}

// MCP names a CLI's project MCP file.
type MCP struct {
	// Path is relative to the project; the same file as hooks.path is
	// fine (the entry is merged beside the hooks).
	Path string `toml:"path"`
	// Format is "json" (an "mcpServers" object) or "toml"
	// ([mcp_servers.<name>] tables).
	Format string `toml:"format"`
	// Trust says in a few words how the CLI lets a project's server run.
	Trust string `toml:"trust"`
}

// Instruction is one file of instructions for the model.
type Instruction struct {
	// Path is relative to the project.
	Path string `toml:"path"`
	// Kind is "block" (a managed block in the user's file) or "owned" (a
	// whole file agentlock writes).
	Kind string `toml:"kind"`
	// Placement of a new block: "top" (default) or "bottom".
	Placement string `toml:"placement"`
	// Template is "instructions" (the block text; default for blocks),
	// "rule" (a whole rule file; default for owned files), "skill", or a
	// file of the agent's templates ("rule.mdc.tmpl").
	Template string `toml:"template"`
	// Purpose says what the file is for, in init's plan.
	Purpose string `toml:"purpose"`
}

// File is another file of the agent, rendered from one of its templates.
type File struct {
	// Path is relative to the project.
	Path string `toml:"path"`
	// Kind is "owned" (a whole file agentlock writes) or "block" (a
	// managed block in the user's file).
	Kind string `toml:"kind"`
	// Template is the file of the agent's templates that renders it.
	Template string `toml:"template"`
	// Comment is the line-comment syntax of a block's markers: "<!--"
	// (default) or "#".
	Comment string `toml:"comment"`
	// Placement of a new block: "top" (default) or "bottom".
	Placement string `toml:"placement"`
	// Purpose says what the file is for, in init's plan.
	Purpose string `toml:"purpose"`
	// Hooks marks the file that runs agentlock's hooks (an extension, a
	// plugin): the agent's edits are gated, and its instructions say so.
	Hooks bool `toml:"hooks"`
}

// Hooks is the agent's hook configuration file.
type Hooks struct {
	// Path is relative to the scope's root (the project or the home).
	Path string `toml:"path"`
	// Format is "json" (hook entries merged into a JSON or JSONC settings
	// file, Claude Code's layout) or "toml" (a managed block of
	// [[hooks]] tables, Kimi's layout).
	Format string `toml:"format"`
	// Scope is "project" (default) or "user" (written only with --global).
	Scope string `toml:"scope"`
	// Layout of a JSON hook entry: "nested" (default, Claude Code's:
	// {"matcher": …, "hooks": [{"type": "command", "command": …}]}) or
	// "flat" (Crush's: {"name": …, "matcher": …, "command": …,
	// "timeout": …} straight in the event's array).
	Layout string `toml:"layout"`
	// Command is the text/template of each hook's command line: .Line is
	// the guarded "agentlock hook <agent> <event>" line for a harness that
	// runs it with a POSIX shell, .Shell the same wrapped in sh -c '…' for
	// one that runs it with the user's shell; .Bin, .Agent and .Event are
	// there too. Default "{{.Line}}".
	Command string `toml:"command"`
	// Purpose says what the hooks do, in init's plan.
	Purpose string `toml:"purpose"`
	// Template is a file of the agent's templates that renders the whole
	// hook file, for a layout the events cannot describe; then Events,
	// Layout and Command are left out.
	Template string `toml:"template"`
	// Kind of a templated file: "merged" (default: agentlock's entries
	// merged into the user's file) or "owned" (a whole file of
	// agentlock's own, carrying the generated marker).
	Kind string `toml:"kind"`
	// Events are the hook entries, in the order they are written.
	Events []Event `toml:"events"`
}

// Event is one hook entry.
type Event struct {
	// Name is the harness's event: "PreToolUse".
	Name string `toml:"name"`
	// Run is agentlock's event: pre-edit, session-start, renew or
	// session-end.
	Run string `toml:"run"`
	// Matcher selects the tools (the harness's syntax); "" for none.
	Matcher string `toml:"matcher"`
	// Timeout in the harness's unit (seconds or milliseconds); 0 leaves
	// it out.
	Timeout int `toml:"timeout"`
	// Label is the hook's "name" member (Gemini CLI), "" for none.
	Label string `toml:"label"`
	// Description is the hook's "description" member, "" for none.
	Description string `toml:"description"`
	// StatusMessage is the hook's "statusMessage" member (Claude Code's
	// and Codex's nested layout), "" for none.
	StatusMessage string `toml:"status_message"`
}

// Payload says where the fields agentlock reads are in a hook's JSON
// payload: dotted paths ("tool_input.file_path"). A step that meets a JSON
// string holding an object decodes it and goes on, so a field that one
// harness version sends as an object and another as a JSON string is read
// either way.
type Payload struct {
	SessionID string `toml:"session_id"`
	// SubAgent is the field naming the sub-agent a hook fires in, absent
	// in the main thread (Claude Code's agent_id): the hook then acts for
	// the child session "<session>/<sub-agent>" (docs/integrations/README.md,
	// Sub-agents). "" for a CLI whose payloads say no such thing: its
	// sub-agents share their session's locks.
	SubAgent string `toml:"sub_agent"`
	Cwd      string `toml:"cwd"`
	ToolName string `toml:"tool_name"`
	Model    string `toml:"model"`
	// Paths are tried in order; the first that holds a string, or an
	// array of strings, is the edited path or paths.
	Paths []string `toml:"paths"`
	// ReadPaths are tried in order, for a read tool: the first that holds
	// a string, or an array of strings, is the file or files read.
	ReadPaths []string `toml:"read_paths"`
	// Patches are fields holding the text of an apply_patch patch
	// ("*** Begin Patch" … "*** End Patch", Codex's format): every file
	// the patch adds, updates, deletes or moves to is an edited path, all
	// locked or none. A patch naming no file is refused. Tried before
	// Paths.
	Patches []string `toml:"patches"`
}

// Deny is how a pre-edit hook refuses an edit.
type Deny struct {
	// Form is "exit2" (the reason on stderr, exit 2), "claude-json"
	// (hookSpecificOutput.permissionDecision "deny", exit 0),
	// "gemini-json" ({"decision":"deny","reason":…}, exit 0),
	// "top-level-json" ({"permissionDecision":"deny",
	// "permissionDecisionReason":…}, exit 0) or "template" (Template on
	// stdout, exit 0).
	Form string `toml:"form"`
	// Template is the stdout of the "template" form; .Reason is the
	// reason, and the function json quotes a string.
	Template string `toml:"template"`
	// Exit of the "template" form: 0 (default), or 2 for a harness that
	// reads the output only together with exit 2 (the reason then goes on
	// stderr too).
	Exit int `toml:"exit"`
}

// EditContext is how a pre-edit hook that lets the edit run gives the
// model text (files of the edit that another worktree changed).
type EditContext struct {
	// Form is "hook-specific" (PreToolUse's additionalContext on stdout)
	// or "stderr"; by default "hook-specific" with the claude-json denial,
	// "stderr" with the others.
	Form string `toml:"form"`
}

// SessionContext is how the session-start hook gives the model its text.
type SessionContext struct {
	// Form is "hook-specific" ({"hookSpecificOutput":{"hookEventName":
	// Event,"additionalContext":…}}, the default), "top-level"
	// ({"additionalContext":…}), "plain" (the text itself) or "template".
	Form string `toml:"form"`
	// Event is the hookEventName of the hook-specific form; default
	// "SessionStart".
	Event string `toml:"event"`
	// Template is the stdout of the "template" form; .Text is the text.
	Template string `toml:"template"`
}

// AfterToolContext is how the after-tool hook gives the model text.
type AfterToolContext struct {
	// Form is "hook-specific" ({"hookSpecificOutput":{"hookEventName":
	// Event,"additionalContext":…}} on stdout: Claude Code's PostToolUse,
	// Gemini CLI's AfterTool, Qwen Code's and Factory Droid's
	// PostToolUse), "top-level" ({"additionalContext":…}: Copilot CLI's
	// postToolUse), "template" (Template: the text itself, one line, for
	// the OpenCode and Kilo plugin and the Pi extension, which add it to
	// the tool's result; Cline's {"contextModification":…}), or "" for
	// none: the harness shows the model nothing of an after-tool hook.
	// Whatever the form, the hook prints nothing when there is nothing to
	// tell.
	Form string `toml:"form"`
	// Event is the hookEventName of the hook-specific form (required).
	Event string `toml:"event"`
	// Template is the stdout of the "template" form; .Text is the text.
	Template string `toml:"template"`
}

// FieldError is a manifest refused for one field: the message names the
// field and says what is wrong, in one line.
type FieldError struct {
	Source string // the manifest's file, or "builtin:<name>"
	Field  string // dotted: "hooks.events[1].run"
	Reason string
}

func (e *FieldError) Error() string {
	return fmt.Sprintf("agent manifest %s: field %s: %s", e.Source, e.Field, e.Reason)
}

// Extension names, as a manifest's extensions field lists them.
const (
	ExtPlan        = "plan"
	ExtHookFiles   = "hook_files"
	ExtPayload     = "payload"
	ExtEditedPaths = "edited_paths"
	ExtChecks      = "checks"
	ExtLegacy      = "legacy"
	ExtReadPaths   = "read_paths"
	ExtWholePaths  = "whole_paths"
)

// extensionNames are the values of the extensions field.
func extensionNames() []string {
	return []string{ExtPlan, ExtHookFiles, ExtPayload, ExtEditedPaths, ExtChecks, ExtLegacy, ExtReadPaths, ExtWholePaths}
}

// isName reports whether s is an agent's name: lower-case letters and
// digits, starting with a letter.
func isName(s string) bool {
	for i, r := range s {
		if !('a' <= r && r <= 'z' || i > 0 && '0' <= r && r <= '9') {
			return false
		}
	}
	return s != ""
}

// isEnvName reports whether s is an environment variable's name.
func isEnvName(s string) bool {
	for i, r := range s {
		if !('A' <= r && r <= 'Z' || 'a' <= r && r <= 'z' || r == '_' || i > 0 && '0' <= r && r <= '9') {
			return false
		}
	}
	return s != ""
}

// isTemplateFile reports whether s names a file of an agent's templates:
// "<name>.tmpl", in its folder.
func isTemplateFile(s string) bool {
	return strings.HasSuffix(s, ".tmpl") && len(s) > len(".tmpl") && path.Base(s) == s && !strings.Contains(s, `\`)
}

// Parse decodes and checks one manifest. source names it in errors.
func Parse(data []byte, source string) (*Manifest, error) {
	var m Manifest
	dec := toml.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, decodeError(err, data, source)
	}
	if err := m.check(); err != nil {
		err.Source = source
		return nil, err
	}
	return &m, nil
}

// decodeError turns go-toml's error into one line naming the field.
func decodeError(err error, data []byte, source string) error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		return &FieldError{Source: source, Field: strings.Join(strict.Errors[0].Key(), "."), Reason: "unknown field"}
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, _ := de.Position()
		field := strings.Join(de.Key(), ".")
		if field == "" {
			field = keyAt(data, line)
		}
		return &FieldError{Source: source, Field: field, Reason: strings.TrimPrefix(de.Error(), "toml: ")}
	}
	msg := strings.TrimPrefix(err.Error(), "toml: ")
	if i := strings.Index(msg, "\n"); i >= 0 {
		msg = msg[:i]
	}
	return &FieldError{Source: source, Field: "(document)", Reason: msg}
}

// keyAt names the key on line n (1-based) of a TOML text, inside the table
// whose header is above it: "hooks.events.timeout (line 28)".
func keyAt(data []byte, n int) string {
	lines := strings.Split(string(data), "\n")
	if n < 1 || n > len(lines) {
		return fmt.Sprintf("(line %d)", n)
	}
	key, _, ok := strings.Cut(lines[n-1], "=")
	key = strings.TrimSpace(key)
	if !ok || key == "" {
		return fmt.Sprintf("(line %d)", n)
	}
	for i := n - 2; i >= 0; i-- {
		if h := strings.TrimSpace(lines[i]); strings.HasPrefix(h, "[") {
			key = strings.Trim(h, "[] ") + "." + key
			break
		}
	}
	return fmt.Sprintf("%s (line %d)", key, n)
}

func fieldErr(field, format string, args ...any) *FieldError {
	return &FieldError{Field: field, Reason: fmt.Sprintf(format, args...)}
}

// check refuses a manifest that would plan something wrong.
func (m *Manifest) check() *FieldError {
	switch {
	case m.Name == "":
		return fieldErr("name", "missing")
	case !isName(m.Name):
		return fieldErr("name", "%q: use lower-case letters and digits, starting with a letter (it prefixes session ids: <name>-<id>)", m.Name)
	case m.Name == "all":
		return fieldErr("name", `"all" is reserved`)
	case m.Title == "":
		return fieldErr("title", "missing")
	case m.Provider == "":
		return fieldErr("provider", "missing")
	case m.Command == "" && m.wrapper():
		return fieldErr("command", "missing (the wrapper script runs it; or set wrapper = false)")
	case strings.ContainsAny(m.Command, " \t\n'\"\\$`;&|<>(){}*?"):
		return fieldErr("command", "%q: one program name, without spaces or shell characters", m.Command)
	case m.SessionEnv != "" && !isEnvName(m.SessionEnv):
		return fieldErr("session_env", "%q is not an environment variable name", m.SessionEnv)
	case reservedEnv(m.SessionEnv):
		return fieldErr("session_env", "%q is not a session id: it would name a session in every shell", m.SessionEnv)
	case m.SessionIDText == "":
		return fieldErr("session_id_text", "missing (it tells the model where its session id comes from)")
	}
	if err := m.checkExtensions(); err != nil {
		return err
	}
	if m.has(ExtPlan) {
		// The Go code plans every file: what the manifest would plan is
		// not read, so it may not be said.
		switch {
		case len(m.Instructions) > 0:
			return fieldErr("instructions", "the agent's Go code plans its files (extensions: plan): leave them out")
		case m.Hooks != nil:
			return fieldErr("hooks", "the agent's Go code plans its files (extensions: plan): leave them out")
		case len(m.Files) > 0:
			return fieldErr("files", "the agent's Go code plans its files (extensions: plan): leave them out")
		case m.Wrapper != nil:
			return fieldErr("wrapper", "the agent's Go code plans its files (extensions: plan): leave it out")
		}
	} else if len(m.Instructions) == 0 {
		return fieldErr("instructions", "missing: an agent needs at least one file of instructions")
	}
	seen := map[string]bool{}
	for i, in := range m.Instructions {
		f := fmt.Sprintf("instructions[%d]", i)
		if err := checkPath(f+".path", in.Path); err != nil {
			return err
		}
		if seen[in.Path] {
			return fieldErr(f+".path", "%q is planned twice", in.Path)
		}
		seen[in.Path] = true
		if !slices.Contains([]string{"block", "owned"}, in.Kind) {
			return fieldErr(f+".kind", "%q: want block or owned", in.Kind)
		}
		if err := checkPlacement(f, in.Placement, in.Kind); err != nil {
			return err
		}
		if !slices.Contains([]string{"", "instructions", "rule", "skill"}, in.Template) && !isTemplateFile(in.Template) {
			return fieldErr(f+".template", "%q: want instructions, rule, skill or a file of the agent's templates (<name>.tmpl)", in.Template)
		}
		if in.Kind == "block" && in.Template != "" && in.Template != "instructions" && !isTemplateFile(in.Template) {
			return fieldErr(f+".template", "a block holds the instructions template only")
		}
	}
	if err := m.checkMCP(seen); err != nil {
		return err
	}
	if err := m.checkHooks(seen); err != nil {
		return err
	}
	for i, file := range m.Files {
		f := fmt.Sprintf("files[%d]", i)
		if err := checkPath(f+".path", file.Path); err != nil {
			return err
		}
		if seen[file.Path] {
			return fieldErr(f+".path", "%q is planned twice", file.Path)
		}
		seen[file.Path] = true
		switch {
		case !slices.Contains([]string{"block", "owned"}, file.Kind):
			return fieldErr(f+".kind", "%q: want block or owned", file.Kind)
		case !isTemplateFile(file.Template):
			return fieldErr(f+".template", "%q: want a file of the agent's templates (<name>.tmpl)", file.Template)
		case !slices.Contains([]string{"", "<!--", "#"}, file.Comment):
			return fieldErr(f+".comment", "%q: want <!-- or #", file.Comment)
		case file.Comment != "" && file.Kind != "block":
			return fieldErr(f+".comment", "only a block has comment markers")
		}
		if err := checkPlacement(f, file.Placement, file.Kind); err != nil {
			return err
		}
	}
	if err := m.checkPayload(); err != nil {
		return err
	}
	return m.checkOutputs()
}

// checkExtensions refuses an unknown or repeated extension, and variables
// that no Go code would read.
func (m *Manifest) checkExtensions() *FieldError {
	for i, e := range m.Extensions {
		f := fmt.Sprintf("extensions[%d]", i)
		if !slices.Contains(extensionNames(), e) {
			return fieldErr(f, "%q: want one of %s", e, strings.Join(extensionNames(), ", "))
		}
		if slices.Index(m.Extensions, e) != i {
			return fieldErr(f, "%q is named twice", e)
		}
	}
	for _, vars := range []struct {
		field string
		names []string
	}{{"dir_vars", m.DirVars}, {"env_vars", m.EnvVars}} {
		for i, v := range vars.names {
			f := fmt.Sprintf("%s[%d]", vars.field, i)
			switch {
			case len(m.Extensions) == 0:
				return fieldErr(vars.field, "only an agent's Go code reads them (extensions)")
			case !isEnvName(v):
				return fieldErr(f, "%q is not an environment variable name", v)
			case reservedEnv(v):
				return fieldErr(f, "%q is a variable of every shell, or agentlock's own", v)
			}
		}
	}
	return nil
}

// checkPlacement refuses a placement that is unknown, or given to a file
// that is not a block.
func checkPlacement(f, placement, kind string) *FieldError {
	if !slices.Contains([]string{"", "top", "bottom"}, placement) {
		return fieldErr(f+".placement", "%q: want top or bottom", placement)
	}
	if placement != "" && kind != "block" {
		return fieldErr(f+".placement", "only a block has a placement")
	}
	return nil
}

// checkMCP refuses an MCP file that would clash with another file.
func (m *Manifest) checkMCP(seen map[string]bool) *FieldError {
	mc := m.MCP
	if mc == nil {
		return nil
	}
	if err := checkPath("mcp.path", mc.Path); err != nil {
		return err
	}
	if seen[mc.Path] {
		return fieldErr("mcp.path", "%q is also an instructions file", mc.Path)
	}
	if !slices.Contains([]string{"json", "toml"}, mc.Format) {
		return fieldErr("mcp.format", "%q: want json or toml", mc.Format)
	}
	if h := m.Hooks; h != nil && h.Path == mc.Path && h.Format != mc.Format {
		return fieldErr("mcp.format", "%q: the file is hooks.path, whose format is %q", mc.Format, h.Format)
	}
	return nil
}

// checkHooks refuses hooks that would not gate edits, or that agentlock
// could not find again in the harness's file.
func (m *Manifest) checkHooks(seen map[string]bool) *FieldError {
	h := m.Hooks
	if h == nil {
		return nil
	}
	if err := checkPath("hooks.path", h.Path); err != nil {
		return err
	}
	if seen[h.Path] {
		return fieldErr("hooks.path", "%q is also an instructions file", h.Path)
	}
	seen[h.Path] = true
	switch {
	case !slices.Contains([]string{"json", "toml"}, h.Format):
		return fieldErr("hooks.format", "%q: want json or toml", h.Format)
	case !slices.Contains([]string{"", "project", "user"}, h.Scope):
		return fieldErr("hooks.scope", "%q: want project or user", h.Scope)
	case !slices.Contains([]string{"", "nested", "flat"}, h.Layout):
		return fieldErr("hooks.layout", "%q: want nested or flat", h.Layout)
	case h.Layout != "" && h.Format != "json":
		return fieldErr("hooks.layout", "only JSON hooks have a layout")
	case !slices.Contains([]string{"", "merged", "owned"}, h.Kind):
		return fieldErr("hooks.kind", "%q: want merged or owned", h.Kind)
	case h.Kind != "" && h.Template == "":
		return fieldErr("hooks.kind", "only a templated hook file has a kind")
	}
	if h.Template != "" {
		switch {
		case !isTemplateFile(h.Template):
			return fieldErr("hooks.template", "%q: want a file of the agent's templates (<name>.tmpl)", h.Template)
		case len(h.Events) > 0:
			return fieldErr("hooks.events", "the template writes the whole hook file: leave them out")
		case h.Layout != "" || h.Command != "":
			return fieldErr("hooks.template", "the template writes the whole hook file: leave out layout and command")
		}
		return nil
	}
	if _, err := template.New("command").Parse(h.Command); err != nil {
		return fieldErr("hooks.command", "not a template: %v", err)
	}
	if len(h.Events) == 0 {
		return fieldErr("hooks.events", "missing: hooks need at least one event")
	}
	for i, e := range h.Events {
		f := fmt.Sprintf("hooks.events[%d]", i)
		switch {
		case e.Name == "":
			return fieldErr(f+".name", "missing (the harness's event name)")
		case !slices.Contains(integrations.HookEvents(), e.Run):
			return fieldErr(f+".run", "%q: want one of %s", e.Run, strings.Join(integrations.HookEvents(), ", "))
		case e.Timeout < 0:
			return fieldErr(f+".timeout", "negative")
		case e.Run == integrations.PreEdit && e.Matcher == "":
			return fieldErr(f+".matcher", "missing: a pre-edit hook must name the edit tools it gates")
		case e.StatusMessage != "" && (h.Format != "json" || h.Layout == "flat"):
			return fieldErr(f+".status_message", "only nested JSON hooks have a status message")
		}
	}
	if m.preEdit() && len(m.Payload.Paths) == 0 && len(m.Payload.Patches) == 0 && !m.has(ExtEditedPaths) {
		return fieldErr("payload.paths", "missing: a pre-edit hook must know where the payload names the edited path")
	}
	cmd, err := m.hookCommand(integrations.PreEdit, "agentlock")
	if err != nil {
		return fieldErr("hooks.command", "%v", err)
	}
	if !strings.Contains(cmd, "agentlock hook "+m.Name+" pre-edit") {
		return fieldErr("hooks.command", "must run {{.Line}} or {{.Shell}}: agentlock finds its hook entries by the line \"agentlock hook <agent> <event>\"")
	}
	return nil
}

// checkPayload refuses empty field paths, and read tools whose reads
// could not be recorded.
func (m *Manifest) checkPayload() *FieldError {
	p := m.Payload
	for i, f := range p.Paths {
		if f == "" {
			return fieldErr(fmt.Sprintf("payload.paths[%d]", i), "empty")
		}
	}
	for i, f := range p.ReadPaths {
		if f == "" {
			return fieldErr(fmt.Sprintf("payload.read_paths[%d]", i), "empty")
		}
	}
	for i, t := range m.ReadTools {
		if t == "" {
			return fieldErr(fmt.Sprintf("read_tools[%d]", i), "empty")
		}
	}
	for i, t := range m.WriteTools {
		if t == "" {
			return fieldErr(fmt.Sprintf("write_tools[%d]", i), "empty")
		}
		if len(m.EditTools) > 0 && !slices.Contains(m.EditTools, t) {
			return fieldErr(fmt.Sprintf("write_tools[%d]", i), "%q is not one of edit_tools: a whole-file write is an edit", t)
		}
	}
	if len(m.ReadTools) > 0 && len(p.ReadPaths) == 0 && !m.has(ExtReadPaths) {
		return fieldErr("payload.read_paths", "missing: read_tools need the field that names the file read")
	}
	for i, f := range p.Patches {
		if f == "" {
			return fieldErr(fmt.Sprintf("payload.patches[%d]", i), "empty")
		}
	}
	return nil
}

// checkOutputs refuses a denial, an edit context or a session context
// that the hook could not write.
func (m *Manifest) checkOutputs() *FieldError {
	switch m.Deny.Form {
	case "", "exit2", "claude-json", "gemini-json", "top-level-json":
		if m.Deny.Template != "" {
			return fieldErr("deny.template", "only with form = \"template\"")
		}
		if m.Deny.Exit != 0 {
			return fieldErr("deny.exit", "only with form = \"template\"")
		}
	case "template":
		if _, err := m.denyOutput("why"); err != nil && !errors.Is(err, integrations.ErrExitDenyWithOutput) {
			return fieldErr("deny.template", "%v", err)
		}
		if m.Deny.Exit != 0 && m.Deny.Exit != 2 {
			return fieldErr("deny.exit", "%d: want 0 or 2", m.Deny.Exit)
		}
	default:
		return fieldErr("deny.form", "%q: want exit2, claude-json, gemini-json, top-level-json or template", m.Deny.Form)
	}
	if !slices.Contains([]string{"", "hook-specific", "stderr"}, m.EditContext.Form) {
		return fieldErr("edit_context.form", "%q: want hook-specific or stderr", m.EditContext.Form)
	}
	switch c := m.AfterToolContext; {
	case !slices.Contains([]string{"", "hook-specific", "top-level", "template"}, c.Form):
		return fieldErr("after_tool_context.form", "%q: want hook-specific, top-level or template", c.Form)
	case c.Form == "hook-specific" && c.Event == "":
		return fieldErr("after_tool_context.event", "required with form = \"hook-specific\"")
	case c.Form != "hook-specific" && c.Event != "":
		return fieldErr("after_tool_context.event", "only with form = \"hook-specific\"")
	case c.Form != "template" && c.Template != "":
		return fieldErr("after_tool_context.template", "only with form = \"template\"")
	case c.Form == "template" && c.Template == "":
		return fieldErr("after_tool_context.template", "required with form = \"template\"")
	case c.Form == "template":
		if _, err := execTemplate("after_tool_context.template", c.Template, map[string]string{"Text": "text"}); err != nil {
			return fieldErr("after_tool_context.template", "%v", err)
		}
	}
	switch m.SessionContext.Form {
	case "", "hook-specific", "top-level", "plain":
		if m.SessionContext.Template != "" {
			return fieldErr("session_context.template", "only with form = \"template\"")
		}
	case "template":
		if _, err := m.sessionContext("text"); err != nil {
			return fieldErr("session_context.template", "%v", err)
		}
	default:
		return fieldErr("session_context.form", "%q: want hook-specific, top-level, plain or template", m.SessionContext.Form)
	}
	return nil
}

// reservedEnv reports whether name is a variable of every shell, or
// agentlock's own, which a harness's session variable cannot be.
func reservedEnv(name string) bool {
	switch name {
	case "HOME", "USER", "LOGNAME", "PATH", "SHELL", "PWD", "OLDPWD", "TERM", "LANG", "TMPDIR", "HOSTNAME":
		return true
	}
	return strings.HasPrefix(name, "AGENTLOCK_") || strings.HasPrefix(name, "AGENT_REGISTRY_") || strings.HasPrefix(name, "XDG_")
}

// checkPath refuses a path that is empty, absolute or leaves its root.
func checkPath(field, p string) *FieldError {
	switch {
	case p == "":
		return fieldErr(field, "missing")
	case strings.HasPrefix(p, "/") || strings.Contains(p, `\`) || slices.Contains(strings.Split(p, "/"), ".."):
		return fieldErr(field, "%q: a relative path with / separators, inside its folder", p)
	}
	return nil
}

func (m *Manifest) wrapper() bool { return m.Wrapper == nil || *m.Wrapper }

// gates reports whether the agent's planned files gate its edits: its
// hooks (user-level ones only with consent), a file that runs them, or the
// hook files of its extension.
func (m *Manifest) gates(global bool) bool {
	if m.preEdit() && (m.Hooks.Scope != "user" || global) || m.has(ExtHookFiles) {
		return true
	}
	return slices.ContainsFunc(m.Files, func(f File) bool { return f.Hooks })
}

// preEdit reports whether the hooks gate edits: a templated hook file
// does (it is a built-in agent's, whose golden files show it).
func (m *Manifest) preEdit() bool {
	if m.Hooks == nil {
		return false
	}
	return m.Hooks.Template != "" || slices.ContainsFunc(m.Hooks.Events, func(e Event) bool { return e.Run == integrations.PreEdit })
}

// has reports whether the manifest names extension e.
func (m *Manifest) has(e string) bool { return slices.Contains(m.Extensions, e) }

// templateFiles returns the fields that name files of the agent's
// templates, which only a built-in agent has.
func (m *Manifest) templateFiles() []string {
	var fields []string
	for i, in := range m.Instructions {
		if isTemplateFile(in.Template) {
			fields = append(fields, fmt.Sprintf("instructions[%d].template", i))
		}
	}
	if m.Hooks != nil && m.Hooks.Template != "" {
		fields = append(fields, "hooks.template")
	}
	for i := range m.Files {
		fields = append(fields, fmt.Sprintf("files[%d].template", i))
	}
	return fields
}
