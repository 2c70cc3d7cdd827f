// Package templates holds the text that agentlock generates — the protocol
// block of registry.md, the empty registry, and every file that
// `agentlock init` writes for an agent — embedded in the binary. It is the
// single source of that text: nothing is assembled by hand in Go.
//
// Integration templates live in integrations/ (shared by every agent); an
// agent's own templates live in its folder (integrations/<agent>/*.tmpl),
// which embeds them and passes them in AgentData.Templates.
package templates

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
	"sync"
	"text/template"
)

//go:embed *.tmpl *.md integrations
var files embed.FS

// ProtocolData fills the protocol block template.
type ProtocolData struct {
	// Bin is the command agents run, normally "agentlock".
	Bin string
	// Legacy is set when agent-registry 0.2's agents share the registry:
	// each step then gives 0.2's command too (python <skill>/scripts/...).
	Legacy bool
}

// Protocol renders the protocol block that registry.md carries between its
// frontmatter and its table, from "<!-- PROTOCOL:START" to
// "<!-- PROTOCOL:END -->" inclusive, without a trailing newline.
func Protocol(data ProtocolData) (string, error) {
	t, err := template.ParseFS(files, "protocol.md.tmpl")
	if err != nil {
		return "", fmt.Errorf("protocol template: %w", err)
	}
	var b bytes.Buffer
	if err := t.Execute(&b, data); err != nil {
		return "", fmt.Errorf("protocol template: %w", err)
	}
	return string(bytes.TrimRight(b.Bytes(), "\n")), nil
}

// EmptyRegistry returns the registry.md of a project where no session has
// registered yet: the protocol block for "agentlock", frontmatter and an
// empty table. A test keeps it equal to what the registry writer renders.
func EmptyRegistry() ([]byte, error) {
	return files.ReadFile("registry-empty.md")
}

// AgentData fills the integration templates of one agent.
type AgentData struct {
	Bin         string // the command agents run, normally "agentlock"
	Agent       string // the agent's name in agentlock: "claude"; empty for agent-neutral files
	Title       string // the agent's product name: "Claude Code"
	Command     string // the agent's CLI: "claude"
	Provider    string // the vendor recorded in the registry: "anthropic"
	Wrapper     string // the wrapper script's path in the project
	PreEditHook bool   // the project installs a pre-edit hook for this agent
	// InitFlags are the flags, after --agent, of the init that writes the
	// agent's files (" --global" for Kimi Code, whose hooks are
	// user-level); "" for none.
	InitFlags string
	// SessionVar is the variable holding the session id in the model's
	// shell ("" when there is none).
	SessionVar string
	// RootSessionVar is the variable holding, in a sub-agent's shell, the
	// id of the session it works for ("" when there is none).
	RootSessionVar string
	// SessionIDText is the "session-id" partial that the shared
	// instructions use: where the model's session id comes from.
	SessionIDText string
	// Templates are the agent's own templates (the *.tmpl files of its
	// folder), besides the shared ones; nil for none.
	Templates fs.FS
}

// hookData fills the "hook-command" partial.
type hookData struct {
	Bin, Agent, Event string
}

