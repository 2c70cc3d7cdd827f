package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// cli is one agent CLI as the simulator plays it: where `agentlock init`
// writes its hooks, how it runs a hook command line and the model's shell
// commands, what it puts in a hook's environment and on its stdin, and how
// it reads a hook's answer. The shapes follow the real CLIs as the e2e
// suite drives them and docs/integrations/*.md and
// docs/identity-harnesses.md describe them (Claude Code 2.1, Gemini CLI
// 0.61, Codex 0.171); nothing here comes from agentlock's own packages.
type cli struct {
	name string // as `agentlock init --agent` names it
	// settings is the file init writes the hooks into, relative to the
	// repository.
	settings string
	// timeoutUnit is the unit of a hook's "timeout" in settings.
	timeoutUnit time.Duration
	// hookShell runs a hook command line, as the CLI does.
	hookShell []string
	// ev names the CLI's hook events; endReason is the reason its
	// session-end payload gives.
	ev        events
	endReason string
	// hookEnv is what the CLI adds to a hook's environment.
	hookEnv func(s *session) []string
	// shellEnv is what the CLI adds to the environment of the model's
	// shell commands.
	shellEnv func(s *session) []string
	// payload is a hook's stdin for one event.
	payload func(s *session, c call) map[string]any
	// answer reads what a hook answered, as the CLI reads it.
	answer func(c call, r hookRun) answer
	// read, write and shell are the CLI's tool calls for reading a file,
	// writing a whole file and running a shell command.
	read  func(s *session, rel string) toolCall
	write func(s *session, rel, content string) toolCall
	shell func(command string) toolCall
	// guard is the CLI's own check, before any hook, that a file it is
	// about to write has not changed since the model read it (Claude
	// Code's "File has been modified since read"); empty when it has none.
	// Applied only with the -cli-guard knob.
	guard string
}

// events are a CLI's names for the moments the simulator fires hooks at
// ("" where the CLI has no such event).
type events struct {
	sessionStart, turnStart, preTool, postTool, turnEnd, sessionEnd string
	subagentStart, subagentStop                                     string
}

// toolCall is one tool call of the model: its name and input as the CLI
// reports them to hooks, the file it reads or writes (relative to the
// session's folder; "" for a shell command) and the tool's result as a
// post-tool hook sees it.
type toolCall struct {
	name     string
	input    map[string]any
	file     string
	response func(out string) any
}

// call is one moment the CLI fires hooks at: an event name and, for tool
// events, the tool call and its result.
type call struct {
	event  string
	kind   string // "sessionStart", "turnStart", "preTool", "postTool", "turnEnd", "sessionEnd", "subagentStart", "subagentStop"
	tool   *toolCall
	output string // the tool's output, for postTool
}

// pre reports whether the event can refuse the tool call.
func (c call) pre() bool { return c.kind == "preTool" }

// target is what a hook group's matcher is tested against: the tool name
// for tool events, the start source or end reason for session events.
func (c call) target(s *session) string {
	switch c.kind {
	case "preTool", "postTool":
		return c.tool.name
	case "sessionStart":
		return "startup"
	case "sessionEnd":
		return s.cli.endReason
	case "subagentStart", "subagentStop":
		return "general-purpose" // Claude Code matches these on the agent type
	}
	return ""
}

// answer is what the model gets from a hook: a refusal of the tool call
// with its reason, or text added to its context.
type answer struct {
	deny    bool
	reason  string
	context string
}

// clis returns the CLIs the simulator can play, by name.
func clis() map[string]*cli {
	list := []*cli{claudeCode(), geminiCLI(), codexCLI()}
	m := make(map[string]*cli, len(list))
	for _, c := range list {
		m[c.name] = c
	}
	return m
}

