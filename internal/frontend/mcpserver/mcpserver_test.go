package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// fake is a Runner that records the command lines and answers from a
// table. The protocol tests with the real agentlock are in cmd/agentlock
// (mcp_test.go); these check the argument mapping alone.
type fake struct {
	mu     sync.Mutex
	lines  [][]string
	whoami string // the session whoami reports
	answer func(args []string, stderr io.Writer) Output
}

func (f *fake) run(_ context.Context, args []string, stderr io.Writer) Output {
	f.mu.Lock()
	f.lines = append(f.lines, args)
	f.mu.Unlock()
	if args[0] == "whoami" {
		return Output{Stdout: []byte(`{"kind":"whoami","session_id":"` + f.whoami + `","source":"AGENTLOCK_SESSION"}` + "\n")}
	}
	if f.answer != nil {
		return f.answer(args, stderr)
	}
	return Output{Stdout: []byte(`{"kind":"lock","path":"/p/a","locked":true}` + "\n")}
}

func (f *fake) last() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.lines[len(f.lines)-1]
}

func connect(t *testing.T, f *fake, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	st, ct := mcp.NewInMemoryTransports()
	srv := New(Config{Version: "test", Run: f.run, Progress: 20 * time.Millisecond})
	ss, err := srv.Connect(ctx, st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, opts).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, p *mcp.CallToolParams) (*mcp.CallToolResult, string) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), p)
	require.NoError(t, err)
	var text strings.Builder
	for _, c := range res.Content {
		text.WriteString(c.(*mcp.TextContent).Text)
	}
	return res, text.String()
}

func TestToolArgumentsBecomeTheCommandLine(t *testing.T) {
	f := &fake{whoami: "claude-1"}
	cs := connect(t, f, nil)
	for _, c := range []struct {
		tool string
		args map[string]any
		want []string
	}{
		{"acquire", map[string]any{"paths": []string{"a", "b"}, "areas": []string{"src"}, "wait_seconds": 5},
			[]string{"acquire", "--json", "--wait", "5s", "./a", "./b", "./src/"}},
		{"acquire", map[string]any{"paths": []string{"-rf", "/abs/x", "../up"}}, []string{"acquire", "--json", "./-rf", "/abs/x", "../up"}},
		{"release", map[string]any{"paths": []string{"a"}}, []string{"release", "--json", "./a"}},
		{"release_all", nil, []string{"release", "--json", "--all"}},
		{"heartbeat", nil, []string{"heartbeat", "--json", "--all"}},
		{"status", map[string]any{"all": true}, []string{"status", "--json", "--all"}},
		{"register", map[string]any{"working_on": "x", "space": []string{"a", "b"}, "claim": true},
			[]string{"register", "--json", "--working-on", "x", "--space=a,b", "--claim"}},
		{"update", map[string]any{"status": "Finished"}, []string{"update", "--json", "--status=Finished"}},
		{"handoff", map[string]any{"notes": "-n.md"}, []string{"handoff", "--json", "--", "-n.md"}},
		{"finish", nil, []string{"finish", "--json"}},
		// The server's own session, given back: no flag.
		{"finish", map[string]any{"session": "claude-1"}, []string{"finish", "--json"}},
	} {
		res, text := call(t, cs, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		require.False(t, res.IsError, "%s: %s", c.tool, text)
		require.Equal(t, c.want, f.last(), c.tool)
	}
}

func TestSessionArgumentOnlyWithoutAServerSession(t *testing.T) {
	f := &fake{whoami: "claude-1"}
	cs := connect(t, f, nil)
	n := len(f.lines)
	res, text := call(t, cs, &mcp.CallToolParams{Name: "acquire", Arguments: map[string]any{"paths": []string{"a"}, "session": "codex-2"}})
	require.True(t, res.IsError)
	require.Contains(t, text, "acts for session claude-1")
	require.Equal(t, "whoami", f.last()[0], "nothing ran after the refusal")
	require.Len(t, f.lines, n+1)

	none := &fake{}
	cs = connect(t, none, nil)
	res, text = call(t, cs, &mcp.CallToolParams{Name: "acquire", Arguments: map[string]any{"paths": []string{"a"}, "session": "human-1"}})
	require.False(t, res.IsError, text)
	require.Equal(t, []string{"acquire", "--session", "human-1", "--json", "./a"}, none.last())
}

func TestRefusalTextNamesTheHolder(t *testing.T) {
	f := &fake{whoami: "claude-1", answer: func(args []string, _ io.Writer) Output {
		return Output{Code: 1, Stdout: []byte(`{"kind":"lock","path":"/p/a","locked":false,"session_id":"codex-9","note":"held by another session","age":3,"expires_in":117}` + "\n" +
			`{"kind":"lock","path":"/p/b","locked":false,"note":"not acquired: another path of the request is held"}` + "\n")}
	}}
	cs := connect(t, f, nil)
	res, text := call(t, cs, &mcp.CallToolParams{Name: "acquire", Arguments: map[string]any{"paths": []string{"a", "b"}}})
	require.True(t, res.IsError)
	require.Nil(t, res.StructuredContent, "a refusal's text is what the model reads")
	require.Contains(t, text, "/p/a is held by session codex-9 (renewed 3s ago, expires in 117s unless renewed)")
	require.Contains(t, text, "/p/b: not acquired")
	require.Contains(t, text, "ask codex-9")
	require.Contains(t, text, `"session_id":"codex-9"`, "the records follow")

	// check's exit 1 is a result.
	res, text = call(t, cs, &mcp.CallToolParams{Name: "check", Arguments: map[string]any{"paths": []string{"a"}}})
	require.False(t, res.IsError, text)
}

func TestWaitingAcquireSendsProgress(t *testing.T) {
	var got sync.WaitGroup
	got.Add(1)
	var once sync.Once
	var msg string
	f := &fake{whoami: "claude-1", answer: func(args []string, stderr io.Writer) Output {
		if stderr != nil {
			io.WriteString(stderr, "agentlock: /p/a is locked by codex-9; waiting up to 5s...\n")
		}
		got.Wait() // until a progress notification arrived
		return Output{Stdout: []byte(`{"kind":"lock","path":"/p/a","locked":true}` + "\n")}
	}}
	cs := connect(t, f, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		once.Do(func() { msg = r.Params.Message; got.Done() })
	}})
	p := &mcp.CallToolParams{Name: "acquire", Arguments: map[string]any{"paths": []string{"a"}, "wait_seconds": 5}}
	p.SetProgressToken("t1")
	res, text := call(t, cs, p)
	require.False(t, res.IsError, text)
	require.Contains(t, msg, "/p/a is locked by codex-9")
	var sc map[string]any
	data, _ := json.Marshal(res.StructuredContent)
	require.NoError(t, json.Unmarshal(data, &sc))
	require.Equal(t, float64(0), sc["exit_code"])
}

func TestToolsAreAnnotated(t *testing.T) {
	cs := connect(t, &fake{}, nil)
	list, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, list.Tools, 11)
	for _, tl := range list.Tools {
		require.Equal(t, readOnly[tl.Name], tl.Annotations.ReadOnlyHint, tl.Name)
		require.False(t, *tl.Annotations.DestructiveHint, tl.Name)
	}
}
