package main_test

// agentlock mcp at the protocol level (issue 28): each server is a real
// agentlock mcp process driven over stdio by the official SDK's client,
// as an agent CLI drives it.

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// mcpServer is one agentlock mcp process and the client session on it.
type mcpServer struct {
	t        *testing.T
	cs       *mcp.ClientSession
	progress atomic.Int32 // progress notifications received
}

// startMCP starts agentlock mcp in the sandbox's project with the
// sandbox's environment and extra, and initializes it.
func (s *sandbox) startMCP(extra []string, args ...string) *mcpServer {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), proctest.Timeout)
	s.t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, harness(s.t).Bin, append([]string{"mcp"}, args...)...)
	cmd.Dir, cmd.Env, cmd.Stderr = s.project, append(append([]string{}, s.env...), extra...), os.Stderr
	srv := &mcpServer{t: s.t}
	client := mcp.NewClient(&mcp.Implementation{Name: "agentlock-test", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { srv.progress.Add(1) },
	})
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
	require.NoError(s.t, err, "initialize agentlock mcp")
	s.t.Cleanup(func() { cs.Close() })
	srv.cs = cs
	return srv
}

// call calls a tool and returns its result, its text and its records.
func (m *mcpServer) call(name string, args map[string]any) (*mcp.CallToolResult, string, []map[string]any) {
	m.t.Helper()
	return m.callParams(&mcp.CallToolParams{Name: name, Arguments: args})
}

func (m *mcpServer) callParams(p *mcp.CallToolParams) (*mcp.CallToolResult, string, []map[string]any) {
	m.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), proctest.Timeout)
	defer cancel()
	res, err := m.cs.CallTool(ctx, p)
	require.NoError(m.t, err, "tools/call %s", p.Name)
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	var sc struct {
		Records []map[string]any `json:"records"`
	}
	if res.StructuredContent == nil {
		// A tool error: its text, then the records as JSON lines.
		require.True(m.t, res.IsError, "%s: a result without structured content", p.Name)
		for _, line := range strings.Split(text.String(), "\n") {
			var rec map[string]any
			if strings.HasPrefix(line, "{") && json.Unmarshal([]byte(line), &rec) == nil {
				sc.Records = append(sc.Records, rec)
			}
		}
		return res, text.String(), sc.Records
	}
	data, err := json.Marshal(res.StructuredContent)
	require.NoError(m.t, err)
	require.NoError(m.t, json.Unmarshal(data, &sc), "structured content of %s: %s", p.Name, data)
	return res, text.String(), sc.Records
}

// ok calls a tool that must succeed.
func (m *mcpServer) ok(name string, args map[string]any) []map[string]any {
	m.t.Helper()
	res, text, recs := m.call(name, args)
	require.False(m.t, res.IsError, "%s %v: %s", name, args, text)
	return recs
}

// refused calls a tool that must fail, and returns its text.
func (m *mcpServer) refused(name string, args map[string]any) string {
	m.t.Helper()
	res, text, _ := m.call(name, args)
	require.True(m.t, res.IsError, "%s %v should be refused: %s", name, args, text)
	return text
}