// Render executes the integration template name (a file of integrations/
// or of data.Templates) with data. Templates may call hookCommand
// "<event>", the one stable hook command line for the agent, for a
// harness that runs it with the user's own shell (Codex: $SHELL -lc,
// which may be fish or csh), so wrapped in sh -c; hookLine "<event>", the
// same line unwrapped, for a harness that runs it with a POSIX shell of
// its choosing (Claude Code: /bin/sh -c; Gemini CLI: bash -c), sparing a
// shell process at every hook; and the quoting functions json and toml.
func Render(name string, data AgentData) ([]byte, error) {
	t := template.New(name)
	t.Funcs(template.FuncMap{
		"json": func(s string) (string, error) { return JSON(s) },
		"toml": TOML,
		"hookCommand": func(event string) (string, error) {
			return execute(t, "hook-command", hookData{Bin: data.Bin, Agent: data.Agent, Event: event})
		},
		"hookLine": func(event string) (string, error) {
			return execute(t, "hook-line", hookData{Bin: data.Bin, Agent: data.Agent, Event: event})
		},
	})
	if _, err := t.ParseFS(files, "integrations/*.tmpl"); err != nil {
		return nil, fmt.Errorf("templates of %q: %w", data.Agent, err)
	}
	if data.Templates != nil {
		if _, err := t.ParseFS(data.Templates, "*.tmpl"); err != nil {
			return nil, fmt.Errorf("templates of %q: %w", data.Agent, err)
		}
	}
	// The text is data, never template code: a manifest cannot run
	// template actions.
	if _, err := t.New("session-id").Parse("{{.SessionIDText}}"); err != nil {
		return nil, fmt.Errorf("templates of %q: %w", data.Agent, err)
	}
	out, err := execute(t, name, data)
	return []byte(out), err
}

// hookCommandTemplate is hook-command.tmpl, parsed once per process and
// only executed afterwards (safe for concurrent use): a manifest's agent
// renders it for every event it hooks, twice, each time it is loaded, and
// parsing it each time was a third of loading the built-in manifests
// (0.29 of 0.82 ms of every hook, perf; issue 33).
var hookCommandTemplate = sync.OnceValues(func() (*template.Template, error) {
	t, err := template.ParseFS(files, "integrations/hook-command.tmpl")
	if err != nil {
		return nil, fmt.Errorf("hook command template: %w", err)
	}
	return t, nil
})

// HookCommand returns the command line that the hooks of agent run for
// event: it checks that bin is on PATH (and does nothing, with a warning,
// when it is not) and runs "<bin> hook <agent> <event>".
func HookCommand(bin, agent, event string) (string, error) {
	t, err := hookCommandTemplate()
	if err != nil {
		return "", err
	}
	return execute(t, "hook-command", hookData{Bin: bin, Agent: agent, Event: event})
}

// HookLine returns the command line of HookCommand without its sh -c
// wrapping, for a harness that runs hooks with a POSIX shell itself.
func HookLine(bin, agent, event string) (string, error) {
	t, err := hookCommandTemplate()
	if err != nil {
		return "", err
	}
	return execute(t, "hook-line", hookData{Bin: bin, Agent: agent, Event: event})
}

// SessionContextData fills the text the session-start hook gives the model.
type SessionContextData struct {
	Session string
	Held    []HeldPath
}

// HeldPath is a path locked by another session.
type HeldPath struct {
	Path, Owner string
}

// SessionContext renders what the session-start hook tells the model: its
// session id, the rules in two lines, and the paths others hold.
func SessionContext(data SessionContextData) (string, error) {
	t, err := template.ParseFS(files, "integrations/session-context.md.tmpl")
	if err != nil {
		return "", fmt.Errorf("session context template: %w", err)
	}
	return execute(t, "session-context.md.tmpl", data)
}

func execute(t *template.Template, name string, data any) (string, error) {
	var b bytes.Buffer
	if err := t.ExecuteTemplate(&b, name, data); err != nil {
		return "", fmt.Errorf("template %s: %w", name, err)
	}
	return b.String(), nil
}

// JSON is the one encoder of the JSON that agentlock gives a harness — a
// quoted string in a template, a hook's answer on stdout: v as one line of
// JSON text, leaving <, > and & readable (hook commands redirect, denials
// name paths), without a final newline.
func JSON(v any) (string, error) { return encodeJSON(v, "", false) }

// IndentedJSON is JSON indented by two spaces per level after prefix, for
// a value written at that indentation (the hook entries of a settings
// file).
func IndentedJSON(v any, prefix string) (string, error) { return encodeJSON(v, prefix, true) }

func encodeJSON(v any, prefix string, indent bool) (string, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if indent {
		enc.SetIndent(prefix, "  ")
	}
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	return strings.TrimSuffix(b.String(), "\n"), nil
}

// TOML quotes s as a TOML basic string.
func TOML(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
