package mock_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agentlock/agentlock/e2e/mock"
)

// post sends body to the server at path and returns the whole answer.
func post(t *testing.T, s *mock.Server, path, body string) string {
	t.Helper()
	resp, err := http.Post(s.URL()+path, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("POST %s: %s: %s", path, resp.Status, out)
	}
	return string(out)
}

// Each protocol: no tool result yet → the first command; one result → the
// second; two → the final text; a request without tools → the final text.
func TestScriptPerProtocol(t *testing.T) {
	for _, tc := range []struct {
		name, path, tool    string
		noResult, oneResult string
		twoResults, noTools string
	}{
		{
			name: "anthropic", path: "/v1/messages?beta=true", tool: `"name":"Bash"`,
			noResult:   `{"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"go"}]}`,
			oneResult:  `{"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t"}]}]}`,
			twoResults: `{"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":[{"type":"tool_result"}]},{"role":"user","content":[{"type":"tool_result"}]}]}`,
			noTools:    `{"messages":[{"role":"user","content":"title?"}]}`,
		},
		{
			name: "responses", path: "/v1/responses", tool: `"name":"exec_command"`,
			noResult:   `{"tools":[{"name":"exec_command"}],"input":[{"role":"user","content":"go"}]}`,
			oneResult:  `{"tools":[{"name":"exec_command"}],"input":[{"type":"function_call_output","call_id":"c"}]}`,
			twoResults: `{"tools":[{"name":"exec_command"}],"input":[{"type":"function_call_output"},{"type":"function_call_output"}]}`,
			noTools:    `{"input":[{"role":"user","content":"go"}]}`,
		},
		{
			name: "chat", path: "/v1/chat/completions", tool: `"name":"Bash"`,
			noResult:   `{"tools":[{"type":"function","function":{"name":"Bash"}}],"messages":[{"role":"user","content":"go"}]}`,
			oneResult:  `{"tools":[{"type":"function","function":{"name":"Bash"}}],"messages":[{"role":"assistant","tool_calls":[{"id":"c"}]},{"role":"tool","tool_call_id":"c","content":"x"}]}`,
			twoResults: `{"tools":[{"type":"function","function":{"name":"Bash"}}],"messages":[{"role":"tool","content":"x"},{"role":"tool","content":"y"}]}`,
			noTools:    `{"messages":[{"role":"user","content":"title?"}]}`,
		},
		{
			name: "chat-stream", path: "/v1/chat/completions", tool: `"name":"run_shell_command"`,
			noResult:   `{"stream":true,"tools":[{"type":"function","function":{"name":"read_file"}},{"type":"function","function":{"name":"run_shell_command"}}],"messages":[{"role":"user","content":"go"}]}`,
			oneResult:  `{"stream":true,"tools":[{"type":"function","function":{"name":"run_shell_command"}}],"messages":[{"role":"tool","tool_call_id":"c","content":"x"}]}`,
			twoResults: `{"stream":true,"tools":[{"type":"function","function":{"name":"run_shell_command"}}],"messages":[{"role":"tool","content":"x"},{"role":"tool","content":"y"}]}`,
			noTools:    `{"stream":true,"messages":[{"role":"user","content":"title?"}]}`,
		},
		{
			name: "gemini", path: "/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse", tool: `"name":"run_shell_command"`,
			noResult:   `{"tools":[{"functionDeclarations":[]}],"contents":[{"role":"user","parts":[{"text":"go"}]}]}`,
			oneResult:  `{"tools":[{}],"contents":[{"role":"user","parts":[{"functionResponse":{"name":"run_shell_command"}}]}]}`,
			twoResults: `{"tools":[{}],"contents":[{"parts":[{"functionResponse":{}}]},{"parts":[{"functionResponse":{}}]}]}`,
			noTools:    `{"contents":[{"role":"user","parts":[{"text":"go"}]}]}`,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := mock.Start(mock.Script{Commands: []string{"echo first", "echo second"}, Final: "All done."})
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			for _, step := range []struct{ body, want, notWant string }{
				{tc.noResult, "echo first", "All done."},
				{tc.oneResult, "echo second", "All done."},
				{tc.twoResults, "All done.", tc.tool},
				{tc.noTools, "All done.", tc.tool},
			} {
				got := post(t, s, tc.path, step.body)
				if !strings.Contains(got, step.want) || strings.Contains(got, step.notWant) {
					t.Fatalf("answer to %s:\n%s\nwant %q, not %q", step.body, got, step.want, step.notWant)
				}
				if step.want != "All done." && !strings.Contains(got, tc.tool) {
					t.Fatalf("answer to %s calls no %s tool:\n%s", step.body, tc.tool, got)
				}
			}
			if n := len(s.Requests()); n != 4 {
				t.Fatalf("server recorded %d requests, want 4", n)
			}
		})
	}
}