func TestMCPToolsOverStdio(t *testing.T) {
	s := newSandbox(t)
	require.NoError(t, os.WriteFile(s.path("src/a.go"), []byte("package a\n"), 0o644))
	srv := s.startMCP([]string{"AGENTLOCK_SESSION=claude-mcp"})
	ctx, cancel := context.WithTimeout(context.Background(), proctest.Timeout)
	defer cancel()

	init := srv.cs.InitializeResult()
	require.Equal(t, "agentlock", init.ServerInfo.Name)
	require.Contains(t, init.Instructions, "acquire")

	list, err := srv.cs.ListTools(ctx, nil)
	require.NoError(t, err)
	var names []string
	for _, tl := range list.Tools {
		names = append(names, tl.Name)
		require.NotEmpty(t, tl.Description, tl.Name)
		require.NotNil(t, tl.InputSchema, tl.Name)
	}
	sort.Strings(names)
	require.Equal(t, []string{"acquire", "check", "finish", "handoff", "heartbeat", "register", "release", "release_all", "status", "update", "whoami"}, names)

	who := srv.ok("whoami", nil)
	require.Equal(t, "claude-mcp", who[0]["session_id"])
	require.Equal(t, "AGENTLOCK_SESSION", who[0]["source"])

	reg := srv.ok("register", map[string]any{"working_on": "mcp test", "space": []string{"src"}})
	require.Equal(t, "claude-mcp", reg[0]["session_id"])

	got := srv.ok("acquire", map[string]any{"paths": []string{"src/a.go"}, "areas": []string{"docs"}})
	require.Len(t, got, 2)
	for _, r := range got {
		require.Equal(t, true, r["locked"], "%v", r)
	}
	owner, _ := s.onDisk(s.path("src/a.go"))
	require.Equal(t, "claude-mcp", owner, "the lock is in the store, as a shell acquire leaves it")

	// The same records as the command line's --json.
	cli := jsonLines(t, s.run("check", "--json", "--session", "claude-mcp", s.path("src/a.go")))
	viaMCP := srv.ok("check", map[string]any{"paths": []string{"src/a.go"}})
	for _, recs := range [][]map[string]any{cli, viaMCP} {
		for _, r := range recs {
			delete(r, "age") // times, measured apart
			delete(r, "expires_in")
		}
	}
	require.Equal(t, cli, viaMCP)

	// Calls in flight together on one server each run their command
	// alone (a -race run builds the server with the race detector).
	var wg sync.WaitGroup
	errs := make([]error, 8)
	for i := range errs {
		wg.Go(func() {
			name := []string{"check", "status", "whoami", "heartbeat"}[i%4]
			args := map[string]any{}
			if name == "check" {
				args["paths"] = []string{"src/a.go"}
			}
			res, err := srv.cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
			if err == nil && res.IsError {
				err = fmt.Errorf("%s: %v", name, res.Content)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}

	st := srv.ok("status", nil)
	require.NotEmpty(t, st)
	hb := srv.ok("heartbeat", nil)
	require.Len(t, hb, 2, "heartbeat without paths renews every lock of the session")
	srv.ok("heartbeat", map[string]any{"paths": []string{"src/a.go"}})
	up := srv.ok("update", map[string]any{"todo_present": []string{"write tests"}})
	require.Equal(t, "claude-mcp", up[0]["session_id"])
	require.Contains(t, srv.refused("update", nil), "at least one field")
	require.NoError(t, os.WriteFile(s.path("handoff.md"), []byte("notes\n"), 0o644))
	srv.ok("handoff", map[string]any{"notes": "handoff.md"})

	res, err := srv.cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: "agentlock://registry"})
	require.NoError(t, err)
	require.Contains(t, res.Contents[0].Text, `"claude-mcp"`)
	require.Contains(t, res.Contents[0].Text, "write tests")

	rel := srv.ok("release", map[string]any{"paths": []string{"src/a.go"}})
	require.Equal(t, true, rel[0]["released"], "%v", rel)
	owner, _ = s.onDisk(s.path("src/a.go"))
	require.Empty(t, owner)
	srv.ok("release_all", nil)
	require.Equal(t, "free", oneJSON(t, s.run("check", "--json", "--session", "x", s.path("docs")+"/"))["state"])

	srv.ok("acquire", map[string]any{"paths": []string{"src/a.go"}})
	srv.ok("finish", nil)
	owner, _ = s.onDisk(s.path("src/a.go"))
	require.Empty(t, owner, "finish releases the session's locks")

	// Input the model got wrong: a tool error, nothing changed.
	require.Contains(t, srv.refused("acquire", map[string]any{}), "at least one path")
	require.Contains(t, srv.refused("acquire", map[string]any{"paths": []string{"src/a.go"}, "session": "codex-9"}),
		"this server acts for session claude-mcp")
	owner, _ = s.onDisk(s.path("src/a.go"))
	require.Empty(t, owner)
}

func TestMCPRefusalNamesTheHolder(t *testing.T) {
	s := newSandbox(t)
	require.Zero(t, s.run("acquire", "--session", "codex-holder", s.path("src/a.go")).Code)
	srv := s.startMCP([]string{"AGENTLOCK_SESSION=claude-mcp"})

	text := srv.refused("acquire", map[string]any{"paths": []string{"src/a.go", "src/b.go"}})
	require.Contains(t, text, "held by session codex-holder")
	require.Contains(t, text, "do not work around")
	require.Contains(t, text, "wait_seconds")
	_, _, recs := srv.call("acquire", map[string]any{"paths": []string{"src/a.go"}})
	require.Equal(t, "codex-holder", recs[0]["session_id"])
	owner, _ := s.onDisk(s.path("src/b.go"))
	require.Empty(t, owner, "all or none")

	relText := srv.refused("release", map[string]any{"paths": []string{"src/a.go"}})
	require.Contains(t, relText, "codex-holder")
	owner, _ = s.onDisk(s.path("src/a.go"))
	require.Equal(t, "codex-holder", owner)

	// check reports a held path as a result, naming the holder.
	res, ctext, _ := srv.call("check", map[string]any{"paths": []string{"src/a.go"}})
	require.False(t, res.IsError, ctext)
	require.Contains(t, ctext, "locked by codex-holder")
}

func TestMCPWithoutSession(t *testing.T) {
	s := newSandbox(t)
	srv := s.startMCP(nil)
	text := srv.refused("acquire", map[string]any{"paths": []string{"src/a.go"}})
	require.Contains(t, text, "knows no session")
	require.Contains(t, text, "AGENTLOCK_SESSION")
	owner, _ := s.onDisk(s.path("src/a.go"))
	require.Empty(t, owner)

	// With no session of its own, the server takes the model's.
	srv.ok("acquire", map[string]any{"paths": []string{"src/a.go"}, "session": "human-1"})
	owner, _ = s.onDisk(s.path("src/a.go"))
	require.Equal(t, "human-1", owner)

	// --session given to agentlock mcp applies to every call.
	fixed := s.startMCP(nil, "--session", "fixed-1")
	require.Equal(t, "fixed-1", fixed.ok("whoami", nil)[0]["session_id"])
	require.Contains(t, fixed.refused("acquire", map[string]any{"paths": []string{"src/a.go"}}), "human-1")
}

// TestMCPRaceTwoServers races two servers of two sessions for one path,
// their calls released together behind a barrier: exactly one wins each
// round, and the loser is told the winner.
func TestMCPRaceTwoServers(t *testing.T) {
	s := newSandbox(t)
	srvs := []*mcpServer{s.startMCP([]string{"AGENTLOCK_SESSION=claude-a"}), s.startMCP([]string{"AGENTLOCK_SESSION=codex-b"})}
	sessions := []string{"claude-a", "codex-b"}
	for round := range raceRounds() {
		type outcome struct {
			err  bool
			text string
		}
		outs := make([]outcome, 2)
		var ready, done sync.WaitGroup
		gun := make(chan struct{})
		for i, srv := range srvs {
			ready.Add(1)
			done.Add(1)
			go func() {
				defer done.Done()
				ready.Done()
				<-gun
				ctx, cancel := context.WithTimeout(context.Background(), proctest.Timeout)
				defer cancel()
				res, err := srv.cs.CallTool(ctx, &mcp.CallToolParams{Name: "acquire", Arguments: map[string]any{"paths": []string{"src/race.go"}}})
				if err != nil {
					outs[i] = outcome{err: true, text: "protocol error: " + err.Error()}
					return
				}
				text := ""
				for _, c := range res.Content {
					if tc, ok := c.(*mcp.TextContent); ok {
						text += tc.Text
					}
				}
				outs[i] = outcome{err: res.IsError, text: text}
			}()
		}
		ready.Wait()
		close(gun)
		done.Wait()
		winner := -1
		for i, o := range outs {
			require.NotContains(t, o.text, "protocol error", "round %d", round)
			if !o.err {
				require.Equal(t, -1, winner, "round %d: two winners: %v", round, outs)
				winner = i
			}
		}
		require.NotEqual(t, -1, winner, "round %d: nobody won: %v", round, outs)
		loser := 1 - winner
		require.Contains(t, outs[loser].text, "held by session "+sessions[winner], "round %d", round)
		owner, _ := s.onDisk(s.path("src/race.go"))
		require.Equal(t, sessions[winner], owner, "round %d", round)
		srvs[winner].ok("release", map[string]any{"paths": []string{"src/race.go"}})
	}
}

// TestMCPWaitSendsProgress: an acquire that waits sends progress
// notifications naming the holder, and wins once the holder releases.
func TestMCPWaitSendsProgress(t *testing.T) {
	if testing.Short() {
		t.Skip("waits on real time")
	}
	s := newSandbox(t)
	require.Zero(t, s.run("acquire", "--session", "codex-holder", s.path("src/a.go")).Code)
	srv := s.startMCP([]string{"AGENTLOCK_SESSION=claude-mcp"})
	go func() {
		deadline := time.Now().Add(20 * time.Second)
		for srv.progress.Load() == 0 && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
		harness(t).Run(t, s.cmd("release", "--session", "codex-holder", s.path("src/a.go")))
	}()
	p := &mcp.CallToolParams{Name: "acquire", Arguments: map[string]any{"paths": []string{"src/a.go"}, "wait_seconds": 30}}
	p.SetProgressToken("wait-1")
	res, text, _ := srv.callParams(p)
	require.False(t, res.IsError, text)
	require.Positive(t, srv.progress.Load(), "progress while waiting")
	owner, _ := s.onDisk(s.path("src/a.go"))
	require.Equal(t, "claude-mcp", owner)
}

// TestMCPExitsWithItsClient: when the harness closes stdin, the server
// exits (code 0), and nothing renews the locks it took any more.
func TestMCPExitsWithItsClient(t *testing.T) {
	s := newSandbox(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, harness(t).Bin, "mcp")
	cmd.Dir, cmd.Env = s.project, append(append([]string{}, s.env...), "AGENTLOCK_SESSION=claude-mcp")
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"acquire","arguments":{"paths":["src/a.go"]}}}`)
	lines := bufio.NewScanner(stdout)
	answered := false
	for !answered && lines.Scan() {
		answered = strings.Contains(lines.Text(), `"id":2`)
	}
	require.True(t, answered, "the acquire is answered")
	require.NoError(t, stdin.Close())
	require.NoError(t, cmd.Wait(), "the server exits cleanly when stdin closes")
	owner, _ := s.onDisk(s.path("src/a.go"))
	require.Equal(t, "claude-mcp", owner, "the lock outlives the server, until it expires or finish runs")
}

// TestMCPRenewsNothing: a server that stays up does not keep its
// session's locks alive: they expire after the timeout like any other.
func TestMCPRenewsNothing(t *testing.T) {
	if testing.Short() {
		t.Skip("waits on real time")
	}
	s := newSandbox(t)
	srv := s.startMCP([]string{"AGENTLOCK_SESSION=claude-mcp", "AGENTLOCK_TIMEOUT=1"})
	srv.ok("acquire", map[string]any{"paths": []string{"src/a.go"}})
	time.Sleep(1500 * time.Millisecond)
	r := s.run("acquire", "--json", "--timeout", "1", "--session", "codex-next", s.path("src/a.go"))
	requireExit(t, 0, r)
	require.Equal(t, "claude-mcp", oneJSON(t, r)["stale_owner"], "the idle server's lock expired: %s", r)
}

// TestInitRegistersMCP: init writes the MCP entry into the agents'
// project MCP files beside what the user has, --check sees drift, uninit
// restores the user's file byte for byte, --no-mcp leaves it alone.
func TestInitRegistersMCP(t *testing.T) {
	s := newSandbox(t)
	user := "{\n  \"mcpServers\": {\n    \"db\": {\"command\": \"db-mcp\"}\n  }\n}\n"
	require.NoError(t, os.WriteFile(s.path(".mcp.json"), []byte(user), 0o644))

	requireExit(t, 0, s.run("init", "--agent", "claude,codex", "--no-mcp"))
	got, err := os.ReadFile(s.path(".mcp.json"))
	require.NoError(t, err)
	require.Equal(t, user, string(got), "--no-mcp leaves the MCP file alone")
	require.NoFileExists(t, s.path(".codex/config.toml"))
	requireExit(t, 1, s.run("init", "--agent", "claude,codex", "--check"))

	requireExit(t, 0, s.run("init", "--agent", "claude,codex"))
	got, err = os.ReadFile(s.path(".mcp.json"))
	require.NoError(t, err)
	var doc struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	require.NoError(t, json.Unmarshal(got, &doc), "%s", got)
	require.Equal(t, "agentlock", doc.MCPServers["agentlock"].Command)
	require.Equal(t, []string{"mcp"}, doc.MCPServers["agentlock"].Args)
	require.Equal(t, "db-mcp", doc.MCPServers["db"].Command)
	toml, err := os.ReadFile(s.path(".codex/config.toml"))
	require.NoError(t, err)
	require.Contains(t, string(toml), "[mcp_servers.agentlock]\ncommand = \"agentlock\"\nargs = [\"mcp\"]\n")
	requireExit(t, 0, s.run("init", "--agent", "claude,codex", "--check"))

	// Drift: the entry edited by hand.
	require.NoError(t, os.WriteFile(s.path(".mcp.json"), []byte(strings.Replace(string(got), `["mcp"]`, `["mcp", "--timeout", "5"]`, 1)), 0o644))
	r := s.run("init", "--agent", "claude,codex", "--check")
	requireExit(t, 1, r)
	require.Contains(t, r.Stdout+r.Stderr, ".mcp.json")
	requireExit(t, 0, s.run("init", "--agent", "claude,codex"))

	requireExit(t, 0, s.run("uninit"))
	got, err = os.ReadFile(s.path(".mcp.json"))
	require.NoError(t, err)
	require.Equal(t, user, string(got), "uninit restores the user's file byte for byte")
	require.NoFileExists(t, s.path(".codex/config.toml"))
}

// TestMCPCancelledWaitEnds: a client that cancels an acquire waiting in a
// real agentlock mcp process ends the wait (issue 33): the server answers
// the next call, and the lock, once freed, is not taken for the server's
// session — another session takes it. The server used to run the call
// without its context, waiting on for the whole wait_seconds.
func TestMCPCancelledWaitEnds(t *testing.T) {
	s := newSandbox(t)
	file := s.path("src/a.go")
	require.Zero(t, s.run("acquire", "--session", "codex-holder", file).Code)
	srv := s.startMCP([]string{"AGENTLOCK_SESSION=claude-mcp"})

	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := &mcp.CallToolParams{Name: "acquire", Arguments: map[string]any{"paths": []string{"src/a.go"}, "wait_seconds": 600}}
	p.SetProgressToken("wait-1")
	done := make(chan error, 1)
	go func() {
		_, err := srv.cs.CallTool(ctx, p)
		done <- err
	}()
	// Waiting: the server said so in a progress notification.
	deadline := time.Now().Add(proctest.Timeout)
	for srv.progress.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	require.Positive(t, srv.progress.Load(), "the acquire waits")
	cancel()
	require.Error(t, <-done, "the client's call is cancelled")

	// The server answers the next call: the lock is still the holder's.
	_, text, recs := srv.call("check", map[string]any{"paths": []string{"src/a.go"}})
	require.Equal(t, "locked", recs[0]["state"], "%s", text)
	require.Equal(t, "codex-holder", recs[0]["session_id"])

	// Freed, it is not taken for the cancelled call's session: the next
	// taker gets it.
	requireExit(t, 0, s.run("release", "--session", "codex-holder", file))
	requireExit(t, 0, s.run("acquire", "--session", "codex-next", file))
	owner, _ := s.onDisk(file)
	require.Equal(t, "codex-next", owner)
	got := srv.ok("check", map[string]any{"paths": []string{"src/a.go"}})
	require.Equal(t, "codex-next", got[0]["session_id"], "the server answers, and never took the lock")
}
