//go:build linux

package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/agentlock/agentlock/e2e/mock"
)

// The sub-agent cases (issue 35): a CLI whose sub-agents carry an identity
// runs each as a child session `<session>/<sub-agent id>`, and two
// sub-agents of one session exclude each other as two sessions do.

// writers are the two sub-agents of the race, by the marker their prompt
// holds (the mock serves each its branch of the script), and the line of
// shared.txt each replaces.
var writers = []struct{ marker, old, new string }{
	{"e2e-writer-A", "line a\n", "from A\n"},
	{"e2e-writer-B", "line b\n", "from B\n"},
}

// sharedText is shared.txt before the race.
const sharedText = "line a\nline b\n"

// barrierDir is the folder, in the repository, of the sub-agents'
// barriers.
const barrierDir = ".e2e-barrier"

// barrier is a shell command: who (a writer's marker, or "" for the
// session, which only waits) arrives at the barrier name and waits, at
// most about n/10 s, until every writer has arrived. With last, the
// deadline leaves <name>-<who>.timeout, which fails the test: the
// sub-agents did not run at once.
func barrier(name, who string, n int, last bool) string {
	var all []string
	for _, w := range writers {
		all = append(all, "[ -e "+barrierDir+"/"+name+"-"+w.marker+" ]")
	}
	arrive, timeout := "", ":"
	if who != "" {
		arrive = "touch " + barrierDir + "/" + name + "-" + who + "; "
	} else {
		who = "session"
	}
	if last {
		timeout = "touch " + barrierDir + "/" + name + "-" + who + ".timeout"
	}
	return fmt.Sprintf("%sn=0; until %s; do n=$((n+1)); if [ $n -gt %d ]; then %s; break; fi; sleep 0.1; done",
		arrive, strings.Join(all, " && "), n, timeout)
}

// subagentCalls is how the scripted model drives a CLI's sub-agents.
type subagentCalls struct {
	// spawn is the call that starts a sub-agent whose prompt holds marker.
	spawn func(marker string) mock.Step
	// background: the CLI runs a sub-agent in the background of the
	// session and takes one such call an answer (Codex's spawn_agent), so
	// the session starts them in two answers, then waits at the
	// sub-agents' last barrier. Else the session's one answer starts both
	// and the CLI returns when both are done.
	background bool
	// barrier is the steps of a barrier (see barrier); nil for one shell
	// command that waits up to 100 s, under the 120 s a command of Claude
	// Code's Bash may take.
	barrier func(name, who string) []mock.Step
}

// steps is the steps of the barrier name for who.
func (c subagentCalls) steps(name, who string) []mock.Step {
	if c.barrier != nil {
		return c.barrier(name, who)
	}
	return []mock.Step{shell(barrier(name, who, 1000, true))}
}

