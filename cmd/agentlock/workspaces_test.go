package main_test

// Paths whose locks live in two workspaces (two projects) follow one rule
// in every front end (issue 33): each workspace's paths are one
// transaction, the workspaces taken in a fixed order, and a refusal in one
// releases what the others newly took — all or none, as for the paths of
// one project. The hook used to keep the first project's locks when the
// second refused.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// twoProjects makes two projects set up for agentlock under one folder,
// with the environment of their commands.
func twoProjects(t *testing.T) (a, b string, env []string) {
	t.Helper()
	root := realTempDir(t)
	a, b = filepath.Join(root, "a"), filepath.Join(root, "b")
	for _, p := range []string{a, b} {
		for _, d := range []string{".git", ".agent-registry", "src"} {
			require.NoError(t, os.MkdirAll(filepath.Join(p, d), 0o755))
		}
	}
	return a, b, hermeticEnv(t, root)
}

// ownerOf is the session that holds path, as check --json reports it
// ("" when free).
func ownerOf(t *testing.T, env []string, path string) string {
	t.Helper()
	r := harness(t).Run(t, proctest.Cmd{Args: []string{"check", "--json", "--session", "nobody", path}, Env: env, Dir: filepath.Dir(path)})
	rec := oneJSON(t, r)
	owner, _ := rec["session_id"].(string)
	if rec["state"] == "free" {
		return ""
	}
	return owner
}

func TestAcquireAcrossProjectsIsAllOrNoneInEveryFrontEnd(t *testing.T) {
	a, b, env := twoProjects(t)
	pa, pb := filepath.Join(a, "src", "x.go"), filepath.Join(b, "src", "y.go")
	run := func(dir, stdin string, args ...string) proctest.Result {
		return harness(t).Run(t, proctest.Cmd{Args: args, Env: env, Dir: dir, Stdin: stdin})
	}
	requireExit(t, 0, run(b, "", "acquire", pb, "--session", "holder"))

	// The command line: refused, nothing taken in a.
	r := run(a, "", "acquire", pa, pb, "--session", "cli")
	requireExit(t, 1, r)
	require.Contains(t, r.Stderr, "holder", "%s", r)
	require.Empty(t, ownerOf(t, env, pa), "the command line took nothing")

	// The pre-edit hook of one patch that changes both: denied, nothing
	// taken in a.
	patch := map[string]any{"session_id": "t1", "cwd": a, "hook_event_name": "PreToolUse", "tool_name": "apply_patch",
		"tool_input": map[string]any{"command": "*** Begin Patch\n*** Update File: src/x.go\n@@\n-x\n+y\n*** Update File: ../b/src/y.go\n@@\n-x\n+y\n*** End Patch\n"}}
	payload, err := json.Marshal(patch)
	require.NoError(t, err)
	r = run(a, string(payload), "hook", "codex", "pre-edit")
	requireExit(t, 0, r)
	require.Contains(t, r.Stdout, `"deny"`, "%s", r)
	require.Contains(t, r.Stdout, "holder", "%s", r)
	require.Empty(t, ownerOf(t, env, pa), "the hook took nothing")

	// The MCP server: refused, nothing taken in a.
	srv := (&sandbox{t: t, project: a, env: env}).startMCP([]string{"AGENTLOCK_SESSION=mcp"})
	text := srv.refused("acquire", map[string]any{"paths": []string{pa, pb}})
	require.Contains(t, text, "held by session holder")
	require.Empty(t, ownerOf(t, env, pa), "the MCP server took nothing")

	// Once b's file is free, each takes both, each project keeping its own
	// lock.
	requireExit(t, 0, run(b, "", "release", pb, "--session", "holder"))
	requireExit(t, 0, run(a, "", "acquire", pa, pb, "--session", "cli"))
	require.Equal(t, "cli", ownerOf(t, env, pa))
	require.Equal(t, "cli", ownerOf(t, env, pb))
	requireExit(t, 0, run(a, "", "release", pa, pb, "--session", "cli"))
	r = run(a, string(payload), "hook", "codex", "pre-edit")
	requireExit(t, 0, r)
	require.NotContains(t, r.Stdout, `"deny"`, "%s", r)
	require.Equal(t, "codex-t1", ownerOf(t, env, pa))
	require.Equal(t, "codex-t1", ownerOf(t, env, pb))
	requireExit(t, 0, run(a, "", "release", pa, pb, "--session", "codex-t1"))
	srv.ok("acquire", map[string]any{"paths": []string{pa, pb}})
	require.Equal(t, "mcp", ownerOf(t, env, pa))
	require.Equal(t, "mcp", ownerOf(t, env, pb))
	_, err = os.Stat(filepath.Join(b, ".agent-registry", "locks"))
	require.NoError(t, err, "b's lock is in b's own lock folder")
}
