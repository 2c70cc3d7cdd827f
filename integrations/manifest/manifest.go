// Package manifest is the declarative adapter of integrations: an agent
// CLI described by one TOML manifest instead of a Go package. The manifest
// says where the agent's instructions go, where and in which format its
// hooks go, how to read its hook payload, which tools edit, how to deny an
// edit, how to give the model its session context, and which environment
// variable holds its session id in the model's shell.
//
// Agents that need code (Codex's patch parsing, Gemini's path
// normalisation) stay Go packages that implement integrations.Agent; the
// others are manifests, built in (embedded) or added by the user
// (docs/integrations/plugins.md).
package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"text/template"

	toml "github.com/pelletier/go-toml/v2"
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
	// SessionIDText completes the instructions' "Your session id: you
	// never type it. agentlock finds it by itself: ..." line.
	SessionIDText string `toml:"session_id_text"`
	// Wrapper plans scripts/agentlock-<name>; true unless set false.
	Wrapper *bool `toml:"wrapper"`
	// Notes are told to the user by init.
	Notes []string `toml:"notes"`

	Instructions   []Instruction  `toml:"instructions"`
	Hooks          *Hooks         `toml:"hooks"`
	Payload        Payload        `toml:"payload"`
	EditTools      []string       `toml:"edit_tools"`
	Deny           Deny           `toml:"deny"`
	SessionContext SessionContext `toml:"session_context"`
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
	// "rule" (a whole rule file; default for owned files) or "skill".
	Template string `toml:"template"`
	// Purpose says what the file is for, in init's plan.
	Purpose string `toml:"purpose"`
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
}

// Payload says where the fields agentlock reads are in a hook's JSON
// payload: dotted paths ("tool_input.file_path"). A step that meets a JSON
// string holding an object decodes it and goes on, so a field that one
// harness version sends as an object and another as a JSON string is read
// either way.
type Payload struct {
	SessionID string `toml:"session_id"`
	Cwd       string `toml:"cwd"`
	ToolName  string `toml:"tool_name"`
	Model     string `toml:"model"`
	// Paths are tried in order; the first that holds a string, or an
	// array of strings, is the edited path or paths.
	Paths []string `toml:"paths"`
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

// Events are agentlock's hook events (package hooks).
var agentlockEvents = []string{"pre-edit", "session-start", "renew", "session-end"}

var nameRE = regexp.MustCompile(`^[a-z][a-z0-9]*$`)

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
	case !nameRE.MatchString(m.Name):
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
	case m.SessionEnv != "" && !regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`).MatchString(m.SessionEnv):
		return fieldErr("session_env", "%q is not an environment variable name", m.SessionEnv)
	case reservedEnv(m.SessionEnv):
		return fieldErr("session_env", "%q is not a session id: it would name a session in every shell", m.SessionEnv)
	case m.SessionIDText == "":
		return fieldErr("session_id_text", "missing (it tells the model where its session id comes from)")
	case len(m.Instructions) == 0:
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
		if !slices.Contains([]string{"", "top", "bottom"}, in.Placement) {
			return fieldErr(f+".placement", "%q: want top or bottom", in.Placement)
		}
		if in.Placement != "" && in.Kind != "block" {
			return fieldErr(f+".placement", "only a block has a placement")
		}
		if !slices.Contains([]string{"", "instructions", "rule", "skill"}, in.Template) {
			return fieldErr(f+".template", "%q: want instructions, rule or skill", in.Template)
		}
		if in.Kind == "block" && in.Template != "" && in.Template != "instructions" {
			return fieldErr(f+".template", "a block holds the instructions template only")
		}
	}
	if mc := m.MCP; mc != nil {
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
	}
	if h := m.Hooks; h != nil {
		if err := checkPath("hooks.path", h.Path); err != nil {
			return err
		}
		if seen[h.Path] {
			return fieldErr("hooks.path", "%q is also an instructions file", h.Path)
		}
		if !slices.Contains([]string{"json", "toml"}, h.Format) {
			return fieldErr("hooks.format", "%q: want json or toml", h.Format)
		}
		if !slices.Contains([]string{"", "project", "user"}, h.Scope) {
			return fieldErr("hooks.scope", "%q: want project or user", h.Scope)
		}
		if !slices.Contains([]string{"", "nested", "flat"}, h.Layout) {
			return fieldErr("hooks.layout", "%q: want nested or flat", h.Layout)
		}
		if h.Layout != "" && h.Format != "json" {
			return fieldErr("hooks.layout", "only JSON hooks have a layout")
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
			case !slices.Contains(agentlockEvents, e.Run):
				return fieldErr(f+".run", "%q: want one of %s", e.Run, strings.Join(agentlockEvents, ", "))
			case e.Timeout < 0:
				return fieldErr(f+".timeout", "negative")
			case e.Run == "pre-edit" && e.Matcher == "":
				return fieldErr(f+".matcher", "missing: a pre-edit hook must name the edit tools it gates")
			}
		}
		if m.preEdit() && len(m.Payload.Paths) == 0 && len(m.Payload.Patches) == 0 {
			return fieldErr("payload.paths", "missing: a pre-edit hook must know where the payload names the edited path")
		}
		cmd, err := m.hookCommand("pre-edit", "agentlock")
		if err != nil {
			return fieldErr("hooks.command", "%v", err)
		}
		if !strings.Contains(cmd, "agentlock hook "+m.Name+" pre-edit") {
			return fieldErr("hooks.command", "must run {{.Line}} or {{.Shell}}: agentlock finds its hook entries by the line \"agentlock hook <agent> <event>\"")
		}
	}
	for i, p := range m.Payload.Paths {
		if p == "" {
			return fieldErr(fmt.Sprintf("payload.paths[%d]", i), "empty")
		}
	}
	for i, p := range m.Payload.Patches {
		if p == "" {
			return fieldErr(fmt.Sprintf("payload.patches[%d]", i), "empty")
		}
	}
	switch m.Deny.Form {
	case "", "exit2", "claude-json", "gemini-json", "top-level-json":
		if m.Deny.Template != "" {
			return fieldErr("deny.template", "only with form = \"template\"")
		}
	case "template":
		if _, err := m.denyOutput("why"); err != nil {
			return fieldErr("deny.template", "%v", err)
		}
	default:
		return fieldErr("deny.form", "%q: want exit2, claude-json, gemini-json, top-level-json or template", m.Deny.Form)
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

// preEdit reports whether the hooks gate edits.
func (m *Manifest) preEdit() bool {
	if m.Hooks == nil {
		return false
	}
	return slices.ContainsFunc(m.Hooks.Events, func(e Event) bool { return e.Run == "pre-edit" })
}