// A step that names a tool is called by that name with its arguments in
// each protocol; a shell step uses the protocol's shell tool.
func TestStepsCallNamedTools(t *testing.T) {
	s, err := mock.Start(mock.Script{Steps: []mock.Step{
		{Tool: "write_file", Args: map[string]any{"file_path": "@held.txt", "content": "x"}},
		{Shell: "echo second"},
	}, Final: "All done."})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for _, tc := range []struct{ path, first, second string }{
		{"/v1/messages", `{"tools":[{}],"messages":[]}`, `{"tools":[{}],"messages":[{"content":[{"type":"tool_result"}]}]}`},
		{"/v1/responses", `{"tools":[{}],"input":[]}`, `{"tools":[{}],"input":[{"type":"function_call_output"}]}`},
		{"/v1beta/models/m:streamGenerateContent?alt=sse", `{"tools":[{}],"contents":[]}`, `{"tools":[{}],"contents":[{"parts":[{"functionResponse":{}}]}]}`},
		{"/v1/chat/completions", `{"tools":[{}],"messages":[]}`, `{"tools":[{}],"messages":[{"role":"tool","content":"ok"}]}`},
	} {
		got := post(t, s, tc.path, tc.first)
		if !strings.Contains(got, `write_file`) || !strings.Contains(got, `@held.txt`) {
			t.Errorf("%s: first answer does not call write_file on @held.txt:\n%s", tc.path, got)
		}
		got = post(t, s, tc.path, tc.second)
		if !strings.Contains(got, "echo second") || strings.Contains(got, "write_file") {
			t.Errorf("%s: second answer is not the shell step:\n%s", tc.path, got)
		}
	}
}

// ToolResults finds what each protocol told the model of its tool calls,
// in the conversation's order.
func TestToolResults(t *testing.T) {
	for _, tc := range []struct{ name, body string }{
		{"anthropic", `{"system":"s","messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"one"}]},
			{"role":"user","content":[{"type":"tool_result","tool_use_id":"b","is_error":true,"content":[{"type":"text","text":"two"}]}]}]}`},
		{"responses", `{"input":[{"type":"function_call_output","call_id":"a","output":"one"},{"type":"message","content":"x"},
			{"type":"function_call_output","call_id":"b","output":"two"}]}`},
		{"chat", `{"messages":[{"role":"system","content":"s"},{"role":"tool","tool_call_id":"a","content":"one"},{"role":"user","content":"x"},
			{"role":"tool","tool_call_id":"b","content":[{"type":"text","text":"two"}]}]}`},
		{"gemini", `{"contents":[{"parts":[{"functionResponse":{"response":{"output":"one"}}}]},
			{"parts":[{"text":"x"}]},{"parts":[{"functionResponse":{"response":{"error":"two"}}}]}]}`},
	} {
		got := mock.ToolResults(tc.body)
		if len(got) != 2 || !strings.Contains(got[0], "one") || !strings.Contains(got[1], "two") || strings.Contains(got[0], "two") {
			t.Errorf("%s: ToolResults = %q, want one then two", tc.name, got)
		}
	}
}

// A step with Input calls a freeform tool in the Responses protocol, and
// its output counts as a tool result.
func TestStepFreeformTool(t *testing.T) {
	s, err := mock.Start(mock.Script{Steps: []mock.Step{{Tool: "apply_patch", Input: "*** Begin Patch"}}, Final: "All done."})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got := post(t, s, "/v1/responses", `{"tools":[{}],"input":[]}`)
	if !strings.Contains(got, `"type":"custom_tool_call"`) || !strings.Contains(got, `"input":"*** Begin Patch"`) {
		t.Fatalf("answer is not a custom apply_patch call:\n%s", got)
	}
	body := `{"tools":[{}],"input":[{"type":"custom_tool_call_output","call_id":"c","output":"denied"}]}`
	if got := post(t, s, "/v1/responses", body); !strings.Contains(got, "All done.") {
		t.Fatalf("a custom tool's output did not count as the step's result:\n%s", got)
	}
	if res := mock.ToolResults(body); len(res) != 1 || res[0] != "denied" {
		t.Fatalf("ToolResults = %q", res)
	}
}

