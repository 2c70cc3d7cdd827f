package main_test

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// crushEdit is Crush's PreToolUse payload of its edit tool.
func crushEdit(session, cwd, file string) string {
	data, _ := json.Marshal(map[string]any{"event": "PreToolUse", "session_id": session, "cwd": cwd, "tool_name": "edit",
		"tool_input": map[string]any{"file_path": file, "old_string": "x", "new_string": "y"}})
	return string(data)
}

// droidPatch is Factory Droid's PreToolUse payload of ApplyPatch adding
// or updating the files (relative to cwd).
func droidPatch(session, cwd string, files ...string) string {
	patch := "*** Begin Patch\n"
	for _, f := range files {
		patch += "*** Update File: " + f + "\n@@\n-x\n+y\n"
	}
	data, _ := json.Marshal(map[string]any{"session_id": session, "cwd": cwd, "hook_event_name": "PreToolUse",
		"permission_mode": "auto-high", "tool_name": "ApplyPatch", "tool_input": map[string]any{"input": patch + "*** End Patch\n"}})
	return string(data)
}

// Crush's edit hooks (exit 2 denials) and Droid's ApplyPatch hooks of two
// files (JSON denials) race for src/a.go: exactly one wins, and Droid's
// patch takes both of its files or neither (a losing patch leaves src/b.go
// free; a winning one holds it too).
func TestHookRaceCrushAndDroid(t *testing.T) {
	p := hookProject(t)
	a := filepath.Join(p.dir, "src/a.go")
	for round := range raceRounds() {
		var cmds []proctest.Cmd
		for i := range 12 {
			agent, payload := "crush", crushEdit(fmt.Sprintf("r%d-%d", round, i), p.dir, a)
			if i%2 == 1 {
				agent, payload = "droid", droidPatch(fmt.Sprintf("r%d-%d", round, i), p.dir, "src/a.go", "src/b.go")
			}
			cmds = append(cmds, proctest.Cmd{Args: []string{"hook", agent, "pre-edit"}, Env: p.env, Dir: p.dir, Stdin: payload})
		}
		winners, winner := 0, ""
		for i, r := range harness(t).Race(t, cmds) {
			agent := cmds[i].Args[1]
			if reason := deniedReason(t, agent, r); reason == "" {
				winners++
				winner = agent
			} else {
				assert.Contains(t, reason, "Do not work around this", "%s denied for the holder", agent)
			}
		}
		require.Equal(t, 1, winners, "round %d", round)
		owner := p.owner("src/a.go")
		require.NotEmpty(t, owner)
		if winner == "droid" {
			assert.Equal(t, owner, p.owner("src/b.go"), "round %d: the winning patch holds both its files", round)
			requireExit(t, 0, p.run("release", "src/b.go", owner))
		} else {
			assert.Empty(t, p.owner("src/b.go"), "round %d: a denied patch takes none of its files", round)
		}
		requireExit(t, 0, p.run("release", "src/a.go", owner))
	}
}
