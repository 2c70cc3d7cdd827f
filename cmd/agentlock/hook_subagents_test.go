package main_test

// Sub-agents (issue 35): each is a child session "<session>/<sub-agent
// id>", resolved by the hooks from the payload shapes of the CLIs that say
// which sub-agent fires them (Claude Code's agent_id, Copilot CLI's
// agentId), in real processes.

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// subAgentShape is how one CLI's hooks name a sub-agent, and the child
// session they resolve to.
type subAgentShape struct {
	agent string
	// env is the environment of the session's hooks (the parent's id
	// where the CLI exports it).
	env []string
	// edit is the pre-edit payload of sub-agent sub ("" for the main
	// thread) changing file; start and stop its start and stop payloads.
	edit        func(sub, cwd, file string) string
	start, stop func(sub, cwd string) string
	// parent is the session the sub-agents work for; child the child
	// session of sub.
	parent string
	child  func(sub string) string
}

// subAgentShapes are the CLIs whose sub-agents are sessions of their own.
// Copilot's payloads name the sub-agent but not its session: the hooks
// find the session through the wrapper's AGENTLOCK_SESSION here (or the
// Copilot process its session-start hook recorded: the e2e suite).
func subAgentShapes() []subAgentShape {
	const claudeID = "5f1c0b7e-claude"
	return []subAgentShape{{
		agent: "claude", env: []string{"CLAUDE_CODE_SESSION_ID=" + claudeID},
		edit: func(sub, cwd, file string) string {
			p := claudeEdit(claudeID, cwd, file)
			if sub == "" {
				return p
			}
			return strings.Replace(p, `"permission_mode"`, fmt.Sprintf(`"agent_id":%q,"agent_type":"general-purpose","permission_mode"`, sub), 1)
		},
		start: func(sub, cwd string) string {
			return fmt.Sprintf(`{"session_id":%q,"transcript_path":"/t.jsonl","cwd":%q,"hook_event_name":"SubagentStart","agent_id":%q,"agent_type":"general-purpose"}`, claudeID, cwd, sub)
		},
		stop: func(sub, cwd string) string {
			return fmt.Sprintf(`{"session_id":%q,"transcript_path":"/t.jsonl","cwd":%q,"permission_mode":"default","hook_event_name":"SubagentStop",
"stop_hook_active":false,"agent_id":%q,"agent_transcript_path":"/a.jsonl","agent_type":"general-purpose","last_assistant_message":"Done."}`, claudeID, cwd, sub)
		},
		parent: "claude-" + claudeID,
		child:  func(sub string) string { return "claude-" + claudeID + "/" + sub },
	}, {
		// 0.171.0: session_id is the session's, agent_id the sub-agent's
		// thread; no session variable in the hooks' environment.
		agent: "codex",
		edit: func(sub, cwd, file string) string {
			p := codexPatch("019a-root", cwd, "*** Begin Patch\n*** Update File: "+file+"\n@@\n-x\n+y\n*** End Patch")
			if sub == "" {
				return p
			}
			return strings.Replace(p, `"turn_id"`, fmt.Sprintf(`"agent_id":%q,"agent_type":"default","turn_id"`, sub), 1)
		},
		start: func(sub, cwd string) string {
			return fmt.Sprintf(`{"session_id":"019a-root","turn_id":"t2","cwd":%q,"hook_event_name":"SubagentStart","model":"gpt-5-codex",
"permission_mode":"bypassPermissions","agent_id":%q,"agent_type":"default","transcript_path":null}`, cwd, sub)
		},
		stop: func(sub, cwd string) string {
			return fmt.Sprintf(`{"session_id":"019a-root","turn_id":"t2","cwd":%q,"hook_event_name":"SubagentStop","model":"gpt-5-codex",
"permission_mode":"bypassPermissions","agent_id":%q,"agent_type":"default","transcript_path":null,"stop_hook_active":false}`, cwd, sub)
		},
		parent: "codex-019a-root",
		child:  func(sub string) string { return "codex-019a-root/" + sub },
	}, {
		agent: "copilot", env: []string{"AGENTLOCK_SESSION=copilot-wrap-1"},
		edit: func(sub, cwd, file string) string {
			if sub == "" {
				return copilotEdit("cc23850e", cwd, "create", map[string]any{"path": file, "file_text": "x\n"})
			}
			// 1.0.102: a sub-agent's calls carry its agentId as their
			// sessionId, and the agent that started it.
			return fmt.Sprintf(`{"sessionId":%q,"timestamp":1796534015401,"cwd":%q,"toolName":"create","toolArgs":%s,
"agentId":%q,"agentType":"general-purpose","parentAgentId":"cc23850e"}`, sub, cwd, mustJSON(map[string]any{"path": file, "file_text": "x\n"}), sub)
		},
		start: func(sub, cwd string) string {
			return fmt.Sprintf(`{"sessionId":"88b045a0","timestamp":1796534015031,"cwd":%q,"transcriptPath":"/e.jsonl","agentName":"general-purpose",
"agentId":%q,"agentType":"general-purpose","parentAgentId":"cc23850e"}`, cwd, sub)
		},
		stop: func(sub, cwd string) string {
			return fmt.Sprintf(`{"sessionId":"88b045a0","timestamp":1796534015857,"cwd":%q,"transcriptPath":"/e.jsonl","agentId":%q,
"agentType":"general-purpose","agentName":"general-purpose","response":"Done.","stopReason":"end_turn","stop_hook_active":false,"parentAgentId":"cc23850e"}`, cwd, sub)
		},
		parent: "copilot-wrap-1",
		child:  func(sub string) string { return "copilot-wrap-1/" + sub },
	}}
}

