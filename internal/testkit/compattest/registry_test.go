package compattest_test

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// sessionKeys are agent-registry 0.2's keys of a session, in its order.
var sessionKeys = []string{"session_id", "provider", "ai_version", "started_at", "working_on", "todo",
	"space", "do_not_touch", "status", "issues", "handoff"}

// assertSameSession checks that agentlock (show --json) and 0.2 (its own
// reader) see the same value, of the same type, in every field of 0.2's
// schema.
func assertSameSession(t *testing.T, s *sandbox, id string) map[string]any {
	t.Helper()
	goSide := s.show()[id]
	require.NotNil(t, goSide, "agentlock sees %q", id)
	pySide, _ := s.dump().session(t, id)
	for _, k := range sessionKeys {
		want := pySide[k]
		if k == "todo" { // 0.2's todo may hold keys of its own; agentlock's JSON shows 0.2's three
			todo := map[string]any{}
			for tk, v := range want.(map[string]any) {
				if tk == "past" || tk == "present" || tk == "future" {
					todo[tk] = v
				}
			}
			want = todo
		}
		assert.Equal(t, want, goSide[k], "%s: %s as 0.2 and as agentlock read it", id, k)
	}
	return pySide
}

// assert02Schema checks what 0.2's reader sees after a write: 0.2's keys
// first, in 0.2's order, with 0.2's types.
func assert02Schema(t *testing.T, fm frontmatter) {
	t.Helper()
	assert.Equal(t, []string{"version", "last_updated", "agents"}, fm.Order.Top[:3])
	agents := fm.Frontmatter["agents"].([]any)
	for i, a := range agents {
		m, ok := a.(map[string]any)
		if !ok {
			continue
		}
		require.GreaterOrEqual(t, len(fm.Order.Agents[i]), len(sessionKeys))
		assert.Equal(t, sessionKeys, fm.Order.Agents[i][:len(sessionKeys)], "session %v: 0.2's keys in 0.2's order", m["session_id"])
		assert.Equal(t, []string{"past", "present", "future"}, fm.Order.Todo[i][:3])
		for _, k := range []string{"session_id", "provider", "ai_version", "started_at", "working_on", "status", "issues", "handoff"} {
			assert.IsType(t, "", m[k], "%v: %s is a string", m["session_id"], k)
		}
		for _, k := range []string{"space", "do_not_touch"} {
			assert.IsType(t, []any{}, m[k], "%v: %s is a list", m["session_id"], k)
		}
	}
}

// A registry that 0.2 wrote — a session with 0.2's id rules, its types and
// its defaults, and its locks — is read, updated and finished by agentlock,
// and every field reads the same on both sides after each step.
func TestRegistryOf02ReadUpdatedAndFinishedByAgentlock(t *testing.T) {
	needPython(t)
	s := newSandbox(t)
	s.sharedByEnv()
	id := "claude 1" // 0.2 takes any argument as an id
	requireExit(t, 0, s.py("register", id, "anthropic", "4.5", "refactor: auth", "src/auth,tests", "split login(),write tests"))
	requireExit(t, 0, s.py("set", id, `{"issues": "flaky | test", "do_not_touch": ["`+s.project+`/src/a.py"]}`))
	requireExit(t, 0, s.py("handoff", id, "notes #1.md"))
	requireExit(t, 0, s.py("acquire", "src/a.py", id))
	requireExit(t, 0, s.py("acquire", "src/b.py", id))

	py := assertSameSession(t, s, id)
	assert.Equal(t, "notes #1.md", py["handoff"])
	assert.Equal(t, "flaky | test", py["issues"])
	assert.Equal(t, []any{}, py["todo"].(map[string]any)["past"], "0.2 writes [], not null")
	assert.Regexp(t, `^\d{4}-\d\d-\d\d \d\d:\d\d$`, py["started_at"], "0.2's own time format")

	// agentlock updates it.
	requireExit(t, 0, s.al("update", id, "--working-on", "now: tests", "--todo-past", "split login()", "--todo-present", "write tests",
		"--todo-future", "docs", "--issues", "none left", "--space", "src/auth"))
	requireExit(t, 0, s.al("handoff", id, "notes #2.md"))
	requireExit(t, 0, s.al("heartbeat", "src/a.py", id), "renews a lock 0.2 took, with 0.2's id")
	requireExit(t, 0, s.al("release", "src/b.py", id))
	requireExit(t, 2, s.al("acquire", "src/c.py", id), "a new lock keeps the strict id rule")
	py = assertSameSession(t, s, id)
	assert.Equal(t, "now: tests", py["working_on"])
	assert.Equal(t, map[string]any{"past": []any{"split login()"}, "present": []any{"write tests"}, "future": []any{"docs"}}, py["todo"])
	assert.Equal(t, "none left", py["issues"])
	assert.Equal(t, "notes #2.md", py["handoff"], "handoff replaces, as in 0.2")
	assert02Schema(t, s.dump())

	// 0.2 goes on with it, and agentlock reads that.
	requireExit(t, 0, s.py("update", id, "back in 0.2"))
	assertSameSession(t, s, id)

	// agentlock finishes it: Finished, do_not_touch empty, its locks free.
	r := s.al("finish", "--json", id)
	requireExit(t, 0, r)
	assert.Equal(t, []any{s.project + "/src/a.py"}, oneJSON(t, r)["released_paths"])
	py = assertSameSession(t, s, id)
	assert.Equal(t, "Finished", py["status"])
	assert.Equal(t, []any{}, py["do_not_touch"])
	check := s.py("check", "src/a.py")
	requireExit(t, 0, check)
	assert.Equal(t, false, oneJSON(t, check)["locked"])
	assert02Schema(t, s.dump())
}

