package main

import (
	"testing"

	"github.com/stretchr/testify/require"
)

func TestRunFHandoff(t *testing.T) {
	requireCommon(t, "handoff", newCmdHandoff, func(o *HandoffOptions) func() (*config, error) { return o.Config }, false, "notes.md")

	r := runfRun(t, "handoff", newCmdHandoff, "docs/handoff/claude-1.md")
	require.NoError(t, r.Err)
	require.Equal(t, "agentlock handoff", r.Opts.Command)
	require.Equal(t, "docs/handoff/claude-1.md", r.Opts.Notes)
	require.Empty(t, r.Opts.Session, "the session known here")
	r = runfRun(t, "handoff", newCmdHandoff, "claude-1", "docs/handoff/claude-1.md")
	require.NoError(t, r.Err)
	require.Equal(t, "claude-1", r.Opts.Session)
	require.Equal(t, "docs/handoff/claude-1.md", r.Opts.Notes)
	requireUsage(t, runfRun(t, "handoff", newCmdHandoff), "accepts between 1 and 2 arg(s), received 0")
	requireUsage(t, runfRun(t, "handoff", newCmdHandoff, "a", "b", "c"), "accepts between 1 and 2 arg(s), received 3")
}