// hookRun runs one hook of the shape's CLI with payload.
func (s subAgentShape) hookRun(p *project, event, payload string) proctest.Cmd {
	return proctest.Cmd{Args: []string{"hook", s.agent, event}, Env: append(append([]string{}, p.env...), s.env...), Dir: p.dir, Stdin: payload}
}

// hook runs one hook and returns the reason of a denial ("" when allowed).
func (s subAgentShape) hook(t *testing.T, p *project, event, payload string) string {
	t.Helper()
	r := harness(t).Run(t, s.hookRun(p, event, payload))
	if event != "pre-edit" {
		requireExit(t, 0, r)
		return ""
	}
	return deniedReason(t, s.agent, r)
}

// Two sub-agents of one session race for one file, through their CLI's
// hooks behind a barrier: exactly one wins each round, and the other's
// denial names it as another sub-agent of its session. The winner's stop
// frees the file for the next round.
func TestSubAgentsRaceForOneFile(t *testing.T) {
	rounds := 16
	if testing.Short() {
		rounds = 4
	}
	for _, s := range subAgentShapes() {
		t.Run(s.agent, func(t *testing.T) {
			p := hookProject(t)
			a := filepath.Join(p.dir, "src/a.go")
			for round := range rounds {
				subs := []string{fmt.Sprintf("r%d-a", round), fmt.Sprintf("r%d-b", round)}
				var cmds []proctest.Cmd
				for _, sub := range subs {
					s.hook(t, p, "session-start", s.start(sub, p.dir))
					cmds = append(cmds, s.hookRun(p, "pre-edit", s.edit(sub, p.dir, a)))
				}
				var won, lost []int
				reasons := map[int]string{}
				for i, r := range harness(t).Race(t, cmds) {
					if reasons[i] = deniedReason(t, s.agent, r); reasons[i] == "" {
						won = append(won, i)
					} else {
						lost = append(lost, i)
					}
				}
				require.Len(t, won, 1, "round %d: exactly one sub-agent wins", round)
				require.Len(t, lost, 1, "round %d", round)
				winner := s.child(subs[won[0]])
				assert.Equal(t, winner, p.owner("src/a.go"), "round %d", round)
				requireDenied(t, s.agent, harness(t).Run(t, s.hookRun(p, "pre-edit", s.edit(subs[lost[0]], p.dir, a))), winner)
				assert.Contains(t, reasons[lost[0]], "session "+winner+", another sub-agent of your session", "round %d: the refusal names the sibling", round)
				assert.Contains(t, reasons[lost[0]], "you ("+s.child(subs[lost[0]])+")")
				for _, sub := range subs {
					s.hook(t, p, "session-end", s.stop(sub, p.dir))
				}
				require.Empty(t, p.owner("src/a.go"), "round %d: the sub-agents' stop frees the file", round)
			}
		})
	}
}

