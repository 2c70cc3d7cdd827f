package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/session"
	"github.com/agentlock/agentlock/workspace"
)

// The protocol tests with the real agentlock mcp process are in
// cmd/agentlock (mcp_test.go); these check, in process, that each tool's
// input becomes its verb's request and its outcome the command line's
// records.

// project makes a project set up for agentlock and works in it.
func project(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	for _, d := range []string{".git", workspace.HomeDirName, "src"} {
		require.NoError(t, os.MkdirAll(filepath.Join(root, d), 0o755))
	}
	t.Chdir(root)
	return root
}

// services returns the Service of a server whose own session is own ("":
// none), and of one-shot commands of other sessions.
func services(own string) func(typed string) *session.Service {
	return func(typed string) *session.Service {
		in := session.Inputs{Env: own, Lookup: func(string) session.Recorded { return session.Recorded{} }}
		if typed != "" {
			in.Flag = typed
		}
		return session.New(session.Config{Identity: in})
	}
}

func connect(t *testing.T, own string, opts *mcp.ClientOptions, middleware ...mcp.Middleware) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	t.Cleanup(cancel)
	st, ct := mcp.NewInMemoryTransports()
	srv := New(Config{Version: "test", Service: services(own), Progress: 20 * time.Millisecond})
	srv.AddReceivingMiddleware(middleware...)
	ss, err := srv.Connect(ctx, st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, opts).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, p *mcp.CallToolParams) (*mcp.CallToolResult, string, []map[string]any) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), p)
	require.NoError(t, err)
	var text strings.Builder
	for _, c := range res.Content {
		text.WriteString(c.(*mcp.TextContent).Text)
	}
	var sc struct {
		Records []map[string]any `json:"records"`
	}
	if res.StructuredContent != nil {
		data, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(data, &sc))
	}
	return res, text.String(), sc.Records
}

// lock takes path for session as a one-shot command would.
func lock(t *testing.T, session, path string) {
	t.Helper()
	_, err := services(session)("").Acquire(t.Context(), sessionAcquire(path))
	require.NoError(t, err)
}

func sessionAcquire(paths ...string) session.AcquireRequest {
	return session.AcquireRequest{Paths: paths}
}

func owner(t *testing.T, path string) string {
	t.Helper()
	chk, err := services("")("").Check(t.Context(), []string{path}, "")
	require.NoError(t, err)
	return chk.Checks[0].Owner
}

func TestToolInputsBecomeTheVerbsRequests(t *testing.T) {
	root := project(t)
	cs := connect(t, "claude-1", nil)
	for _, c := range []struct {
		tool  string
		args  map[string]any
		check func(records []map[string]any)
	}{
		{"acquire", map[string]any{"paths": []string{"a", "src/b"}, "areas": []string{"docs"}, "wait_seconds": 5}, func(recs []map[string]any) {
			require.Len(t, recs, 3)
			for i, p := range []string{"a", "src/b", "docs/"} {
				assert.Equal(t, filepath.Join(root, p)+map[bool]string{true: "/"}[strings.HasSuffix(p, "/")], recs[i]["path"])
				assert.Equal(t, true, recs[i]["locked"])
			}
		}},
		{"heartbeat", nil, func(recs []map[string]any) { require.Len(t, recs, 3, "every lock of the session") }},
		{"heartbeat", map[string]any{"paths": []string{"a"}}, func(recs []map[string]any) { require.Len(t, recs, 1) }},
		{"release", map[string]any{"paths": []string{"a"}}, func(recs []map[string]any) { assert.Equal(t, true, recs[0]["released"]) }},
		{"release_all", nil, func(recs []map[string]any) { require.Len(t, recs, 2) }},
		{"status", map[string]any{"all": true}, func(recs []map[string]any) { require.Len(t, recs, 3, "--all lists the free lock files") }},
		{"register", map[string]any{"working_on": "x", "space": []string{"src"}, "claim": true}, func(recs []map[string]any) {
			require.Len(t, recs, 2)
			assert.Equal(t, []any{filepath.Join(root, "src") + "/"}, recs[0]["space"])
			assert.Equal(t, filepath.Join(root, "src")+"/", recs[1]["path"])
		}},
		{"update", map[string]any{"status": "Finished"}, func(recs []map[string]any) { assert.Equal(t, "Finished", recs[0]["status"]) }},
		{"handoff", map[string]any{"notes": "-n.md"}, func(recs []map[string]any) { assert.Equal(t, "-n.md", recs[0]["handoff"]) }},
		{"finish", nil, func(recs []map[string]any) {
			assert.Equal(t, []any{filepath.Join(root, "src") + "/"}, recs[0]["released_paths"])
		}},
		// The server's own session, given back: the same call.
		{"whoami", map[string]any{"session": "claude-1"}, func(recs []map[string]any) { assert.Equal(t, "claude-1", recs[0]["session_id"]) }},
	} {
		res, text, recs := call(t, cs, &mcp.CallToolParams{Name: c.tool, Arguments: c.args})
		require.False(t, res.IsError, "%s: %s", c.tool, text)
		c.check(recs)
	}
}