// A registry that agentlock wrote is read, updated and finished by 0.2 the
// same way.
func TestRegistryOfAgentlockReadUpdatedAndFinishedBy02(t *testing.T) {
	needPython(t)
	s := newSandbox(t)
	s.sharedByEnv()
	id := "codex-7"
	requireExit(t, 0, s.al("register", id, "openai", "gpt-5-codex", "fix: CI", "src,tests", "one,two"))
	requireExit(t, 0, s.al("acquire", "src/a.py", id))
	requireExit(t, 0, s.al("update", id, "--issues", "slow tests", "--todo-future", "later"))
	requireExit(t, 0, s.al("handoff", id, "handoff.md"))
	py := assertSameSession(t, s, id)
	assert.Equal(t, []any{s.project + "/src/a.py"}, py["do_not_touch"], "acquire lists the path for 0.2's readers too")
	assert.Equal(t, "slow tests", py["issues"])
	assert.Equal(t, "handoff.md", py["handoff"])
	assert02Schema(t, s.dump())

	// 0.2 updates it through its CLI and its API.
	requireExit(t, 0, s.py("update", id, "0.2 took over"))
	requireExit(t, 0, s.py("set", id, `{"todo": {"past": ["one"], "present": ["two"]}, "status": "Paused"}`))
	requireExit(t, 0, s.py("handoff", id, "next.md"))
	goSide := s.show()[id]
	assert.Equal(t, "0.2 took over", goSide["working_on"])
	assert.Equal(t, "Paused", goSide["status"])
	assert.Equal(t, "next.md", goSide["handoff"])
	assertSameSession(t, s, id)

	// 0.2 finishes it: its do_not_touch locks are released for agentlock.
	requireExit(t, 0, s.py("finish", id))
	goSide = assertSameSession(t, s, id)
	assert.Equal(t, "Finished", goSide["status"])
	r := s.al("check", "--json", "src/a.py")
	requireExit(t, 0, r)
	assert.Equal(t, "free", oneJSON(t, r)["state"])
}

