package main_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// claudeHook is the payload of Claude Code's PreToolUse for a Write of
// rel in c's checkout by session id, or of another event of that session
// when tool is empty.
func (c *conformance) claudeHook(event, id, tool, rel string) string {
	c.t.Helper()
	payload := map[string]any{"session_id": id, "cwd": c.dir, "hook_event_name": event}
	if tool != "" {
		payload["tool_name"] = tool
		payload["tool_input"] = map[string]any{"file_path": filepath.Join(c.dir, rel), "content": "x\n"}
	}
	data, err := json.Marshal(payload)
	require.NoError(c.t, err)
	return string(data)
}

// hook runs `agentlock hook claude <run>` with payload on stdin, and env
// added to the checkout's.
func (c *conformance) hook(run, payload string, env ...string) proctest.Result {
	c.t.Helper()
	cmd := c.cmd("hook", "claude", run)
	cmd.Stdin = payload
	cmd.Env = append(append([]string(nil), cmd.Env...), env...)
	return harness(c.t).Run(c.t, cmd)
}

// holder is the session that holds rel, as check --json says ("" when
// none does).
func (c *conformance) holder(rel string) string {
	c.t.Helper()
	r := c.run("check", rel, "--session", "observer", "--json")
	rec := oneJSON(c.t, r)
	if rec["state"] != "locked" {
		return ""
	}
	s, _ := rec["session_id"].(string)
	return s
}

// conformHookLifetime: with hook locks that live as long as the work
// (AGENTLOCK_HOOK_LOCKS=turn), a lock a pre-edit hook took is free for any
// session once unused for the idle bound, while a lock taken on purpose
// stays; a pre-edit hook waits for a lock its idle bound frees within the
// hook's wait, and refuses at once one it frees later. Real time.
func conformHookLifetime(t *testing.T, b backend) {
	if testing.Short() {
		t.Skip("waits for the idle bound in real time")
	}
	c := newConformance(t, b, "30")
	// Every process of the checkout, the same policy.
	c.env = append(c.env, "AGENTLOCK_HOOK_LOCKS=turn", "AGENTLOCK_HOOK_IDLE=1s", "AGENTLOCK_HOOK_WAIT=0")
	pre := func(id, rel string, env ...string) proctest.Result {
		return c.hook("pre-edit", c.claudeHook("PreToolUse", id, "Write", rel), env...)
	}
	allowed := func(r proctest.Result) {
		t.Helper()
		requireExit(t, 0, r)
		assert.NotContains(t, r.Stdout, "deny", "%s", r)
	}
	denied := func(r proctest.Result) {
		t.Helper()
		requireExit(t, 0, r)
		assert.Contains(t, r.Stdout, `"permissionDecision":"deny"`, "%s", r)
	}

	allowed(pre("s1", "src/a.go"))
	requireExit(t, 0, c.run("acquire", "src/b.go", "--session", "claude-s1"))
	time.Sleep(1500 * time.Millisecond) // past a.go's idle bound
	r := c.run("status", "--json")
	require.Contains(t, r.Stdout, `"held_as":"idle"`, "%s", r)
	require.Contains(t, r.Stdout, `"held_as":"explicit"`, "%s", r)
	allowed(pre("s2", "src/a.go"))
	assert.Equal(t, "claude-s2", c.holder("src/a.go"), "an idle hook lock is anyone's to take")
	denied(pre("s2", "src/b.go"))
	assert.Equal(t, "claude-s1", c.holder("src/b.go"), "a lock taken on purpose stays")

	// The holder's own renewals do not keep a hook lock in use.
	allowed(pre("s1", "src/c.go"))
	for range 3 {
		time.Sleep(600 * time.Millisecond)
		requireExit(t, 0, c.hook("renew", c.claudeHook("PostToolUse", "s1", "Read", "src/x.go")))
	}
	assert.Empty(t, c.holder("src/c.go"), "renewals are no use of the file")
	assert.Equal(t, "claude-s1", c.holder("src/b.go"), "renewals keep the lock taken on purpose")

	// Waited for when its idle bound frees it within the hook's wait;
	// refused at once when later.
	allowed(pre("s1", "src/d.go", "AGENTLOCK_HOOK_IDLE=3s"))
	allowed(pre("s2", "src/d.go", "AGENTLOCK_HOOK_IDLE=3s", "AGENTLOCK_HOOK_WAIT=10s"))
	assert.Equal(t, "claude-s2", c.holder("src/d.go"))
	denied(pre("s1", "src/d.go", "AGENTLOCK_HOOK_IDLE=1h", "AGENTLOCK_HOOK_WAIT=10s"))
	assert.Equal(t, "claude-s2", c.holder("src/d.go"))
}

