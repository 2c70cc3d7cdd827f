//go:build linux

package e2e

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/agentlock/agentlock/e2e/mock"
	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// The MCP front end in the real CLIs (issue 28): `agentlock init` registers
// agentlock mcp in the project MCP file (.mcp.json for Claude Code,
// .codex/config.toml for Codex); the scripted model calls its acquire tool
// on free.txt (taken for the harness session), on held.txt (refused,
// naming other-1) and its release tool on free.txt. Run it with
//
//	AGENTLOCK_E2E=1 go test -v ./e2e -run TestE2EMCP

// mcpAgent is how one CLI offers agentlock's MCP tools to the model.
type mcpAgent struct {
	agent
	// tool is the model's call of a tool of agentlock's server, as the
	// CLI names it.
	tool func(name string, args map[string]any) mock.Step
	// load are the model's steps that make the CLI declare the tools
	// (Claude Code defers MCP tools behind its ToolSearch tool); nil when
	// the CLI declares them from the start.
	load []mock.Step
	// offered is what a request declares when the CLI offers the tools.
	offered string
	// args adjusts the CLI's arguments and the user configuration so
	// that the project's MCP server loads and its tools may run.
	args func(t *testing.T, r *e2eRun, args []string) []string
}

var mcpAgents = []mcpAgent{
	{
		agent: agents[0], // Claude Code
		// Claude Code names an MCP tool mcp__<server>__<tool>.
		tool: func(name string, args map[string]any) mock.Step {
			return mock.Step{Tool: "mcp__agentlock__" + name, Args: args}
		},
		// Claude Code 2.1.332 lists MCP tools by name only (a system
		// message of "deferred tools") and declares one once the model has
		// fetched it with ToolSearch.
		load: []mock.Step{{Tool: "ToolSearch", Args: map[string]any{
			"query": "select:mcp__agentlock__acquire,mcp__agentlock__release", "max_results": 5}}},
		offered: `"name":"mcp__agentlock__acquire"`,
		args: func(t *testing.T, r *e2eRun, args []string) []string {
			// The user's approval of the project's .mcp.json server, as
			// Claude Code records it when the user accepts it.
			r.write(t, filepath.Join(r.home, ".claude.json"), mustJSON(map[string]any{
				"hasCompletedOnboarding": true,
				"projects": map[string]any{r.repo: map[string]any{"hasTrustDialogAccepted": true,
					"enabledMcpjsonServers": []string{"agentlock"}}}}))
			// and its permission for the server's tools in -p mode.
			i := slices.Index(args, "--allowedTools")
			args[i+1] += ",mcp__agentlock"
			return args
		},
	},
	{
		agent: agents[1], // Codex
		// Codex declares a server's tools in a Responses namespace tool
		// "mcp__<server>"; the model calls <tool> in that namespace.
		tool: func(name string, args map[string]any) mock.Step {
			return mock.Step{Namespace: "mcp__agentlock", Tool: name, Args: args}
		},
		offered: `"name":"mcp__agentlock"`,
		args: func(t *testing.T, r *e2eRun, args []string) []string {
			// Nothing to add: the project is trusted (codexConfig), and
			// the entry init wrote approves agentlock's tools.
			return args
		},
	},
}

func TestE2EMCP(t *testing.T) {
	e2eOnly(t)
	for _, a := range mcpAgents {
		t.Run(a.cli.name, func(t *testing.T) {
			prog := a.cli.install(t)
			a.isolate(t)
			e2eMCP(t, a, prog)
		})
	}
}

func e2eMCP(t *testing.T, a mcpAgent, prog string) {
	r := newE2ERun(t, a.agent)
	// The steps after a.load: n+0 acquires free.txt, n+1 held.txt, n+3
	// releases free.txt.
	n := len(a.load)
	r.start(t, append(slices.Clip(a.load),
		a.tool("acquire", map[string]any{"paths": []string{"free.txt"}}),
		a.tool("acquire", map[string]any{"paths": []string{"held.txt"}}),
		shell("agentlock status --json > status.json 2>&1"),
		a.tool("release", map[string]any{"paths": []string{"free.txt"}}),
		shell("agentlock status --json > after.json 2>&1"),
	))
	args, env := a.configure(t, r, "do the scripted work")
	args = a.args(t, r, args)
	res := proctest.Run(t, prog, proctest.Cmd{Args: args, Env: proctest.Env(r.home, r.tmp, append(env, "PATH="+r.bin+":"+systemPath)...), Dir: r.repo})
	if res.Code != 0 {
		t.Fatalf("%s failed: %v\nmodel was told: %q", a.cli.name, res, r.server.ToolResults())
	}
	if !r.declared(a.offered) {
		t.Fatalf("%s offered the model none of agentlock's MCP tools (%s); it offered %v", a.cli.name, a.offered, offeredTools(r))
	}
	s := r.harnessSession(t, a.agent)
	for i := range a.load {
		loaded := r.told(t, i)
		t.Logf("loading the MCP tools: the model read %q", loaded)
		if !strings.Contains(loaded, "mcp__agentlock__acquire") {
			t.Errorf("loading the MCP tools: the model read %q, which does not name mcp__agentlock__acquire", loaded)
		}
	}

	took := r.told(t, n)
	t.Logf("MCP acquire of free.txt: the model read %q", took)
	if !strings.Contains(took, `"locked":true`) || !strings.Contains(took, s.ID) {
		t.Errorf("MCP acquire of free.txt: the model read %q, want a lock of the harness session %s", took, s.ID)
	}
	if l := r.locksIn(t, "status.json")["free.txt"]; l.Session != s.ID || l.State != "locked" {
		t.Errorf("after the MCP acquire, free.txt's lock is %+v, want locked by the harness session %s", l, s.ID)
	}

	refused := r.told(t, n+1)
	t.Logf("MCP acquire of held.txt: the model read %q", refused)
	if !strings.Contains(refused, "held by session "+holder) || !strings.Contains(refused, "do not work around") {
		t.Errorf("MCP acquire of held.txt: the model read %q, want a refusal naming %s and what to do", refused, holder)
	}
	if l := r.locksIn(t, "status.json")["held.txt"]; l.Session != holder {
		t.Errorf("held.txt's lock is %+v, want still %s's", l, holder)
	}

	released := r.told(t, n+3)
	if !strings.Contains(released, `"released":true`) {
		t.Errorf("MCP release of free.txt: the model read %q", released)
	}
	if l, ok := r.locksIn(t, "after.json")["free.txt"]; ok && l.State == "locked" {
		t.Errorf("after the MCP release, free.txt's lock is %+v", l)
	}
	r.finished(t, s.ID)
}

// declared reports whether a request's tools declare text (not its
// conversation, which holds the scripted calls).
func (r *e2eRun) declared(text string) bool {
	for _, req := range r.server.Requests() {
		var doc map[string]json.RawMessage
		if json.Unmarshal([]byte(req.Body), &doc) == nil && strings.Contains(string(doc["tools"]), text) {
			return true
		}
	}
	return false
}

// offeredTools lists the tool names the requests declared, for a failure
// message.
func offeredTools(r *e2eRun) []string {
	seen := map[string]bool{}
	name := regexp.MustCompile(`"name":"([^"]+)"`)
	for _, req := range r.server.Requests() {
		var doc map[string]json.RawMessage
		if json.Unmarshal([]byte(req.Body), &doc) != nil {
			continue
		}
		for _, m := range name.FindAllStringSubmatch(string(doc["tools"]), -1) {
			seen[m[1]] = true
		}
	}
	var out []string
	for n := range seen {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