// cliNames lists the CLIs the simulator can play.
func cliNames() []string {
	var names []string
	for n := range clis() {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// claudeCode is Claude Code: hooks in .claude/settings.json run with
// /bin/sh -c, CLAUDE_CODE_SESSION_ID in hooks and shell, Read/Write/Bash
// tools, Stop at a turn's end.
func claudeCode() *cli {
	return &cli{
		name:        "claude",
		settings:    ".claude/settings.json",
		timeoutUnit: time.Second,
		hookShell:   []string{"/bin/sh", "-c"},
		ev:          events{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd", "SubagentStart", "SubagentStop"},
		endReason:   "other",
		hookEnv: func(s *session) []string {
			return []string{"CLAUDE_CODE_SESSION_ID=" + s.id, "CLAUDECODE=1", "CLAUDE_CODE_ENTRYPOINT=sdk-cli", "CLAUDE_PROJECT_DIR=" + s.dir}
		},
		shellEnv: func(s *session) []string {
			return []string{"CLAUDE_CODE_SESSION_ID=" + s.id, "CLAUDECODE=1", "CLAUDE_CODE_ENTRYPOINT=sdk-cli"}
		},
		payload: claudePayload,
		answer:  claudeAnswer,
		read: func(s *session, rel string) toolCall {
			path := filepath.Join(s.dir, rel)
			return toolCall{name: "Read", input: map[string]any{"file_path": path}, file: rel,
				response: func(out string) any {
					n := strings.Count(out, "\n")
					return map[string]any{"type": "text", "file": map[string]any{"filePath": path, "content": out,
						"numLines": n, "startLine": 1, "totalLines": n}}
				}}
		},
		write: func(s *session, rel, content string) toolCall {
			path := filepath.Join(s.dir, rel)
			return toolCall{name: "Write", input: map[string]any{"file_path": path, "content": content}, file: rel,
				response: func(string) any {
					return map[string]any{"type": "update", "filePath": path, "content": content, "structuredPatch": []any{}}
				}}
		},
		shell: func(command string) toolCall {
			return toolCall{name: "Bash", input: map[string]any{"command": command, "description": "run " + firstWord(command)},
				response: func(out string) any {
					return map[string]any{"stdout": out, "stderr": "", "interrupted": false, "isImage": false}
				}}
		},
		guard: "File has been modified since read, either by the user or by a linter. Read it again before attempting to write it.",
	}
}

// claudePayload is Claude Code's hook input (its hooks reference: common
// fields, then the event's own).
func claudePayload(s *session, c call) map[string]any {
	p := map[string]any{"session_id": s.id, "transcript_path": filepath.Join(s.home, ".claude", "projects", "fleet", s.id+".jsonl"),
		"cwd": s.dir, "permission_mode": "acceptEdits", "hook_event_name": c.event}
	if s.agentID != "" {
		// "Present only when the hook fires from within a subagent."
		p["agent_id"], p["agent_type"] = s.agentID, "general-purpose"
	}
	switch c.kind {
	case "sessionStart":
		p["source"], p["model"] = "startup", "claude-sonnet-4-5"
	case "turnStart":
		p["prompt"] = s.prompt
	case "preTool", "postTool":
		p["tool_name"], p["tool_input"], p["tool_use_id"] = c.tool.name, c.tool.input, s.toolUseID()
		if c.kind == "postTool" {
			p["tool_response"] = c.tool.response(c.output)
		}
	case "turnEnd":
		p["stop_hook_active"], p["last_assistant_message"] = false, "Done."
	case "subagentStop":
		p["stop_hook_active"], p["last_assistant_message"] = false, "Done."
		p["agent_transcript_path"] = filepath.Join(s.home, ".claude", "projects", "fleet", s.id, "subagents", "agent-"+s.agentID+".jsonl")
	case "sessionEnd":
		p["reason"] = s.cli.endReason
	}
	return p
}

// claudeAnswer reads a hook's answer as Claude Code and Codex do: exit 2
// refuses with stderr as the reason; exit 0 with JSON on stdout may refuse
// (permissionDecision "deny", or the legacy decision "block") or add
// context; any other exit lets the call through.
func claudeAnswer(c call, r hookRun) answer {
	switch {
	case r.timedOut:
		return answer{}
	case r.exit == 2:
		return refusal(c, strings.TrimSpace(r.stderr))
	case r.exit != 0:
		return answer{}
	}
	out := strings.TrimSpace(r.stdout)
	if !strings.HasPrefix(out, "{") {
		if c.kind == "sessionStart" || c.kind == "turnStart" {
			return answer{context: out}
		}
		return answer{}
	}
	var v hookOutput
	if json.Unmarshal([]byte(out), &v) != nil {
		return answer{}
	}
	a := answer{context: v.Specific.AdditionalContext}
	switch {
	case v.Specific.PermissionDecision == "deny":
		a = mergeAnswer(a, refusal(c, v.Specific.PermissionDecisionReason))
	case v.Decision == "block":
		a = mergeAnswer(a, refusal(c, v.Reason))
	}
	return a
}

// hookOutput is the JSON a hook may print, in the fields the three CLIs
// read: a decision ("deny", "block") and its reason, Claude Code's and
// Codex's permission decision, context for the model.
type hookOutput struct {
	Decision string `json:"decision"`
	Reason   string `json:"reason"`
	Specific struct {
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
		AdditionalContext        string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// geminiCLI is Gemini CLI: hooks in .gemini/settings.json (timeouts in
// ms) run with bash -c, GEMINI_SESSION_ID in hooks only, read_file,
// write_file and run_shell_command, AfterAgent at a turn's end.
func geminiCLI() *cli {
	return &cli{
		name:        "gemini",
		settings:    ".gemini/settings.json",
		timeoutUnit: time.Millisecond,
		hookShell:   []string{"bash", "-c"},
		ev:          events{"SessionStart", "BeforeAgent", "BeforeTool", "AfterTool", "AfterAgent", "SessionEnd", "", ""},
		endReason:   "exit",
		hookEnv: func(s *session) []string {
			return []string{"GEMINI_SESSION_ID=" + s.id, "GEMINI_PROJECT_DIR=" + s.dir, "GEMINI_CWD=" + s.dir, "CLAUDE_PROJECT_DIR=" + s.dir}
		},
		shellEnv: func(*session) []string { return []string{"GEMINI_CLI=1"} },
		payload:  geminiPayload,
		answer:   geminiAnswer,
		read: func(s *session, rel string) toolCall {
			path := filepath.Join(s.dir, rel)
			return toolCall{name: "read_file", input: map[string]any{"file_path": path}, file: rel,
				response: func(out string) any { return map[string]any{"llmContent": out, "returnDisplay": ""} }}
		},
		write: func(s *session, rel, content string) toolCall {
			path := filepath.Join(s.dir, rel)
			return toolCall{name: "write_file", input: map[string]any{"file_path": path, "content": content}, file: rel,
				response: func(string) any {
					return map[string]any{"llmContent": "Successfully overwrote file: " + path + ".", "returnDisplay": ""}
				}}
		},
		shell: func(command string) toolCall {
			return toolCall{name: "run_shell_command", input: map[string]any{"command": command, "description": "run " + firstWord(command)},
				response: func(out string) any {
					return map[string]any{"llmContent": "Command: " + command + "\nOutput: " + out, "returnDisplay": out}
				}}
		},
	}
}

// geminiPayload is Gemini CLI's hook input (docs/hooks/reference.md: base
// fields, then the event's own).
func geminiPayload(s *session, c call) map[string]any {
	p := map[string]any{"session_id": s.id, "transcript_path": filepath.Join(s.home, ".gemini", "tmp", "fleet", "chats", s.id+".json"),
		"cwd": s.dir, "hook_event_name": c.event, "timestamp": time.Now().UTC().Format(time.RFC3339Nano)}
	switch c.kind {
	case "sessionStart":
		p["source"] = "startup"
	case "turnStart":
		p["prompt"] = s.prompt
	case "preTool", "postTool":
		p["tool_name"], p["tool_input"], p["mcp_context"], p["original_request_name"] = c.tool.name, c.tool.input, nil, c.tool.name
		if c.kind == "postTool" {
			p["tool_response"] = c.tool.response(c.output)
		}
	case "turnEnd":
		p["prompt"], p["prompt_response"], p["stop_hook_active"] = s.prompt, "Done.", false
	case "sessionEnd":
		p["reason"] = s.cli.endReason
	}
	return p
}

// geminiAnswer reads a hook's answer as Gemini CLI does (hookRunner.ts):
// stdout, or stderr when stdout is empty; exit 0 with JSON may refuse
// (decision "deny" or "block") or add context; exit 1 only warns; any
// other non-zero exit with text refuses.
func geminiAnswer(c call, r hookRun) answer {
	if r.timedOut {
		return answer{}
	}
	out := strings.TrimSpace(r.stdout)
	if out == "" {
		out = strings.TrimSpace(r.stderr)
	}
	switch {
	case r.exit == 1:
		return answer{}
	case r.exit != 0:
		if out == "" {
			return answer{}
		}
		return refusal(c, out)
	}
	if !strings.HasPrefix(out, "{") {
		return answer{}
	}
	var v hookOutput
	if json.Unmarshal([]byte(out), &v) != nil {
		return answer{}
	}
	a := answer{context: v.Specific.AdditionalContext}
	if v.Decision == "deny" || v.Decision == "block" {
		a = mergeAnswer(a, refusal(c, v.Reason))
	}
	return a
}

// codexCLI is Codex CLI: hooks in .codex/hooks.json run with bash -c (seen
// in 0.171; init wraps each line in its own sh -c), the session id in the
// payload only (CODEX_THREAD_ID in the model's shell), apply_patch as the
// whole-file write (`*** Add File:` over the existing file), reads through
// the shell (`cat`), Stop at a turn's end.
func codexCLI() *cli {
	return &cli{
		name:        "codex",
		settings:    ".codex/hooks.json",
		timeoutUnit: time.Second,
		hookShell:   []string{"/bin/bash", "-c"},
		ev:          events{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SessionEnd", "SubagentStart", "SubagentStop"},
		endReason:   "other",
		hookEnv:     func(*session) []string { return nil },
		// A sub-agent's hooks see the parent's id, its shell its own
		// thread's (docs/integrations/codex.md).
		shellEnv: func(s *session) []string {
			thread := s.id
			if s.agentID != "" {
				thread = s.id[:8] + "-" + s.agentID
			}
			return []string{"CODEX_THREAD_ID=" + thread, "CODEX_SESSION_ID=" + thread, "CODEX_TOOL_CALL_ID=" + s.toolUseID()}
		},
		payload: codexPayload,
		answer:  claudeAnswer,
		read: func(s *session, rel string) toolCall {
			tc := shellCall("cat " + shellQuote(rel))
			tc.file = rel
			return tc
		},
		write: func(s *session, rel, content string) toolCall {
			patch := "*** Begin Patch\n*** Add File: " + rel + "\n"
			for _, line := range strings.SplitAfter(content, "\n") {
				if line != "" {
					patch += "+" + strings.TrimSuffix(line, "\n") + "\n"
				}
			}
			patch += "*** End Patch\n"
			return toolCall{name: "apply_patch", input: map[string]any{"command": patch}, file: rel,
				response: func(string) any { return "Success. Updated the following files:\nA " + rel + "\n" }}
		},
		shell: shellCall,
	}
}

// shellCall is Codex's shell tool as its hooks see it: tool "Bash".
func shellCall(command string) toolCall {
	return toolCall{name: "Bash", input: map[string]any{"command": command},
		response: func(out string) any { return out }}
}

// codexPayload is Codex's hook input (codex-rs/hooks/schema: common
// fields, turn-scoped ones, then the event's own).
func codexPayload(s *session, c call) map[string]any {
	p := map[string]any{"session_id": s.id, "transcript_path": nil, "cwd": s.dir, "hook_event_name": c.event, "model": "gpt-5-codex"}
	switch c.kind {
	case "sessionStart":
		p["source"], p["permission_mode"] = "startup", "bypassPermissions"
	case "turnStart":
		p["turn_id"], p["permission_mode"], p["prompt"] = s.turnID(), "bypassPermissions", s.prompt
	case "preTool", "postTool":
		p["turn_id"], p["permission_mode"] = s.turnID(), "bypassPermissions"
		p["tool_name"], p["tool_input"], p["tool_use_id"] = c.tool.name, c.tool.input, s.toolUseID()
		if c.kind == "postTool" {
			p["tool_response"] = c.tool.response(c.output)
		}
	case "turnEnd", "subagentStop":
		p["turn_id"], p["permission_mode"], p["stop_hook_active"], p["last_assistant_message"] = s.turnID(), "bypassPermissions", false, "Done."
	case "sessionEnd":
		p["reason"] = s.cli.endReason
	}
	return p
}

// refusal is a hook's refusal: on a pre-tool event it refuses the call; on
// any other event the CLI only shows the reason to the model.
func refusal(c call, reason string) answer {
	if !c.pre() {
		return answer{context: reason}
	}
	return answer{deny: true, reason: reason}
}

// mergeAnswer combines the answers of the hooks one event ran: any
// refusal refuses, every text reaches the model.
func mergeAnswer(a, b answer) answer {
	a.deny = a.deny || b.deny
	a.reason = joinText(a.reason, b.reason)
	a.context = joinText(a.context, b.context)
	return a
}

func joinText(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n" + b
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-+=:,@", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func firstWord(command string) string {
	if f := strings.Fields(command); len(f) > 0 {
		return f[0]
	}
	return command
}

// payloadJSON is a hook's stdin: the payload as the CLI serialises it.
func payloadJSON(p map[string]any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(p); err != nil {
		return nil, fmt.Errorf("encode hook payload: %w", err)
	}
	return b.Bytes(), nil
}