func TestSessionArgumentOnlyWithoutAServerSession(t *testing.T) {
	root := project(t)
	a := filepath.Join(root, "a")
	cs := connect(t, "claude-1", nil)
	res, text, _ := call(t, cs, &mcp.CallToolParams{Name: "acquire", Arguments: map[string]any{"paths": []string{"a"}, "session": "codex-2"}})
	require.True(t, res.IsError)
	require.Contains(t, text, "acts for session claude-1")
	require.Empty(t, owner(t, a), "nothing ran after the refusal")

	cs = connect(t, "", nil)
	res, text, _ = call(t, cs, &mcp.CallToolParams{Name: "acquire", Arguments: map[string]any{"paths": []string{"a"}, "session": "human-1"}})
	require.False(t, res.IsError, text)
	require.Equal(t, "human-1", owner(t, a))
}

func TestRefusalTextNamesTheHolder(t *testing.T) {
	root := project(t)
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	lock(t, "codex-9", a)
	cs := connect(t, "claude-1", nil)
	res, text, _ := call(t, cs, &mcp.CallToolParams{Name: "acquire", Arguments: map[string]any{"paths": []string{"a", "b"}}})
	require.True(t, res.IsError)
	require.Nil(t, res.StructuredContent, "a refusal's text is what the model reads")
	require.Contains(t, text, a+" is held by session codex-9 (renewed 0s ago, expires in 120s unless renewed)")
	require.Contains(t, text, b+": not acquired")
	require.Contains(t, text, "ask codex-9")
	require.Contains(t, text, `"session_id":"codex-9"`, "the records follow")

	// check's exit 1 is a result.
	res, text, _ = call(t, cs, &mcp.CallToolParams{Name: "check", Arguments: map[string]any{"paths": []string{"a"}}})
	require.False(t, res.IsError, text)
	require.Contains(t, text, a+" is locked by codex-9")
}

func TestWaitingAcquireSendsProgress(t *testing.T) {
	root := project(t)
	a := filepath.Join(root, "a")
	lock(t, "codex-9", a)
	var once sync.Once
	var msg string
	cs := connect(t, "claude-1", &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
		once.Do(func() {
			msg = r.Params.Message
			// The holder lets go once the waiter was told what it waits for.
			_, err := services("codex-9")("").Release(context.Background(), session.ReleaseRequest{Paths: []string{a}})
			assert.NoError(t, err)
		})
	}})
	p := &mcp.CallToolParams{Name: "acquire", Arguments: map[string]any{"paths": []string{"a"}, "wait_seconds": 30}}
	p.SetProgressToken("t1")
	res, text, _ := call(t, cs, p)
	require.False(t, res.IsError, text)
	require.Contains(t, msg, a+" is locked by codex-9")
	require.Contains(t, text, "waiting up to 30s", "the command line's waiting line, as its stderr says it")
	var sc map[string]any
	data, _ := json.Marshal(res.StructuredContent)
	require.NoError(t, json.Unmarshal(data, &sc))
	require.Equal(t, float64(0), sc["exit_code"])
	require.Equal(t, "claude-1", owner(t, a))
}