// The rules between a session and its sub-agents, through the hooks: a
// sub-agent takes over what its session's hooks took, never what the
// session took explicitly; the session may not edit what a live sub-agent
// holds; show nests the sub-agents under the session; the session's finish
// frees its sub-agents' locks and finishes them.
func TestSubAgentRules(t *testing.T) {
	for _, s := range subAgentShapes() {
		t.Run(s.agent, func(t *testing.T) {
			p := hookProject(t)
			file := func(rel string) string { return filepath.Join(p.dir, rel) }
			asParent := func(args ...string) proctest.Result {
				return p.runEnv(s.env, append(args, "--session", s.parent)...)
			}
			requireExit(t, 0, asParent("register", "--working-on", "lead"))
			s.hook(t, p, "session-start", s.start("a1", p.dir))
			s.hook(t, p, "session-start", s.start("b2", p.dir))

			// Its session's hook took src/b.go: the sub-agent works for it.
			require.Empty(t, s.hook(t, p, "pre-edit", s.edit("", p.dir, file("src/b.go"))))
			require.Equal(t, s.parent, p.owner("src/b.go"))
			require.Empty(t, s.hook(t, p, "pre-edit", s.edit("a1", p.dir, file("src/b.go"))), "a sub-agent edits what its session's hooks took")
			assert.Equal(t, s.child("a1"), p.owner("src/b.go"))
			reason := s.hook(t, p, "pre-edit", s.edit("", p.dir, file("src/b.go")))
			assert.Contains(t, reason, "session "+s.child("a1")+", a sub-agent of yours", "the session may not edit what a live sub-agent holds")
			assert.Contains(t, reason, "wait for it to finish")
			assert.Contains(t, s.hook(t, p, "pre-edit", s.edit("b2", p.dir, file("src/b.go"))), "another sub-agent of your session")

			// What the session took explicitly stays its own.
			requireExit(t, 0, asParent("acquire", "src/c.go"))
			reason = s.hook(t, p, "pre-edit", s.edit("a1", p.dir, file("src/c.go")))
			assert.Contains(t, reason, "session "+s.parent+", the session you work for")
			assert.Contains(t, reason, "agentlock release '"+file("src/c.go")+"'", "a sub-agent whose shell took it for its session is told how to free it")
			assert.NotContains(t, reason, "--wait", "a sub-agent is not told to wait with agentlock acquire, which would take the file for its session")
			assert.Equal(t, s.parent, p.owner("src/c.go"))

			// show nests the sub-agents under their session.
			out := p.run("show")
			requireExit(t, 0, out)
			at := func(s string) int { return strings.Index(out.Stdout, s) }
			require.GreaterOrEqual(t, at("\n  └ sub-agent "+s.child("a1")), 0, out.Stdout)
			assert.Less(t, at(s.parent+"  OnWorking"), at("└ sub-agent "+s.child("a1")))
			assert.Less(t, at("└ sub-agent "+s.child("a1")), at("└ sub-agent "+s.child("b2")))
			parents := map[string]any{}
			for _, rec := range jsonLines(t, p.run("show", "--json")) {
				parents[rec["session_id"].(string)] = rec["parent"]
			}
			assert.Equal(t, map[string]any{s.parent: nil, s.child("a1"): s.parent, s.child("b2"): s.parent}, parents)
			st := p.run("status")
			assert.Contains(t, st.Stdout, "\n  "+s.parent+"  1 lock\n    └ "+s.child("a1")+"  1 lock\n", "status nests them too")

			// The session's finish frees its sub-agents' locks and
			// finishes them.
			require.Empty(t, s.hook(t, p, "pre-edit", s.edit("b2", p.dir, file("src/d.go"))))
			requireExit(t, 0, asParent("finish"))
			for _, rel := range []string{"src/b.go", "src/c.go", "src/d.go"} {
				assert.Empty(t, p.owner(rel), "%s is free once the session finished", rel)
			}
			for _, rec := range jsonLines(t, p.run("show", "--json")) {
				assert.Equal(t, "Finished", rec["status"], "%v", rec["session_id"])
			}
		})
	}
}

