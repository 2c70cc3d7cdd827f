package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/frontend/cmdutil"
)

func TestRunFDocs(t *testing.T) {
	requireCommon(t, "docs", newCmdDocs, nil, false)

	r := runfRun(t, "docs", newCmdDocs)
	require.NoError(t, r.Err)
	require.True(t, r.Cmd.Hidden, "docs is for the maintainers")
	require.Equal(t, "agentlock", r.Opts.Root.Name())
	var names []string
	for _, c := range r.Opts.Root.Commands() {
		names = append(names, c.Name())
	}
	// docs documents the whole tree, not the one command it was built
	// with (see onlyCommand).
	for _, c := range topLevelCommands() {
		require.Contains(t, names, c.name)
	}
	require.Same(t, r.Out, r.Opts.IO.Out)

	// The reference it writes from that tree names every visible command.
	var ref bytes.Buffer
	require.NoError(t, cmdutil.WriteReference(&ref, r.Opts.Root, reference))
	for _, c := range r.Opts.Root.Commands() {
		if !c.Hidden && c.Name() != "help" {
			require.Contains(t, ref.String(), "agentlock "+c.Name(), c.Name())
		}
	}
	requireUsage(t, runfRun(t, "docs", newCmdDocs, "acquire"), `unknown command "acquire" for "agentlock docs"`)
}