// A client that cancels a waiting acquire ends it: the server's call
// returns, the lock is not taken for the session, and the server goes on
// answering.
func TestCancelledAcquireStopsWaiting(t *testing.T) {
	root := project(t)
	a := filepath.Join(root, "a")
	lock(t, "codex-9", a)
	waiting := make(chan struct{})
	var once sync.Once
	// ended receives the outcome of each tools/call the server finished.
	ended := make(chan error, 8)
	cs := connect(t, "claude-1", &mcp.ClientOptions{ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) {
		once.Do(func() { close(waiting) })
	}}, func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method == "tools/call" {
				ended <- err
			}
			return res, err
		}
	})
	ctx, cancel := context.WithCancel(context.Background())
	p := &mcp.CallToolParams{Name: "acquire", Arguments: map[string]any{"paths": []string{"a"}, "wait_seconds": 600}}
	p.SetProgressToken("t1")
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, p)
		done <- err
	}()
	<-waiting
	cancel()
	require.Error(t, <-done, "the client's call is cancelled")
	select {
	case <-ended: // the server's wait ended, long before its 600 s
	case <-time.After(20 * time.Second):
		t.Fatal("the server still waits for the lock of a cancelled call")
	}
	require.Equal(t, "codex-9", owner(t, a))
	_, err := services("codex-9")("").Release(t.Context(), session.ReleaseRequest{Paths: []string{a}})
	require.NoError(t, err)
	// The server answers the next call, and nothing of the cancelled one
	// takes the freed lock.
	res, text, recs := call(t, cs, &mcp.CallToolParams{Name: "check", Arguments: map[string]any{"paths": []string{"a"}}})
	require.False(t, res.IsError, text)
	require.Equal(t, "free", recs[0]["state"])
	require.Empty(t, owner(t, a))
}

func TestToolsAreAnnotated(t *testing.T) {
	project(t)
	cs := connect(t, "", nil)
	list, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	require.Len(t, list.Tools, 11)
	for _, tl := range list.Tools {
		require.Equal(t, readOnly[tl.Name], tl.Annotations.ReadOnlyHint, tl.Name)
		require.False(t, *tl.Annotations.DestructiveHint, tl.Name)
	}
}

// The MCP server's acquire takes part in read versions as the pre-edit
// hook does: a file the session read, which another session changed and
// released since, is refused — naming that session, the file reserved for
// the session (its lock is the session's), the refusal in the audit log —
// and taken once the session read it again. A file it never read, or one
// nobody changed, is taken as always.
func TestAcquireOfAStaleFileRefused(t *testing.T) {
	root := project(t)
	a, b := filepath.Join(root, "src", "a.go"), filepath.Join(root, "src", "b.go")
	for _, p := range []string{a, b} {
		require.NoError(t, os.WriteFile(p, []byte("C0\n"), 0o644))
	}
	x := services("claude-1")("")
	_, err := x.Read(t.Context(), session.ReadRequest{Paths: []string{a, b}})
	require.NoError(t, err)
	y := services("codex-2")("")
	_, err = y.Acquire(t.Context(), sessionAcquire(a))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(a, []byte("C0\nC1\n"), 0o644))
	_, err = y.Release(t.Context(), session.ReleaseRequest{Paths: []string{a}})
	require.NoError(t, err)

	cs := connect(t, "claude-1", nil)
	res, text, _ := call(t, cs, &mcp.CallToolParams{Name: "acquire", Arguments: map[string]any{"paths": []string{"src/b.go"}}})
	require.False(t, res.IsError, "nobody changed b.go: %s", text)
	res, text, _ = call(t, cs, &mcp.CallToolParams{Name: "acquire", Arguments: map[string]any{"paths": []string{"src/a.go"}}})
	require.True(t, res.IsError, "the acquisition of a stale file went through: %s", text)
	assert.Contains(t, text, a+" changed since claude-1 read it, by session codex-2")
	assert.Contains(t, text, "reserved for you")
	assert.Contains(t, text, "read it again, then redo your change on the current content")
	assert.Equal(t, "claude-1", owner(t, a), "the file is reserved for the refused session")
	data, err := os.ReadFile(a)
	require.NoError(t, err)
	assert.Equal(t, "C0\nC1\n", string(data))

	ws, err := x.Workspace(t.Context())
	require.NoError(t, err)
	entries, err := ws.Audit().Tail(50)
	require.NoError(t, err)
	var refusals []string
	for _, e := range entries {
		if e.Action == "stale write" {
			refusals = append(refusals, e.Path+" "+e.SessionID+" "+e.PreviousOwner)
		}
	}
	assert.Equal(t, []string{a + " claude-1 codex-2"}, refusals, "the refusal is in the audit log")

	_, err = x.Read(t.Context(), session.ReadRequest{Paths: []string{a}})
	require.NoError(t, err)
	res, text, _ = call(t, cs, &mcp.CallToolParams{Name: "acquire", Arguments: map[string]any{"paths": []string{"src/a.go"}}})
	require.False(t, res.IsError, "after a read again: %s", text)
}
