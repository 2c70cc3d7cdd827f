package codex

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/integrations"
)

// trustedEntry is what Codex hashes to decide whether a hook is trusted
// (command, matcher, timeout, statusMessage), and the position that is part
// of the trust key.
type trustedEntry struct {
	Event         string `json:"event"`
	Group         int    `json:"group"`
	Matcher       string `json:"matcher,omitempty"`
	Command       string `json:"command"`
	Timeout       int    `json:"timeout"`
	StatusMessage string `json:"statusMessage,omitempty"`
}

// Codex forgets the user's trust in a hook whenever its command, matcher,
// timeout, statusMessage or position changes. testdata/trusted-hooks.json
// freezes agentlock's entries: this test has no -update flag on purpose.
// Changing that file makes every user trust the hooks again in /hooks; do
// it only with a release note that says so.
func TestHookEntriesStayByteStableForTrust(t *testing.T) {
	artifacts, _, err := Agent().Plan(integrations.Env{Bin: "agentlock"})
	require.NoError(t, err)
	var hooksJSON []byte
	for _, a := range artifacts {
		if a.Path == ".codex/hooks.json" {
			hooksJSON = a.Content
		}
	}
	require.NotNil(t, hooksJSON)
	var doc struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Command       string `json:"command"`
				Timeout       int    `json:"timeout"`
				StatusMessage string `json:"statusMessage"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	require.NoError(t, json.Unmarshal(hooksJSON, &doc))
	got := map[string]trustedEntry{}
	for event, groups := range doc.Hooks {
		for gi, g := range groups {
			for _, h := range g.Hooks {
				got[event] = trustedEntry{Event: event, Group: gi, Matcher: g.Matcher, Command: h.Command, Timeout: h.Timeout, StatusMessage: h.StatusMessage}
			}
		}
	}
	data, err := os.ReadFile(filepath.Join("testdata", "trusted-hooks.json"))
	require.NoError(t, err)
	var frozen []trustedEntry
	require.NoError(t, json.Unmarshal(data, &frozen))
	require.Len(t, got, len(frozen), "agentlock's Codex hooks were added or removed: users must trust them again")
	for _, want := range frozen {
		assert.Equal(t, want, got[want.Event], "the %s hook changed: Codex drops the user's trust in it", want.Event)
	}
}

// init tells the user both ways to trust the hooks: /hooks in the TUI and
// --dangerously-bypass-hook-trust for codex exec.
func TestPlanNotesTellHowToTrustTheHooks(t *testing.T) {
	_, notes, err := Agent().Plan(integrations.Env{Bin: "agentlock"})
	require.NoError(t, err)
	all, _ := json.Marshal(notes)
	assert.Contains(t, string(all), "/hooks")
	assert.Contains(t, string(all), "codex exec --dangerously-bypass-hook-trust")
}