// chatToolCall is the one tool call of a Chat Completions answer, streamed
// (its pieces joined by index, as a client does) or not, and the answer's
// finish reason.
func chatToolCall(t *testing.T, answer string, stream bool) (name string, args map[string]any, finish string) {
	t.Helper()
	type fn struct {
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
	}
	type custom struct {
		Name  string `json:"name"`
		Input string `json:"input"`
	}
	type tc struct {
		Index    int    `json:"index"`
		ID       string `json:"id"`
		Type     string `json:"type"`
		Function fn     `json:"function"`
		Custom   custom `json:"custom"`
	}
	type choice struct {
		Message struct {
			ToolCalls []tc `json:"tool_calls"`
		} `json:"message"`
		Delta struct {
			ToolCalls []tc `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	}
	var joined tc
	var calls int
	decode := func(data string) {
		var c struct {
			Object  string   `json:"object"`
			Choices []choice `json:"choices"`
		}
		if err := json.Unmarshal([]byte(data), &c); err != nil {
			t.Fatalf("not JSON: %v: %s", err, data)
		}
		for _, ch := range c.Choices {
			if ch.FinishReason != nil {
				finish = *ch.FinishReason
			}
			for _, call := range append(ch.Message.ToolCalls, ch.Delta.ToolCalls...) {
				if call.Index != 0 {
					t.Fatalf("tool call index %d, want 0: %s", call.Index, data)
				}
				if call.ID != "" {
					calls++
					joined.ID, joined.Type = call.ID, call.Type
				}
				joined.Function.Name += call.Function.Name
				joined.Function.Arguments += call.Function.Arguments
				joined.Custom.Name += call.Custom.Name
				joined.Custom.Input += call.Custom.Input
			}
		}
	}
	if !stream {
		decode(answer)
	} else {
		if !strings.HasSuffix(answer, "data: [DONE]\n\n") {
			t.Fatalf("stream does not end with [DONE]:\n%s", answer)
		}
		for _, ev := range strings.Split(strings.TrimSpace(answer), "\n\n") {
			data, ok := strings.CutPrefix(ev, "data: ")
			if !ok {
				t.Fatalf("event %q is not a data line", ev)
			}
			if data != "[DONE]" {
				decode(data)
			}
		}
	}
	if calls > 1 {
		t.Fatalf("%d tool call ids in one answer, want 1:\n%s", calls, answer)
	}
	if calls == 1 && joined.Type == "custom" {
		// A freeform tool: its input is the raw text, given as "input".
		return joined.Custom.Name, map[string]any{"input": joined.Custom.Input}, finish
	}
	if calls == 1 {
		if joined.Type != "function" {
			t.Fatalf("tool call type %q, want function", joined.Type)
		}
		if err := json.Unmarshal([]byte(joined.Function.Arguments), &args); err != nil {
			t.Fatalf("tool call arguments %q are not JSON: %v", joined.Function.Arguments, err)
		}
	}
	return joined.Function.Name, args, finish
}

// Chat Completions, streamed and not: the tool call arrives whole (name,
// arguments as a JSON string) with finish_reason "tool_calls", the shell
// tool is the one the request offers (or the script's), and the final
// answer is text with finish_reason "stop".
func TestChatCompletions(t *testing.T) {
	for _, stream := range []bool{false, true} {
		s, err := mock.Start(mock.Script{Steps: []mock.Step{
			{Tool: "Write", Args: map[string]any{"path": "held.txt", "content": "x"}},
			{Shell: "echo second"},
		}, Final: "All done."})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		tools := `"tools":[{"type":"function","function":{"name":"Write"}},{"type":"function","function":{"name":"bash"}}]`
		body := func(msgs string) string {
			return fmt.Sprintf(`{"model":"m","stream":%v,%s,"messages":[{"role":"user","content":"go"}%s]}`, stream, tools, msgs)
		}
		name, args, finish := chatToolCall(t, post(t, s, "/v1/chat/completions", body("")), stream)
		if name != "Write" || args["path"] != "held.txt" || args["content"] != "x" || finish != "tool_calls" {
			t.Errorf("stream=%v: first answer calls %q %v (finish %q), want Write of held.txt", stream, name, args, finish)
		}
		one := `,{"role":"assistant","content":null,"tool_calls":[{"id":"call_mock0","type":"function","function":{"name":"Write","arguments":"{}"}}]},{"role":"tool","tool_call_id":"call_mock0","content":"ok"}`
		name, args, finish = chatToolCall(t, post(t, s, "/v1/chat/completions", body(one)), stream)
		// Crush's bash tool refuses a call without a description.
		if name != "bash" || args["command"] != "echo second" || args["description"] != "run a command" || len(args) != 2 || finish != "tool_calls" {
			t.Errorf("stream=%v: second answer calls %q %v (finish %q), want the offered shell tool bash with the command and a description", stream, name, args, finish)
		}
		two := one + `,{"role":"tool","tool_call_id":"call_mock1","content":"second"}`
		got := post(t, s, "/v1/chat/completions", body(two))
		name, _, finish = chatToolCall(t, got, stream)
		if name != "" || finish != "stop" || !strings.Contains(got, "All done.") {
			t.Errorf("stream=%v: last answer is not the final text with finish stop:\n%s", stream, got)
		}
		if stream && !strings.Contains(got, `"object":"chat.completion.chunk"`) {
			t.Errorf("stream=%v: chunks are not chat.completion.chunk objects:\n%s", stream, got)
		}
		if !stream && !strings.Contains(got, `"object":"chat.completion"`) {
			t.Errorf("stream=%v: the answer is not a chat.completion object:\n%s", stream, got)
		}
	}
	// A script may name the shell tool.
	s, err := mock.Start(mock.Script{Commands: []string{"echo x"}, ShellTool: "Shell", Final: "All done."})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	name, args, _ := chatToolCall(t, post(t, s, "/v1/chat/completions", `{"tools":[{"type":"function","function":{"name":"bash"}}],"messages":[]}`), false)
	if name != "Shell" || args["command"] != "echo x" {
		t.Errorf("with ShellTool Shell the answer calls %q %v", name, args)
	}
}

// A freeform step (Copilot's apply_patch for GPT-5 ids, a "custom" tool in
// Chat Completions) is answered with a custom tool call carrying the raw
// text, streamed and not.
func TestChatCompletionsFreeformTool(t *testing.T) {
	const patch = "*** Begin Patch\n*** Update File: a.txt\n@@\n-x\n+y\n*** End Patch"
	for _, stream := range []bool{false, true} {
		s, err := mock.Start(mock.Script{Steps: []mock.Step{{Tool: "apply_patch", Input: patch}}, Final: "All done."})
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		body := fmt.Sprintf(`{"model":"gpt-5.5","stream":%v,"tools":[{"type":"custom","custom":{"name":"apply_patch"}}],"messages":[{"role":"user","content":"go"}]}`, stream)
		name, args, finish := chatToolCall(t, post(t, s, "/v1/chat/completions", body), stream)
		if name != "apply_patch" || args["input"] != patch || finish != "tool_calls" {
			t.Errorf("stream=%v: the answer calls %q %v (finish %q), want the custom tool apply_patch with the patch", stream, name, args, finish)
		}
	}
}

// A sub-agent's conversation follows the branch its opening names; a
// step with Also calls several tools in one answer, and the next step
// waits for all of their results.
func TestBranchesAndParallelCalls(t *testing.T) {
	s, err := mock.Start(mock.Script{
		Steps: []mock.Step{
			{Tool: "Agent", Args: map[string]any{"prompt": "you are writer-A"}, Also: []mock.Step{{Tool: "Agent", Args: map[string]any{"prompt": "you are writer-B"}}}},
			{Shell: "agentlock show"},
		},
		Final: "main done",
		Branches: []mock.Branch{
			{Marker: "writer-A", Steps: []mock.Step{{Shell: "edit as A"}}, Final: "A done"},
			{Marker: "writer-B", Steps: []mock.Step{{Shell: "edit as B"}}, Final: "B done"},
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tools := `"tools":[{"name":"Bash"},{"name":"Agent"}]`
	out := post(t, s, "/v1/messages", `{`+tools+`,"messages":[{"role":"user","content":"run the script"}]}`)
	if strings.Count(out, `"type":"tool_use"`) != 2 || !strings.Contains(out, "writer-A") || !strings.Contains(out, "writer-B") {
		t.Fatalf("the first answer: want both Agent calls, got %s", out)
	}
	one := `{"role":"user","content":[{"type":"tool_result","tool_use_id":"a"}]}`
	out = post(t, s, "/v1/messages", `{`+tools+`,"messages":[{"role":"user","content":"run the script"},{"role":"assistant","content":[]},`+one+`]}`)
	if strings.Contains(out, "agentlock show") {
		t.Fatalf("one result of two: the next step must wait for both, got %s", out)
	}
	out = post(t, s, "/v1/messages", `{`+tools+`,"messages":[{"role":"user","content":"run the script"},{"role":"assistant","content":[]},`+one+`,`+one+`]}`)
	if !strings.Contains(out, "agentlock show") {
		t.Fatalf("both results: want the next step, got %s", out)
	}
	for _, w := range []string{"A", "B"} {
		out = post(t, s, "/v1/messages", `{`+tools+`,"messages":[{"role":"user","content":[{"type":"text","text":"<system-reminder>x</system-reminder>"},{"type":"text","text":"you are writer-`+w+`"}]}]}`)
		if !strings.Contains(out, "edit as "+w) {
			t.Fatalf("writer-%s's conversation: want its branch's step, got %s", w, out)
		}
		out = post(t, s, "/v1/messages", `{`+tools+`,"messages":[{"role":"user","content":"you are writer-`+w+`"},{"role":"assistant","content":[]},`+one+`]}`)
		if !strings.Contains(out, w+" done") {
			t.Fatalf("writer-%s's conversation: want its branch's final text, got %s", w, out)
		}
	}
	// Each conversation's tool results are its own, the longest of each:
	// now three of the script's, two of writer-B's, still one of writer-A's.
	told := `{"role":"user","content":[{"type":"tool_result","tool_use_id":"x","content":"told %s"}]}`
	post(t, s, "/v1/messages", `{`+tools+`,"messages":[{"role":"user","content":"run the script"},{"role":"assistant","content":[]},`+
		fmt.Sprintf(told, "main 1")+`,`+fmt.Sprintf(told, "main 2")+`,`+fmt.Sprintf(told, "main 3")+`]}`)
	post(t, s, "/v1/messages", `{`+tools+`,"messages":[{"role":"user","content":"you are writer-B"},{"role":"assistant","content":[]},`+fmt.Sprintf(told, "B 1")+`,`+fmt.Sprintf(told, "B 2")+`]}`)
	for marker, want := range map[string][]string{"": {"told main 1", "told main 2", "told main 3"}, "writer-B": {"told B 1", "told B 2"}, "writer-A": {""}} {
		if got := s.BranchToolResults(marker); fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("BranchToolResults(%q) = %q, want %q", marker, got, want)
		}
	}
	if got := s.ToolResults(); fmt.Sprint(got) != fmt.Sprint([]string{"told main 1", "told main 2", "told main 3"}) {
		t.Errorf("ToolResults() = %q, want the script's own conversation's", got)
	}
	chat := post(t, s, "/v1/chat/completions", `{"tools":[{"type":"function","function":{"name":"Agent"}}],"messages":[{"role":"user","content":"go"}]}`)
	var resp struct {
		Choices []struct {
			Message struct {
				ToolCalls []any `json:"tool_calls"`
			} `json:"message"`
		} `json:"choices"`
	}
	if err := json.Unmarshal([]byte(chat), &resp); err != nil || len(resp.Choices) != 1 || len(resp.Choices[0].Message.ToolCalls) != 2 {
		t.Fatalf("Chat Completions: want two tool calls in one message, got %s (%v)", chat, err)
	}
}

// A reacting model (Script.Next) is given what it was told so far, and
// answers with its next call, then the final text.
func TestNextReactsToResults(t *testing.T) {
	s, err := mock.Start(mock.Script{Final: "Done.", Next: func(results []string) (mock.Step, bool) {
		switch {
		case len(results) == 0:
			return mock.Step{Shell: "cat a.txt"}, true
		case strings.Contains(results[len(results)-1], "refused"):
			return mock.Step{Shell: "cat a.txt again"}, true
		case len(results) < 3:
			return mock.Step{Shell: "echo " + results[len(results)-1]}, true
		}
		return mock.Step{}, false
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const tools = `"tools":[{"name":"Bash"}]`
	for _, tc := range []struct{ body, want string }{
		{`{` + tools + `,"messages":[{"role":"user","content":"go"}]}`, `cat a.txt`},
		{`{` + tools + `,"messages":[{"role":"user","content":[{"type":"tool_result","content":"refused"}]}]}`, `cat a.txt again`},
		{`{` + tools + `,"messages":[{"role":"user","content":[{"type":"tool_result","content":"T:1"}]}]}`, `echo T:1`},
		{`{` + tools + `,"messages":[{"role":"user","content":[{"type":"tool_result","content":"x"},{"type":"tool_result","content":"y"},{"type":"tool_result","content":"z"}]}]}`, `Done.`},
		{`{"messages":[{"role":"user","content":"title?"}]}`, `Done.`},
	} {
		if got := post(t, s, "/v1/messages", tc.body); !strings.Contains(got, tc.want) {
			t.Errorf("%s: got %s, want %q", tc.body, got, tc.want)
		}
	}
}