// turnEnd runs a's harness's turn-end hook (Claude Code's Stop).
func (a claudeAgent) turnEnd() {
	a.t.Helper()
	payload := fmt.Sprintf(`{"session_id":%q,"cwd":%q,"hook_event_name":"Stop","stop_hook_active":false,"last_assistant_message":"done"}`, a.id, a.p.dir)
	r := harness(a.t).Run(a.t, proctest.Cmd{Args: []string{"hook", "claude", "turn-end"}, Env: a.p.env, Dir: a.p.dir, Stdin: payload})
	requireExit(a.t, 0, r)
	require.Empty(a.t, r.Stdout, "the turn-end hook says nothing to the model")
}

// A hook's lock freed early — at its holder's turn end, or once unused for
// the idle bound — frees no stale write: X read the file, Y changed it
// under its hook's lock, and once that lock is free X's write from its
// old read is refused by the read-version check, naming Y; a lock Y took
// on purpose stays through its turn's end.
func TestHookLockFreedEarlyStaleWriteRefused(t *testing.T) {
	for _, freed := range []string{"turn end", "idle bound"} {
		t.Run(freed, func(t *testing.T) {
			p := hookProject(t)
			if freed == "idle bound" {
				if testing.Short() {
					t.Skip("waits for the idle bound in real time")
				}
				p.env = append(p.env, "AGENTLOCK_HOOK_IDLE=1s")
			}
			p.write("src/auth.py", "C0\n")
			x, y := claudeAgent{t: t, p: p, id: "x"}, claudeAgent{t: t, p: p, id: "y"}
			base := x.read("src/auth.py")
			require.Empty(t, y.write("src/auth.py", y.read("src/auth.py")+"C1\n"))
			requireExit(t, 0, p.run("acquire", "src/b.go", "--session", y.session()))
			require.Equal(t, y.session(), p.owner("src/auth.py"))

			switch freed {
			case "turn end":
				y.turnEnd()
				assert.Empty(t, p.owner("src/auth.py"), "Y's turn ended: its hook's lock is free")
			default:
				deadline := time.Now().Add(30 * time.Second)
				for {
					rec := jsonLines(t, p.run("check", "src/auth.py", "--json", "--session", "probe"))[0]
					if rec["state"] == "stale" {
						break
					}
					require.True(t, time.Now().Before(deadline), "Y's hook lock never went idle: %v", rec)
					time.Sleep(200 * time.Millisecond)
				}
			}
			assert.Equal(t, y.session(), p.owner("src/b.go"), "the lock Y took on purpose stays")

			reason := x.write("src/auth.py", base+"X\n")
			require.NotEmpty(t, reason, "the stale write went through")
			assert.Contains(t, reason, "changed since you ("+x.session()+") read it")
			assert.Contains(t, reason, "session "+y.session(), "who changed it")
			assert.Equal(t, "C0\nC1\n", p.read("src/auth.py"), "Y's change is intact")
			// X does what it is told: its write after a read again keeps Y's.
			require.Empty(t, x.write("src/auth.py", x.read("src/auth.py")+"X\n"))
			assert.Equal(t, "C0\nC1\nX\n", p.read("src/auth.py"))
		})
	}
}
