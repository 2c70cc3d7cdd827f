// Package mock is a scripted stand-in for the model servers the agent CLIs
// talk to, so that the real CLIs can be driven end to end on 127.0.0.1
// without any real model.
//
// One Server speaks four wire protocols at once, told apart by path:
// Anthropic Messages (POST /v1/messages, SSE), OpenAI Responses
// (POST /v1/responses, SSE), OpenAI Chat Completions (POST
// /v1/chat/completions, SSE when the request asks "stream": true, one JSON
// answer otherwise: what every OpenAI-compatible CLI speaks) and Gemini
// (POST /v1beta/models/<model>:streamGenerateContent?alt=sse). Its script is a
// list of shell commands: a request whose conversation already holds n tool
// results is answered with a call of the CLI's shell tool running
// Commands[n], and once every command has run, with the text Final. A
// request that offers no tools (a CLI's side request: a title, a check) is
// answered with Final as plain text.
package mock

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// Script is what the scripted model does.
type Script struct {
	// Commands are run one after the other through the CLI's shell tool.
	// Ignored when Steps is given.
	Commands []string
	// Steps are the model's tool calls, one after the other.
	Steps []Step
	// Final is the model's last answer, once every step has run.
	Final string
	// ShellTool is the name of the CLI's shell tool in the Chat Completions
	// protocol, whose CLIs name it each their own way; empty: the first
	// tool the request offers among Bash, run_shell_command, bash, shell
	// exec_command and Execute (else "Bash"). Its argument is {"command": …}.
	ShellTool string
	// Next, when set, is a model that reacts to what it is told: given the
	// text of every tool result of the conversation so far (ToolResults,
	// in order), it returns its next tool call, or false once it is done
	// (it then answers Final). Steps, Commands and Branches are ignored.
	// It must be a function of results alone: a CLI may send the same
	// conversation again, and conversations are served concurrently.
	Next func(results []string) (Step, bool)
	// Branches script other conversations (a sub-agent's): a request
	// whose opening — the user's messages before the model's first
	// answer — holds a branch's Marker follows that branch's Steps and
	// Final instead of the script's. The first branch that matches wins.
	Branches []Branch
}

// Branch is the script of the conversations whose opening holds Marker
// (see Script.Branches).
type Branch struct {
	Marker string
	Steps  []Step
	Final  string
}

// Step is one tool call of the scripted model: a command for the CLI's own
// shell tool (Claude's Bash, Codex's exec_command, Gemini's
// run_shell_command), or any other tool by its name and arguments as the
// CLI declares it (Claude's Edit, Gemini's write_file, …).
type Step struct {
	Shell string
	Tool  string
	Args  map[string]any
	// Input, with Tool, calls a freeform tool (a "custom" tool of OpenAI
	// Responses or Chat Completions: Codex's and Copilot's apply_patch)
	// with this text.
	Input string
	// Namespace, with Tool, is the namespace of a tool the CLI declares
	// inside a Responses "namespace" tool (Codex's MCP tools: namespace
	// "mcp__<server>", Tool the server's tool name).
	Namespace string
	// Also are more tool calls of the same answer, after this one: calls
	// the CLI runs in parallel (Claude Code's Agent tool twice). Anthropic
	// Messages and Chat Completions only. Their results come back
	// together, so the step counts as 1+len(Also) tool results: the next
	// step is served once all of them came back.
	Also []Step
}

// steps is the script as tool calls.
func (sc Script) steps() []Step {
	if len(sc.Steps) > 0 {
		return sc.Steps
	}
	steps := make([]Step, len(sc.Commands))
	for i, c := range sc.Commands {
		steps[i] = Step{Shell: c}
	}
	return steps
}

// Request is one request the server received, kept for diagnosis.
type Request struct {
	Method string
	Path   string // with its query
	Body   string
	Reply  string // what the server decided: "tool:<n>", "text", "unknown"
	// Branch is the Marker of the branch whose conversation the request
	// belongs to, "" for the script's own (see Script.Branches).
	Branch string
}

// Server is a running mock model server.
type Server struct {
	script Script
	srv    *http.Server
	ln     net.Listener

	mu       sync.Mutex
	requests []Request
}

// Start serves script on a free port of 127.0.0.1 until Close.
func Start(script Script) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("mock model server: listen: %w", err)
	}
	s := &Server{script: script, ln: ln}
	s.srv = &http.Server{Handler: http.HandlerFunc(s.serve), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		// ErrServerClosed after Close; nothing else is expected.
		_ = s.srv.Serve(ln)
	}()
	return s, nil
}