// e2eSubagentRace is two sub-agents of one session, started by the
// scripted model at once (see subagentCalls), racing to edit the same
// file: exactly one edit is applied, and the other sub-agent is told
// agentlock's refusal, naming its sibling as "another sub-agent of your
// session".
//
// Each sub-agent's conversation (a branch of the script, by the marker in
// its prompt) waits at a barrier until both run, records `agentlock show
// --json` (both children listed under the session, mid-session), edits its
// own line of shared.txt twice (with what the CLI's edit needs first: a
// loser that read the file before the winner's edit landed may fail its
// first edit in the CLI's own "modified since read" check, which Claude
// Code makes before any hook; its second, after a fresh read, reaches
// agentlock, which refuses it, since the winner holds the file until it
// stops; the winner's second edit finds its line gone), records `agentlock
// status --json`, and waits at a second barrier until both have edited, so
// that the winner holds its lock while the loser tries. The barriers order
// the steps; no step waits for time.
//
// After the run: one top-level session, both sub-agents its children, all
// Finished and nothing of theirs locked.
func e2eSubagentRace(t *testing.T, a agent, prog string, calls subagentCalls) {
	r := newE2ERun(t, a)
	r.write(t, filepath.Join(r.repo, "shared.txt"), sharedText)
	if err := os.MkdirAll(filepath.Join(r.repo, barrierDir), 0o755); err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(r.repo, "shared.txt")
	var branches []mock.Branch
	for _, w := range writers {
		steps := calls.steps("started", w.marker)
		steps = append(steps, shell("agentlock show --json > show-"+w.marker+".json 2>&1"))
		for range 2 {
			pre, edit := a.edit(shared, w.old, w.new)
			steps = append(append(steps, pre...), edit)
		}
		steps = append(steps, shell("agentlock status --json > status-"+w.marker+".json 2>&1"))
		steps = append(steps, calls.steps("edited", w.marker)...)
		branches = append(branches, mock.Branch{Marker: w.marker, Steps: steps, Final: w.marker + " done."})
	}
	var steps []mock.Step
	if calls.background {
		steps = append([]mock.Step{calls.spawn(writers[0].marker), calls.spawn(writers[1].marker)}, calls.steps("edited", "")...)
	} else {
		both := calls.spawn(writers[0].marker)
		both.Also = []mock.Step{calls.spawn(writers[1].marker)}
		steps = []mock.Step{both}
	}
	r.startScript(t, mock.Script{Steps: steps, Final: "Done.", Branches: branches})

	r.runCLI(t, a, prog, false)
	for _, w := range writers {
		if len(r.server.BranchToolResults(w.marker)) == 0 {
			t.Fatalf("sub-agent %s ran no step: the case tests nothing; requests: %d", w.marker, len(r.server.Requests()))
		}
	}
	timeouts, _ := filepath.Glob(filepath.Join(r.repo, barrierDir, "*.timeout"))
	if len(timeouts) > 0 {
		t.Fatalf("the sub-agents did not run at once: %s waited in vain at %q", a.cli.name, timeouts)
	}
	top, children := r.family(t, a)
	if len(children) != 2 {
		t.Fatalf("the run registered %d sub-agent sessions under %s, want 2: %+v", len(children), top.ID, children)
	}

	// Mid-session, each sub-agent's `agentlock show` lists both children
	// under the session.
	for _, w := range writers {
		data, err := os.ReadFile(filepath.Join(r.repo, "show-"+w.marker+".json"))
		if err != nil {
			t.Fatalf("sub-agent %s's agentlock show left nothing: %v", w.marker, err)
		}
		listed := 0
		for _, s := range decodeLines[session](t, "show-"+w.marker+".json", string(data)) {
			if s.Parent == top.ID && s.Status != "Finished" {
				listed++
			}
		}
		if listed != 2 {
			t.Errorf("sub-agent %s's agentlock show --json mid-session lists %d live children of %s, want 2:\n%s", w.marker, listed, top.ID, data)
		}
	}

	// Exactly one edit applied.
	data, err := os.ReadFile(shared)
	if err != nil {
		t.Fatal(err)
	}
	winner, loser := -1, -1
	for i, w := range writers {
		if string(data) == strings.Replace(sharedText, w.old, w.new, 1) {
			winner, loser = i, 1-i
		}
	}
	if winner < 0 {
		t.Fatalf("shared.txt is %q after the race, want exactly one sub-agent's edit applied", data)
	}
	win, lose := writers[winner].marker, writers[loser].marker
	t.Logf("%s won the race for shared.txt", win)

	// The winner held the file, as a child of the session, while the loser
	// tried; the loser read agentlock's refusal naming it.
	held := r.locksIn(t, "status-"+win+".json")["shared.txt"]
	if held.State != "locked" || !strings.HasPrefix(held.Session, top.ID+"/") {
		t.Fatalf("during the race, the winner %s saw shared.txt's lock %+v, want held by a sub-agent of %s", win, held, top.ID)
	}
	if l := r.locksIn(t, "status-"+lose+".json")["shared.txt"]; l.Session != held.Session {
		t.Errorf("the loser %s saw shared.txt's lock %+v, want the winner's %s", lose, l, held.Session)
	}
	refused := ""
	for _, text := range r.server.BranchToolResults(lose) {
		if strings.Contains(text, "another sub-agent of your session") {
			refused = text
			break
		}
	}
	t.Logf("the loser %s read, step by step: %q", lose, r.server.BranchToolResults(lose))
	if refused == "" || !strings.Contains(refused, held.Session) {
		t.Errorf("the loser %s was not told agentlock's refusal naming its sibling %s: %q", lose, held.Session, r.server.BranchToolResults(lose))
	}
	for _, m := range misleading {
		if strings.Contains(refused, m) {
			t.Errorf("the loser %s read %q: %q", lose, m, refused)
		}
	}
	for i, text := range r.server.BranchToolResults(win) {
		if strings.Contains(text, "locked by") {
			t.Errorf("the winner %s's tool result %d is a refusal: %q", win, i, text)
		}
	}

	r.familyFinished(t, top, children)
}

