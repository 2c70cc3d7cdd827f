package hooks

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/integrations"
	"github.com/agentlock/agentlock/integrations/claude"
	"github.com/agentlock/agentlock/internal/sys/agentproc"
	"github.com/agentlock/agentlock/internal/sys/procs"
	"github.com/agentlock/agentlock/internal/testkit/proctest"
	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/session"
	"github.com/agentlock/agentlock/store/filestore"
	"github.com/agentlock/agentlock/workspace"
)

func TestSessionPrecedence(t *testing.T) {
	agent := claude.Agent()
	payload := integrations.HookInput{SessionID: "p"}
	root := project(t)
	recorded := func(kind string) func(string) session.Recorded {
		return func(string) session.Recorded {
			r := &session.Process{Session: kind + "-1", Wrapper: kind == agentproc.KindWrapper}
			if kind == agentproc.KindWrapper {
				return session.Recorded{Agent: r, Wrapper: r}
			}
			return session.Recorded{Agent: r}
		}
	}
	sessionOf := func(req Request, in integrations.HookInput) string {
		return session.New(session.Config{WorkDir: root, Identity: identityInputs(req, in)}).Identity(t.Context()).ID
	}
	for _, tc := range []struct {
		name string
		req  Request
		in   integrations.HookInput
		want string
	}{
		{"explicit wins", Request{Agent: agent, Session: "s", HarnessSession: "h", Fallback: "f"}, payload, "s"},
		{"then the harness variable", Request{Agent: agent, HarnessSession: "h", Fallback: "f"}, payload, "claude-h"},
		{"then the payload", Request{Agent: agent, Fallback: "f"}, payload, "claude-p"},
		{"then the fallback", Request{Agent: agent, Fallback: "f"}, integrations.HookInput{}, "f"},
		{"a wrapper wins over the harness", Request{Agent: agent, HarnessSession: "h", Lookup: recorded(agentproc.KindWrapper)}, payload, "wrapper-1"},
		{"explicit wins over a wrapper", Request{Agent: agent, Session: "s", Lookup: recorded(agentproc.KindWrapper)}, payload, "s"},
		{"the payload wins over a recorded agent", Request{Agent: agent, Lookup: recorded(agentproc.KindHook)}, payload, "claude-p"},
		{"then the recorded agent", Request{Agent: agent, Lookup: recorded(agentproc.KindHook)}, integrations.HookInput{}, "hook-1"},
		{"nothing known", Request{Agent: agent, Lookup: func(string) session.Recorded { return session.Recorded{} }}, integrations.HookInput{}, ""},
	} {
		assert.Equal(t, tc.want, sessionOf(tc.req, tc.in), tc.name)
	}
}

// project returns a project set up for agentlock.
func project(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.Mkdir(filepath.Join(root, ".git"), 0o755))
	ws, err := workspace.Open(t.Context(), root, workspace.Settings{})
	require.NoError(t, err)
	require.NoError(t, ws.Setup(t.Context()))
	return root
}

func preEdit(root, session, file string) Result {
	payload := `{"cwd":"` + root + `","session_id":"` + session + `","tool_name":"Edit","tool_input":{"file_path":"` + file + `"}}`
	return Run(context.Background(), Request{Agent: claude.Agent(), Event: PreEdit, Payload: strings.NewReader(payload)})
}

func TestPreEditDeniesTheFileOfAnotherSession(t *testing.T) {
	root := project(t)
	file := filepath.Join(root, "a.go")
	first := preEdit(root, "one", file)
	assert.Empty(t, first.Deny)
	assert.Empty(t, first.Warnings)
	second := preEdit(root, "two", file)
	assert.Contains(t, second.Deny, "is locked by session claude-one")
	again := preEdit(root, "one", file)
	assert.Empty(t, again.Deny, "the holder may edit again")
}

func TestHooksStayQuietOutsideAnAgentlockProject(t *testing.T) {
	plain, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	res := preEdit(plain, "one", filepath.Join(plain, "a.go"))
	assert.Equal(t, Result{}, res)
	_, err = os.Stat(filepath.Join(plain, workspace.HomeDirName))
	assert.True(t, os.IsNotExist(err), "nothing is created")
}

func TestBrokenPayloadIsAWarningNotADenial(t *testing.T) {
	res := Run(t.Context(), Request{Agent: claude.Agent(), Event: PreEdit, Payload: strings.NewReader("{not json")})
	assert.Empty(t, res.Deny)
	require.Len(t, res.Warnings, 1)
	assert.Contains(t, res.Warnings[0], "not JSON")
}