// URL is the server's base URL, http://127.0.0.1:<port>, without a slash.
func (s *Server) URL() string {
	return "http://" + s.ln.Addr().String()
}

// Close stops the server and closes its open connections.
func (s *Server) Close() error {
	if err := s.srv.Close(); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return fmt.Errorf("mock model server: close: %w", err)
	}
	return nil
}

// Requests returns a copy of the requests received so far.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

func (s *Server) record(r Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, r)
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
		return
	}
	req := Request{Method: r.Method, Path: r.URL.RequestURI(), Body: string(body)}
	defer func() { s.record(req) }()

	if r.Method != http.MethodPost {
		// Claude Code probes the server with HEAD /; Codex may list models.
		req.Reply = "empty"
		w.Header().Set("Content-Type", "application/json")
		if r.Method != http.MethodHead {
			fmt.Fprint(w, `{"object":"list","data":[],"models":[]}`)
		}
		return
	}
	var doc any
	if err := json.Unmarshal(body, &doc); err != nil {
		req.Reply = "bad json"
		http.Error(w, "body is not JSON: "+err.Error(), http.StatusBadRequest)
		return
	}
	n := countToolResults(doc)
	hasTools := offersTools(doc)
	steps, final := s.script.steps(), s.script.Final
	if b := s.script.branch(doc); b != nil {
		steps, final = b.Steps, b.Final
		req.Reply, req.Branch = "branch "+b.Marker+" ", b.Marker
	}
	var step *Step
	if s.script.Next != nil {
		if next, ok := s.script.Next(ToolResults(req.Body)); hasTools && ok {
			step = &next
			req.Reply = fmt.Sprintf("tool:%d", n)
		} else {
			req.Reply = "text"
		}
	} else if i, ok := stepAt(steps, n); hasTools && ok {
		step = &steps[i]
		req.Reply += fmt.Sprintf("tool:%d", i)
	} else {
		req.Reply += "text"
	}
	id := fmt.Sprintf("mock%d", n)
	path := r.URL.Path
	switch {
	case strings.HasSuffix(path, "/messages"):
		anthropic(w, id, step, final)
	case strings.HasSuffix(path, "/responses"):
		responses(w, id, step, final)
	case strings.HasSuffix(path, "/chat/completions"):
		chatCompletions(w, id, step, final, s.shellTool(doc), streams(doc))
	case strings.Contains(path, ":streamGenerateContent"):
		gemini(w, step, final, true)
	case strings.Contains(path, ":generateContent"):
		gemini(w, step, final, false)
	case strings.Contains(path, ":countTokens"), strings.HasSuffix(path, "/count_tokens"):
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"totalTokens":1,"input_tokens":1}`)
	default:
		req.Reply = "unknown"
		http.NotFound(w, r)
	}
}

// stepAt returns the index of the step to serve once n tool results came
// back: steps run one after the other, a step with Also counting as
// 1+len(Also) results. ok is false once every step has run.
func stepAt(steps []Step, n int) (i int, ok bool) {
	done := 0
	for i := range steps {
		if done >= n {
			return i, done == n
		}
		done += 1 + len(steps[i].Also)
	}
	return 0, false
}

// branch returns the branch whose Marker the opening of the conversation
// in doc holds, or nil.
func (sc Script) branch(doc any) *Branch {
	if len(sc.Branches) == 0 {
		return nil
	}
	opening := strings.Join(openingText(doc), "\n")
	for i := range sc.Branches {
		if strings.Contains(opening, sc.Branches[i].Marker) {
			return &sc.Branches[i]
		}
	}
	return nil
}

// openingText returns the text of a conversation's user messages before
// the model's first answer: Anthropic and Chat Completions "messages",
// Responses "input", Gemini "contents".
func openingText(doc any) []string {
	m, _ := doc.(map[string]any)
	var list []any
	for _, k := range []string{"messages", "input", "contents"} {
		if l, ok := m[k].([]any); ok {
			list = l
			break
		}
	}
	var out []string
	for _, item := range list {
		msg, _ := item.(map[string]any)
		role, _ := msg["role"].(string)
		typ, _ := msg["type"].(string)
		if role == "assistant" || role == "model" || strings.HasSuffix(typ, "call") {
			break
		}
		if role == "user" {
			out = append(out, stringsIn(msg)...)
		}
	}
	return out
}

// countToolResults counts the tool results anywhere in a request: Anthropic
// "tool_result" blocks, OpenAI "function_call_output" (and
// "custom_tool_call_output") items, Chat Completions messages of role
// "tool" and Gemini "functionResponse" parts.
func countToolResults(v any) int {
	n := 0
	switch v := v.(type) {
	case map[string]any:
		if t, _ := v["type"].(string); t == "tool_result" || t == "function_call_output" || t == "custom_tool_call_output" {
			n++
		}
		if isChatToolMessage(v) {
			n++
		}
		if _, ok := v["functionResponse"]; ok {
			n++
		}
		for _, c := range v {
			n += countToolResults(c)
		}
	case []any:
		for _, c := range v {
			n += countToolResults(c)
		}
	}
	return n
}

// ToolResults returns the text of every tool result in a request body, in
// the order of the conversation: what the model was told each of its tool
// calls did (a command's output, an edit's success, a hook's denial). The
// text is every string inside the result (Anthropic "tool_result"
// content, OpenAI "function_call_output" output, the content of a Chat
// Completions "tool" message, Gemini "functionResponse"), joined by
// newlines.
func ToolResults(body string) []string {
	var doc any
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		return nil
	}
	var out []string
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case map[string]any:
			if t, _ := v["type"].(string); t == "tool_result" {
				out = append(out, strings.Join(stringsIn(v["content"]), "\n"))
				return
			} else if t == "function_call_output" || t == "custom_tool_call_output" {
				out = append(out, strings.Join(stringsIn(v["output"]), "\n"))
				return
			}
			if isChatToolMessage(v) {
				out = append(out, strings.Join(stringsIn(v["content"]), "\n"))
				return
			}
			if fr, ok := v["functionResponse"]; ok {
				out = append(out, strings.Join(stringsIn(fr), "\n"))
				return
			}
			// A map's order is not the conversation's: tool results sit
			// in arrays, whose order is kept.
			for _, c := range v {
				walk(c)
			}
		case []any:
			for _, c := range v {
				walk(c)
			}
		}
	}
	walk(doc)
	return out
}

// stringsIn returns every string inside v, depth first (map values in key
// order).
func stringsIn(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, c := range v {
			out = append(out, stringsIn(c)...)
		}
		return out
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		var out []string
		for _, k := range keys {
			out = append(out, stringsIn(v[k])...)
		}
		return out
	}
	return nil
}

// ToolResults returns the tool results of the longest conversation of the
// script's own (not a branch's) that the server received (see the function
// ToolResults): what the model was told of each of its steps, in order.
func (s *Server) ToolResults() []string { return s.BranchToolResults("") }

// BranchToolResults returns the tool results of the longest conversation
// of the branch with marker (a sub-agent's), "" for the script's own.
func (s *Server) BranchToolResults(marker string) []string {
	var best []string
	for _, r := range s.Requests() {
		if r.Branch != marker {
			continue
		}
		if res := ToolResults(r.Body); len(res) > len(best) {
			best = res
		}
	}
	return best
}

// offersTools reports whether the request offers the model any tool.
func offersTools(doc any) bool {
	m, ok := doc.(map[string]any)
	if !ok {
		return false
	}
	tools, _ := m["tools"].([]any)
	return len(tools) > 0
}

func sse(w http.ResponseWriter, event string, data any) {
	b, err := json.Marshal(data)
	if err != nil {
		panic(err) // only maps of plain values are marshalled
	}
	if event != "" {
		fmt.Fprintf(w, "event: %s\n", event)
	}
	fmt.Fprintf(w, "data: %s\n\n", b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

type obj = map[string]any

// call is the tool name and arguments of step, the shell tool being
// shell(command). Factory Droid's Execute refuses a call without its
// risk classification, and the bash of Crush and OpenCode one without a description, so the
// mock gives them.
func call(step *Step, shellTool, shellArg string) (string, map[string]any) {
	if step.Shell != "" && shellTool == "Execute" {
		return shellTool, obj{shellArg: step.Shell, "summary": "run a command", "riskLevelReason": "a command the test scripted", "riskLevel": "low"}
	}
	if step.Shell != "" && shellTool == "bash" {
		return shellTool, obj{shellArg: step.Shell, "description": "run a command"}
	}
	if step.Shell != "" {
		return shellTool, obj{shellArg: step.Shell}
	}
	return step.Tool, step.Args
}

// anthropic answers a Messages request as Claude Code streams it: the shell
// tool is "Bash" with input {"command": …}; step nil is the final text.
func anthropic(w http.ResponseWriter, id string, step *Step, final string) {
	w.Header().Set("Content-Type", "text/event-stream")
	usage := obj{"input_tokens": 1, "output_tokens": 1}
	sse(w, "message_start", obj{"type": "message_start", "message": obj{
		"id": "msg_" + id, "type": "message", "role": "assistant", "model": "claude-mock",
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	stop := "end_turn"
	if step != nil {
		stop = "tool_use"
		for i, st := range append([]Step{*step}, step.Also...) {
			name, args := call(&st, "Bash", "command")
			if st.Shell != "" {
				args["description"] = "run the scripted command"
			}
			input, _ := json.Marshal(args)
			sse(w, "content_block_start", obj{"type": "content_block_start", "index": i,
				"content_block": obj{"type": "tool_use", "id": fmt.Sprintf("toolu_%s_%d", id, i), "name": name, "input": obj{}}})
			sse(w, "content_block_delta", obj{"type": "content_block_delta", "index": i,
				"delta": obj{"type": "input_json_delta", "partial_json": string(input)}})
			sse(w, "content_block_stop", obj{"type": "content_block_stop", "index": i})
		}
	} else {
		sse(w, "content_block_start", obj{"type": "content_block_start", "index": 0,
			"content_block": obj{"type": "text", "text": ""}})
		sse(w, "content_block_delta", obj{"type": "content_block_delta", "index": 0,
			"delta": obj{"type": "text_delta", "text": final}})
		sse(w, "content_block_stop", obj{"type": "content_block_stop", "index": 0})
	}
	sse(w, "message_delta", obj{"type": "message_delta",
		"delta": obj{"stop_reason": stop, "stop_sequence": nil}, "usage": obj{"output_tokens": 1}})
	sse(w, "message_stop", obj{"type": "message_stop"})
}

// responses answers an OpenAI Responses request as Codex streams it: the
// shell tool is "exec_command" with arguments {"cmd": …}; step nil is the
// final text.
func responses(w http.ResponseWriter, id string, step *Step, final string) {
	w.Header().Set("Content-Type", "text/event-stream")
	resp := obj{"id": "resp_" + id, "object": "response", "status": "in_progress", "model": "mock", "output": []any{}}
	sse(w, "response.created", obj{"type": "response.created", "response": resp})
	var item obj
	if step != nil && step.Input != "" {
		item = obj{"type": "custom_tool_call", "id": "ctc_" + id, "call_id": "call_" + id,
			"name": step.Tool, "input": step.Input, "status": "completed"}
	} else if step != nil {
		name, a := call(step, "exec_command", "cmd")
		args, _ := json.Marshal(a)
		item = obj{"type": "function_call", "id": "fc_" + id, "call_id": "call_" + id,
			"name": name, "arguments": string(args), "status": "completed"}
		if step.Namespace != "" {
			item["namespace"] = step.Namespace
		}
	} else {
		item = obj{"type": "message", "id": "msg_" + id, "role": "assistant", "status": "completed",
			"content": []any{obj{"type": "output_text", "text": final, "annotations": []any{}}}}
	}
	sse(w, "response.output_item.added", obj{"type": "response.output_item.added", "output_index": 0, "item": item})
	sse(w, "response.output_item.done", obj{"type": "response.output_item.done", "output_index": 0, "item": item})
	done := obj{"id": "resp_" + id, "object": "response", "status": "completed", "model": "mock",
		"output": []any{item},
		"usage": obj{"input_tokens": 1, "output_tokens": 1, "total_tokens": 2,
			"input_tokens_details": obj{"cached_tokens": 0}, "output_tokens_details": obj{"reasoning_tokens": 0}}}
	sse(w, "response.completed", obj{"type": "response.completed", "response": done})
}

// gemini answers a generateContent request, streamed or not, as the Gemini
// CLI expects: the shell tool is "run_shell_command" with {"command": …};
// step nil is the final text.
func gemini(w http.ResponseWriter, step *Step, final string, stream bool) {
	var part obj
	if step != nil {
		name, args := call(step, "run_shell_command", "command")
		part = obj{"functionCall": obj{"name": name, "args": args}}
	} else {
		part = obj{"text": final}
	}
	chunk := obj{
		"candidates": []any{obj{"content": obj{"role": "model", "parts": []any{part}},
			"finishReason": "STOP", "index": 0}},
		"usageMetadata": obj{"promptTokenCount": 1, "candidatesTokenCount": 1, "totalTokenCount": 2},
		"modelVersion":  "gemini-mock",
	}
	if !stream {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(chunk)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	sse(w, "", chunk)
}

// isChatToolMessage reports whether m is a Chat Completions message that
// carries a tool's result: {"role": "tool", "tool_call_id": …, "content": …}.
func isChatToolMessage(m map[string]any) bool {
	role, _ := m["role"].(string)
	return role == "tool"
}

// streams reports whether a Chat Completions request asks for SSE.
func streams(doc any) bool {
	m, _ := doc.(map[string]any)
	b, _ := m["stream"].(bool)
	return b
}

// shellTools are the names CLIs give their shell tool, in the order the
// mock prefers them (Factory Droid's is "Execute").
var shellTools = []string{"Bash", "run_shell_command", "bash", "shell", "exec_command", "Execute", "run_commands"}

// shellTool is the shell tool of a Chat Completions request: the script's,
// else the first of shellTools that the request offers, else "Bash".
func (s *Server) shellTool(doc any) string {
	if s.script.ShellTool != "" {
		return s.script.ShellTool
	}
	offered := map[string]bool{}
	m, _ := doc.(map[string]any)
	tools, _ := m["tools"].([]any)
	for _, t := range tools {
		t, _ := t.(map[string]any)
		if name, _ := t["name"].(string); name != "" {
			offered[name] = true
		}
		if f, ok := t["function"].(map[string]any); ok {
			if name, _ := f["name"].(string); name != "" {
				offered[name] = true
			}
		}
	}
	for _, name := range shellTools {
		if offered[name] {
			return name
		}
	}
	return "Bash"
}

// chatCompletions answers a Chat Completions request, streamed (SSE
// chunks, then "data: [DONE]") or as one JSON object: a tool call of step
// (the shell tool being shellTool with {"command": …}), or, step nil, the
// final text.
func chatCompletions(w http.ResponseWriter, id string, step *Step, final, shellTool string, stream bool) {
	message := obj{"role": "assistant"}
	finish := "stop"
	var toolCall obj
	if step != nil && step.Input != "" {
		// A freeform ("custom") tool, such as Copilot's apply_patch for
		// GPT-5 models: its input is the raw text.
		toolCall = obj{"id": "call_" + id, "type": "custom", "custom": obj{"name": step.Tool, "input": step.Input}}
		message["content"] = nil
		message["tool_calls"] = []any{toolCall}
		finish = "tool_calls"
	} else if step != nil {
		var calls []any
		for i, st := range append([]Step{*step}, step.Also...) {
			name, a := call(&st, shellTool, "command")
			args, _ := json.Marshal(a)
			c := obj{"id": fmt.Sprintf("call_%s_%d", id, i), "type": "function",
				"function": obj{"name": name, "arguments": string(args)}}
			if i == 0 {
				c["id"] = "call_" + id
				toolCall = c
			}
			calls = append(calls, c)
		}
		message["content"] = nil
		message["tool_calls"] = calls
		finish = "tool_calls"
	} else {
		message["content"] = final
	}
	usage := obj{"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
	base := func(object string) obj {
		return obj{"id": "chatcmpl-" + id, "object": object, "created": 0, "model": "mock"}
	}
	if !stream {
		resp := base("chat.completion")
		resp["choices"] = []any{obj{"index": 0, "message": message, "finish_reason": finish}}
		resp["usage"] = usage
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(resp)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta obj, finish any, usage any) {
		c := base("chat.completion.chunk")
		c["choices"] = []any{obj{"index": 0, "delta": delta, "finish_reason": finish}}
		if usage != nil {
			c["usage"] = usage
		}
		sse(w, "", c)
	}
	if custom, ok := toolCall["custom"].(obj); ok {
		// The name first, then the input in a delta of its own.
		chunk(obj{"role": "assistant", "content": nil, "tool_calls": []any{obj{"index": 0, "id": toolCall["id"], "type": "custom",
			"custom": obj{"name": custom["name"], "input": ""}}}}, nil, nil)
		chunk(obj{"tool_calls": []any{obj{"index": 0, "custom": obj{"input": custom["input"]}}}}, nil, nil)
	} else if toolCall != nil {
		// The name first, then the arguments in a delta of their own, as
		// OpenAI streams them: a client must join the pieces by index.
		for i, c := range message["tool_calls"].([]any) {
			c := c.(obj)
			fn := c["function"].(obj)
			delta := obj{"tool_calls": []any{obj{"index": i, "id": c["id"], "type": "function",
				"function": obj{"name": fn["name"], "arguments": ""}}}}
			if i == 0 {
				delta["role"], delta["content"] = "assistant", nil
			}
			chunk(delta, nil, nil)
			chunk(obj{"tool_calls": []any{obj{"index": i, "function": obj{"arguments": fn["arguments"]}}}}, nil, nil)
		}
	} else {
		chunk(obj{"role": "assistant", "content": ""}, nil, nil)
		chunk(obj{"content": final}, nil, nil)
	}
	chunk(obj{}, finish, usage)
	fmt.Fprint(w, "data: [DONE]\n\n")
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}