// familyFinished checks that the session top and its children are Finished
// and that nothing but the holder's stays locked.
func (r *e2eRun) familyFinished(t *testing.T, top session, children []session) {
	t.Helper()
	r.finished(t, top.ID)
	for _, c := range children {
		r.finished(t, c.ID)
	}
	for _, l := range decodeLines[lock](t, "agentlock status", r.agentlock(t, "status", "--json")) {
		if l.State == "locked" && l.Session != holder {
			t.Errorf("after the run, %s is still locked by %s", l.Path, l.Session)
		}
	}
}

// claudeSubagents is Claude Code's Agent tool starting general-purpose
// sub-agents.
var claudeSubagents = subagentCalls{spawn: func(marker string) mock.Step {
	return mock.Step{Tool: "Agent", Args: map[string]any{"description": "edit shared.txt", "subagent_type": "general-purpose",
		"prompt": "You are " + marker + ": do the scripted work."}}
}}

// copilotSubagents is Copilot CLI's task tool starting general-purpose
// sub-agents.
var copilotSubagents = subagentCalls{spawn: copilotSpawn}

// copilotSpawn is Copilot CLI's task call of a general-purpose sub-agent
// whose prompt holds marker.
func copilotSpawn(marker string) mock.Step {
	return mock.Step{Tool: "task", Args: map[string]any{"name": strings.ToLower(marker), "description": "edit shared.txt",
		"prompt": "You are " + marker + ": do the scripted work.", "agent_type": "general-purpose"}}
}

// openCodeSubagents is the task tool of OpenCode (and Kilo) starting
// general sub-agents.
var openCodeSubagents = subagentCalls{spawn: func(marker string) mock.Step {
	return mock.Step{Tool: "task", Args: map[string]any{"description": "edit shared.txt", "subagent_type": "general",
		"prompt": "You are " + marker + ": do the scripted work."}}
}}

// codexSubagents is Codex's spawn_agent (the multi_agent_v1 tools, on with
// [features] multi_agent): it returns at once, the sub-agent running in the
// background, and answers one call at a time (Responses). Codex's
// exec_command gives a command at most 30 s before it returns with the
// command still running (yield_time_ms): a barrier is four commands that
// each wait at most 25 s.
var codexSubagents = subagentCalls{
	spawn: func(marker string) mock.Step {
		return mock.Step{Tool: "spawn_agent", Namespace: "multi_agent_v1",
			Args: map[string]any{"message": "You are " + marker + ": do the scripted work.", "fork_context": false}}
	},
	background: true,
	barrier: func(name, who string) []mock.Step {
		var steps []mock.Step
		for i := range 4 {
			steps = append(steps, mock.Step{Tool: "exec_command", Args: map[string]any{"cmd": barrier(name, who, 250, i == 3), "yield_time_ms": 30000}})
		}
		return steps
	},
}