// Keys agentlock does not know — put there by 0.2's API the way 0.3
// records pid and cmdline — survive 100 writes that alternate between the
// two implementations, with their values, types and order.
func TestUnknownKeysSurviveMixedWrites(t *testing.T) {
	needPython(t)
	t.Parallel() // the long tests overlap: each waits on locks and processes much of its time
	s := newSandbox(t)
	s.sharedByEnv()
	requireExit(t, 0, s.py("register", "py-1", "moonshot", "k2", "start"))
	requireExit(t, 0, s.al("register", "go-1", "google", "gemini", "start"))
	unknown := map[string]any{
		"pid":     float64(4242),
		"cmdline": []any{"python", "registry_manager.py", "register"},
		"host":    map[string]any{"name": "box", "cores": float64(2), "tags": []any{"a", "yes", "null"}},
		"note":    "line one\n\n  indented: line three\n",
		"active":  true,
		"nothing": nil,
		"quoted":  "on",
		"unicode": "ü 😀",
	}
	for _, id := range []string{"py-1", "go-1"} {
		fields, err := json.Marshal(unknown)
		require.NoError(t, err)
		requireExit(t, 0, s.py("set", id, string(fields)))
		requireExit(t, 0, s.py("set", id, `{"todo": {"blocked": ["on review", {"by": "go-1"}]}}`))
	}
	before := s.dump()

	writes := 100
	if testing.Short() {
		writes = 40
	}
	for i := range writes {
		id := []string{"py-1", "go-1"}[i%4/2] // each session is written by both sides
		var r result
		switch i % 5 {
		case 0:
			r = s.al("update", id, fmt.Sprintf("step %d", i), "--todo-present", fmt.Sprintf("task %d", i))
		case 1:
			r = s.py("update", id, fmt.Sprintf("step %d", i))
		case 2:
			r = s.al("acquire", "--session", id, fmt.Sprintf("src/f%d.go", i))
		case 3:
			r = s.py("handoff", id, fmt.Sprintf("notes-%d.md", i))
		case 4:
			r = s.al("handoff", id, fmt.Sprintf("notes-%d.md", i))
		}
		requireExit(t, 0, r)
	}

	after := s.dump()
	for _, id := range []string{"py-1", "go-1"} {
		got, i := after.session(t, id)
		for k, v := range unknown {
			assert.Equal(t, v, got[k], "%s: %s after %d mixed writes", id, k, writes)
		}
		want, _ := before.session(t, id)
		assert.Equal(t, want["todo"].(map[string]any)["blocked"], got["todo"].(map[string]any)["blocked"])
		_, j := before.session(t, id)
		assert.Equal(t, before.Order.Agents[j], after.Order.Agents[i], "%s: the keys in the same order", id)
		assertSameSession(t, s, id)
	}
	assert02Schema(t, after)
}

// Top-level keys and the version as found survive agentlock's writes. (0.2
// itself rebuilds the top level on every write: it keeps neither.)
func TestTopLevelKeysAndVersionSurviveAgentlockWrites(t *testing.T) {
	s := newSandbox(t)
	registry, _ := s.sharedByEnv()
	require.NoError(t, os.MkdirAll(strings.TrimSuffix(registry, "/registry.md"), 0o755))
	front := "\ufeff---\r\nversion: 1.0\r\nproject: {name: demo, owners: [ana, bo]}\r\nagents: []\r\nlast_updated: ''\r\n---\r\n"
	require.NoError(t, os.WriteFile(registry, []byte(front), 0o644))
	for i := range 20 {
		requireExit(t, 0, s.al("register", fmt.Sprintf("go-%d", i), "p", "v", "w"))
		requireExit(t, 0, s.al("update", fmt.Sprintf("go-%d", i), "x"))
	}
	data, err := os.ReadFile(registry)
	require.NoError(t, err)
	text := string(data)
	assert.True(t, strings.HasPrefix(text, "---\nversion: 1.0\n"), "version kept as found, a number:\n%s", text)
	assert.Contains(t, text, "\nproject: {name: demo, owners: [ana, bo]}\n")
	assert.Len(t, s.show(), 20)
}