// A sub-agent whose CLI never says it stopped (a lost end event) holds
// nothing past the timeout, whatever its session does meanwhile: its
// session's renewals renew only the session's own locks.
func TestSubAgentWithoutAnEndHoldsNothingPastTheTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a lock to expire in real time")
	}
	for _, s := range subAgentShapes() {
		t.Run(s.agent, func(t *testing.T) {
			p := hookProject(t)
			// Under the session lifetime of hook locks, which the session's
			// renewals renew (under the turn lifetime a hook's lock goes
			// once unused for its idle bound or the timeout, renewed or
			// not: TestHookLockLivesAsLongAsItsUse).
			p.env = append(p.env, "AGENTLOCK_TIMEOUT=2s", "AGENTLOCK_HOOK_LOCKS=session")
			p.write(".agent-registry/timeout", "2s\n") // the project's floor, set up for short locks
			require.Empty(t, s.hook(t, p, "pre-edit", s.edit("", p.dir, filepath.Join(p.dir, "src/a.go"))))
			require.Empty(t, s.hook(t, p, "pre-edit", s.edit("gone", p.dir, filepath.Join(p.dir, "src/b.go"))))
			require.Equal(t, s.child("gone"), p.owner("src/b.go"))
			renew := func() {
				s.hook(t, p, "renew", strings.Replace(s.edit("", p.dir, filepath.Join(p.dir, "src/a.go")), "PreToolUse", "PostToolUse", 1))
			}
			deadline := time.Now().Add(30 * time.Second)
			for {
				renew() // the session goes on working
				r := p.run("check", "src/b.go", "--json", "--session", "probe")
				rec := jsonLines(t, r)[0]
				if rec["state"] == "stale" {
					break
				}
				require.True(t, time.Now().Before(deadline), "the sub-agent's lock never went stale: %v", rec)
				time.Sleep(200 * time.Millisecond)
			}
			r := p.run("check", "src/a.go", "--json", "--session", "probe")
			assert.Equal(t, "locked", jsonLines(t, r)[0]["state"], "the session's own lock, renewed, is still held")
			requireExit(t, 0, p.run("acquire", "src/b.go", "--session", "other-1")) // another session takes it
			assert.Equal(t, "other-1", p.owner("src/b.go"))
		})
	}
}

// Codex tells a sub-agent's shell apart (0.171.0: CODEX_THREAD_ID is the
// sub-agent's thread, CODEX_SESSION_ID the session's): its commands act for
// the same child session as its hooks, so a file it acquires from its
// shell is one its own edits may make.
func TestCodexSubAgentShellIsItsChildSession(t *testing.T) {
	p := hookProject(t)
	main := []string{"CODEX_THREAD_ID=019a-root", "CODEX_SESSION_ID=019a-root"}
	sub := []string{"CODEX_THREAD_ID=019a-sub7", "CODEX_SESSION_ID=019a-root"}
	whoami := func(env []string) map[string]any {
		r := p.runEnv(env, "whoami", "--json")
		requireExit(t, 0, r)
		return jsonLines(t, r)[0]
	}
	assert.Equal(t, "codex-019a-root", whoami(main)["session_id"])
	assert.Equal(t, "codex-019a-root/019a-sub7", whoami(sub)["session_id"])
	requireExit(t, 0, p.runEnv(sub, "acquire", "src/a.go"))
	assert.Equal(t, "codex-019a-root/019a-sub7", p.owner("src/a.go"))
	codex := subAgentShapes()[1]
	require.Equal(t, "codex", codex.agent)
	assert.Empty(t, codex.hook(t, p, "pre-edit", codex.edit("019a-sub7", p.dir, filepath.Join(p.dir, "src/a.go"))), "its own edit of what its shell took")
	reason := codex.hook(t, p, "pre-edit", codex.edit("019a-sub8", p.dir, filepath.Join(p.dir, "src/a.go")))
	assert.Contains(t, reason, "another sub-agent of your session")
	reason = codex.hook(t, p, "pre-edit", codex.edit("", p.dir, filepath.Join(p.dir, "src/a.go")))
	assert.Contains(t, reason, "a sub-agent of yours")
	// A --session typed names the whole id, whatever the harness says.
	r := p.runEnv(sub, "whoami", "--json", "--session", "codex-019a-root/019a-sub7")
	requireExit(t, 0, r)
	assert.Equal(t, "codex-019a-root/019a-sub7", jsonLines(t, r)[0]["session_id"])
}