// A pre-edit hook in a project that keeps its own home, while agent-registry
// 0.2's default home holds a live lock on the file, lets the edit run and
// warns once.
func TestPreEditWarnsOfALockIn02sHome(t *testing.T) {
	root := project(t)
	user := filepath.Join(root, "user")
	legacyLocks := filepath.Join(user, workspace.LegacyHomeDir, "locks")
	require.NoError(t, os.MkdirAll(legacyLocks, 0o700))
	file := filepath.Join(root, "a.go")
	rec := "claude 1|" + strconv.FormatInt(time.Now().Unix(), 10) + "|" + file
	require.NoError(t, os.WriteFile(filepath.Join(legacyLocks, filestore.LockFileName(file)), []byte(rec), 0o644))
	payload := `{"cwd":"` + root + `","session_id":"one","tool_name":"Edit","tool_input":{"file_path":"` + file + `"}}`
	res := Run(t.Context(), Request{Agent: claude.Agent(), Event: PreEdit, Payload: strings.NewReader(payload),
		Settings: workspace.Settings{UserHome: user}})
	assert.Empty(t, res.Deny, "0.2's lock is not agentlock's to enforce here")
	require.Len(t, res.Warnings, 1)
	assert.Contains(t, res.Warnings[0], "agent-registry 0.2's home "+filepath.Join(user, workspace.LegacyHomeDir))
	assert.Contains(t, res.Warnings[0], file+" (held by claude 1)")
}

func TestSessionStartRecordsTheNearestNonShellAncestor(t *testing.T) {
	root := project(t)
	child := exec.Command("sleep", "30")
	require.NoError(t, child.Start())
	t.Cleanup(func() { child.Process.Kill(); child.Wait() })
	harness, err := procs.Get(child.Process.Pid)
	if err != nil {
		proctest.Unavailable(t, "processes cannot be read here: %v", err)
	}
	chain := []procs.Process{{PID: 99999998, Name: "agentlock"}, {PID: 99999997, Name: "sh"}, harness, {PID: 1, Name: "init"}}
	start := func(chain []procs.Process) Result {
		payload := `{"cwd":"` + root + `","session_id":"s1","hook_event_name":"SessionStart"}`
		return Run(t.Context(), Request{Agent: claude.Agent(), Event: SessionStart, Payload: strings.NewReader(payload),
			Ancestry: func() ([]procs.Process, error) { return chain, nil }})
	}
	res := start(chain)
	assert.Empty(t, res.Warnings)
	dir := agentproc.Dir(filepath.Join(root, workspace.HomeDirName))
	r, ok, err := agentproc.Read(dir, harness.ID())
	require.NoError(t, err)
	require.True(t, ok, "the harness process is recorded")
	assert.Equal(t, "claude-s1", r.Session)
	assert.Equal(t, "claude", r.Agent)
	assert.Equal(t, agentproc.KindHook, r.Kind)

	// Only shells up to PID 1: nothing to record, and the hook says so.
	res = start([]procs.Process{{PID: 99999998, Name: "agentlock"}, {PID: 99999997, Name: "bash"}, {PID: 1, Name: "init"}})
	require.Len(t, res.Warnings, 1)
	assert.Contains(t, res.Warnings[0], "no agent process above this hook")
}

func TestCheckEvent(t *testing.T) {
	for _, e := range integrations.HookEvents() {
		assert.NoError(t, CheckEvent(e), e)
	}
	err := CheckEvent("pre-edti")
	assert.Equal(t, report.ExitUsage, report.ExitCode(err))
	assert.EqualError(t, err, `unknown hook event "pre-edti" (known: pre-edit, session-start, renew, turn-end, session-end)`)
}

// A pre-edit hook is one command: it opens the workspace once — for the
// payload's cwd, the acquisition of the file and the mirror of its path
// into the registered session's do_not_touch — and resolves its
// session once, looking up the agent records once.
func TestPreEditOpensTheWorkspaceOnceAndResolvesTheSessionOnce(t *testing.T) {
	root := project(t)
	ws, err := workspace.Open(t.Context(), root, workspace.Settings{})
	require.NoError(t, err)
	_, err = ws.StartSession(t.Context(), core.Session{SessionID: "claude-h", WorkingOn: "x"}, workspace.SessionStart{})
	require.NoError(t, err)
	cache := workspace.NewCache()
	lookups := 0
	payload := `{"cwd":"` + root + `","session_id":"p","tool_name":"MultiEdit","tool_input":{"file_path":"` + filepath.Join(root, "a.go") + `"}}`
	res := Run(t.Context(), Request{Agent: claude.Agent(), Event: PreEdit, Payload: strings.NewReader(payload),
		Settings: workspace.Settings{Cache: cache}, HarnessSession: "h",
		Lookup: func(string) session.Recorded { lookups++; return session.Recorded{} }})
	require.Empty(t, res.Deny)
	require.Empty(t, res.Warnings)
	doc, err := ws.Registry().Load(t.Context())
	require.NoError(t, err)
	s, ok := doc.Find("claude-h")
	require.True(t, ok)
	assert.Equal(t, []string{filepath.Join(root, "a.go")}, s.DoNotTouch, "the lock is mirrored")
	assert.Len(t, cache.Opened(), 1, "the workspace is opened once")
	assert.Equal(t, 1, lookups, "the session is resolved once")
}