// 8 agentlock and 8 agent-registry 0.2 processes register and update at
// the same instant — each side registering new sessions and changing two
// fields of the same sessions the other side registered — and every one of
// them succeeds, and nothing is lost.
func TestMixedRegisterAndUpdateRace(t *testing.T) {
	needPython(t)
	t.Parallel() // the long tests overlap: each waits on locks and processes much of its time
	s := newSandbox(t)
	registry, _ := s.sharedByEnv()
	// Sessions of each side that the other updates, written once and put
	// back before every round.
	requireExit(t, 0, s.py("batch", `[["register", "py-old-0", "moonshot", "k2", "before"], ["register", "py-old-1", "moonshot", "k2", "before"]]`))
	for i := range 2 {
		requireExit(t, 0, s.al("register", fmt.Sprintf("go-old-%d", i), "openai", "gpt", "before"))
	}
	seeded, err := os.ReadFile(registry)
	require.NoError(t, err)

	n, py := rounds(20), s.pyStart()
	for round := range n {
		require.NoError(t, os.WriteFile(registry, seeded, 0o644))
		var cmds []proctest.Cmd
		delay := sweep(round, n, py)
		for i := range 4 {
			cmds = append(cmds,
				s.raceCmd(false, delay, "register", fmt.Sprintf("go-new-%d", i), "openai", "gpt", "new", "src/go", "t1,t2"),
				s.raceCmd(true, 0, "register", fmt.Sprintf("py-new-%d", i), "moonshot", "k2", "new", "src/py", "t1,t2"))
		}
		for i := range 2 {
			cmds = append(cmds,
				s.raceCmd(false, delay, "update", fmt.Sprintf("py-old-%d", i), "working on, by agentlock"),
				s.raceCmd(false, delay, "update", fmt.Sprintf("py-old-%d", i), "--issues", "issues, by agentlock"),
				s.raceCmd(true, 0, "update", fmt.Sprintf("go-old-%d", i), "working on, by 0.2"),
				s.raceCmd(true, 0, "set", fmt.Sprintf("go-old-%d", i), `{"issues": "issues, by 0.2"}`))
		}
		for _, r := range s.race(cmds) {
			require.Equal(t, 0, r.code, "round %d: refused: %s", round, r)
		}

		got := s.show()
		require.Len(t, got, 12, "round %d: sessions lost", round)
		for i := range 2 {
			for id, by := range map[string]string{fmt.Sprintf("py-old-%d", i): "agentlock", fmt.Sprintf("go-old-%d", i): "0.2"} {
				assert.Equal(t, "working on, by "+by, got[id]["working_on"], "round %d: %s", round, id)
				assert.Equal(t, "issues, by "+by, got[id]["issues"], "round %d: %s", round, id)
			}
		}
		for i := range 4 {
			for _, id := range []string{fmt.Sprintf("go-new-%d", i), fmt.Sprintf("py-new-%d", i)} {
				require.Contains(t, got, id, "round %d", round)
				assert.Equal(t, "new", got[id]["working_on"], "round %d: %s", round, id)
				assert.Equal(t, []any{"t1", "t2"}, got[id]["todo"].(map[string]any)["present"], "round %d: %s", round, id)
			}
		}
		if round == n-1 {
			assert.Len(t, s.dump().Frontmatter["agents"], 12, "round %d: 0.2 reads all of them", round)
		}
	}
	t.Logf("%d rounds of 8 agentlock + 8 agent-registry 0.2 writers, agentlock started 0 to %s later: nothing lost, nothing refused",
		n, sweep(n-1, n, py).Round(time.Millisecond))
}

// A sub-agent's session (issue 35), registered by agentlock under its
// parent with the key parent, is read by 0.2 with every field of 0.2's
// schema in 0.2's order; the key survives 0.2's writes, and agentlock
// still nests it under its parent after them.
func TestSubAgentSessionReadAndWrittenBy02(t *testing.T) {
	needPython(t)
	s := newSandbox(t)
	s.sharedByEnv()
	parent, child := "claude-p1", "claude-p1/a7f3"
	requireExit(t, 0, s.al("register", parent, "anthropic", "opus", "lead"))
	start := proctest.Run(t, harness.Bin, proctest.Cmd{Args: []string{"hook", "claude", "session-start"}, Env: s.environ(), Dir: s.project,
		Stdin: `{"session_id":"p1","agent_id":"a7f3","agent_type":"general-purpose","hook_event_name":"SubagentStart","cwd":"` + s.project + `"}`})
	require.Equal(t, 0, start.Code, "%v", start)
	requireExit(t, 0, s.al("acquire", "--session", child, "src/a.py"))
	py := assertSameSession(t, s, child)
	assert.Equal(t, parent, py["parent"], "0.2 reads the key as one it does not know")
	assert02Schema(t, s.dump())

	requireExit(t, 0, s.py("update", child, "0.2 wrote this"))
	requireExit(t, 0, s.py("set", parent, `{"issues": "none"}`))
	got, _ := s.dump().session(t, child)
	assert.Equal(t, parent, got["parent"], "0.2's writes keep it")
	goSide := s.show()[child]
	assert.Equal(t, parent, goSide["parent"])
	assert.Equal(t, "0.2 wrote this", goSide["working_on"])
	assertSameSession(t, s, child)
}
