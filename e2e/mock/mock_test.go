package mock_test

import (
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
