package session

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/sys/agentproc"
	"github.com/agentlock/agentlock/internal/sys/procs"
	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

func TestResolveOrder(t *testing.T) {
	wrapper := &Process{Session: "w-1", Wrapper: true, PID: 5, Name: "sh"}
	agent := &Process{Session: "a-1", PID: 6, Name: "node"}
	both := func() Recorded { return Recorded{Agent: agent, Wrapper: wrapper} }
	only := func() Recorded { return Recorded{Agent: agent} }
	for _, tc := range []struct {
		name string
		in   Inputs
		look func() Recorded
		want Identity
	}{
		{"flag first", Inputs{Flag: "f", Env: "e"}, both, Identity{ID: "f", Source: SourceFlag}},
		{"then AGENTLOCK_SESSION", Inputs{Env: "e", Harness: "claude-h", HarnessVar: "CLAUDE_CODE_SESSION_ID"}, both, Identity{ID: "e", Source: SourceEnv}},
		{"then a wrapper above", Inputs{Harness: "claude-h", HarnessVar: "CLAUDE_CODE_SESSION_ID"}, both, Identity{ID: "w-1", Source: SourceWrapper, Process: wrapper}},
		{"then the harness variable", Inputs{Harness: "claude-h", HarnessVar: "CLAUDE_CODE_SESSION_ID", Payload: "claude-p"}, only, Identity{ID: "claude-h", Source: "CLAUDE_CODE_SESSION_ID"}},
		{"then the payload", Inputs{Payload: "claude-p"}, only, Identity{ID: "claude-p", Source: SourcePayload}},
		{"then the recorded agent", Inputs{}, only, Identity{ID: "a-1", Source: SourceAgent, Process: agent}},
		{"nothing", Inputs{}, nil, Identity{}},
	} {
		assert.Equal(t, tc.want, resolve(tc.in, tc.look), tc.name)
	}
	assert.Equal(t, "the wrapper script 5 (sh) this runs under", Identity{Source: SourceWrapper, Process: wrapper}.Describe())
}

func TestResolveSubAgent(t *testing.T) {
	wrapper := &Process{Session: "w-1", Wrapper: true, PID: 5, Name: "sh"}
	agent := &Process{Session: "a-1", PID: 6, Name: "node"}
	sub := func(in Inputs) Inputs { in.SubAgent, in.SubAgentSource = "ag7", SourcePayload; return in }
	for _, tc := range []struct {
		name string
		in   Inputs
		look func() Recorded
		want Identity
	}{
		{"under the payload's session", sub(Inputs{Payload: "claude-p", Agent: "claude"}), nil,
			Identity{ID: "claude-p/ag7", Parent: "claude-p", SubAgent: "ag7", SubAgentSource: SourcePayload, Source: SourcePayload, Agent: "claude"}},
		{"under the harness variable", sub(Inputs{Harness: "claude-h", HarnessVar: "CLAUDE_CODE_SESSION_ID", Payload: "claude-p"}), nil,
			Identity{ID: "claude-h/ag7", Parent: "claude-h", SubAgent: "ag7", SubAgentSource: SourcePayload, Source: "CLAUDE_CODE_SESSION_ID"}},
		{"under the wrapper's AGENTLOCK_SESSION", sub(Inputs{Env: "w-1", Payload: "claude-p"}), nil,
			Identity{ID: "w-1/ag7", Parent: "w-1", SubAgent: "ag7", SubAgentSource: SourcePayload, Source: SourceEnv}},
		{"under a wrapper above", sub(Inputs{Payload: "claude-p"}), func() Recorded { return Recorded{Wrapper: wrapper} },
			Identity{ID: "w-1/ag7", Parent: "w-1", SubAgent: "ag7", SubAgentSource: SourcePayload, Source: SourceWrapper, Process: wrapper}},
		{"under the recorded agent (Copilot: no parent id in the payload)", sub(Inputs{}), func() Recorded { return Recorded{Agent: agent} },
			Identity{ID: "a-1/ag7", Parent: "a-1", SubAgent: "ag7", SubAgentSource: SourcePayload, Source: SourceAgent, Process: agent}},
		{"no parent: no session", sub(Inputs{}), nil, Identity{}},
		{"--session names the whole id", sub(Inputs{Flag: "codex-r/t1", Env: "w-1"}), nil, Identity{ID: "codex-r/t1", Source: SourceFlag}},
	} {
		assert.Equal(t, tc.want, resolve(tc.in, tc.look), tc.name)
	}
	id := resolve(sub(Inputs{Payload: "claude-p"}), nil)
	assert.Equal(t, "sub-agent ag7 (from the hook payload) of session claude-p (from the hook payload)", id.Describe())
}

func TestLifeFollowsTheSessionsRecordedAgentProcesses(t *testing.T) {
	root := project(t)
	dir := agentproc.Dir(filepath.Join(root, ".agent-registry"))
	svc := New(Config{WorkDir: root, Identity: Inputs{Lookup: func(string) Recorded { return Recorded{} }}})
	assert.Nil(t, svc.Life(t.Context(), "s-1"), "nothing recorded: nothing to watch")

	p := proctest.Sleeper(t)
	_, err := agentproc.Write(dir, p, "s-1", "claude", agentproc.KindWrapper, time.Now())
	require.NoError(t, err)
	assert.Equal(t, []procs.ID{p.ID()}, svc.watch(t.Context(), Identity{ID: "s-1"}, dir))
	assert.Empty(t, svc.watch(t.Context(), Identity{ID: "s-2"}, dir))
	running := svc.Life(t.Context(), "s-1")
	require.NotNil(t, running)
	assert.True(t, running())
	proc, err := os.FindProcess(p.PID)
	require.NoError(t, err)
	require.NoError(t, proc.Kill())
	assert.Eventually(t, func() bool { return !running() }, 5*time.Second, 10*time.Millisecond, "the agent process is gone (a zombie counts as gone)")
}
