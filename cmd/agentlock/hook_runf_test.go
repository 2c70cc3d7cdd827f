package main

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/integrations/all"
	"github.com/agentlock/agentlock/report"
)

func TestRunFHook(t *testing.T) {
	requireCommon(t, "hook", newCmdHook, func(o *HookOptions) func() (*config, error) { return o.Config }, true, "claude", "pre-edit")

	for _, agent := range all.Names() {
		r := runfRun(t, "hook", newCmdHook, agent, "session-start")
		require.NoError(t, r.Err, agent)
		require.Equal(t, agent, r.Opts.Agent)
		require.Equal(t, "session-start", r.Opts.Event)
		require.Equal(t, []string{"hook", agent, "session-start"}, r.Opts.Args, "the whole line, handed over with the payload")
	}
	requireUsage(t, runfRun(t, "hook", newCmdHook, "claude"), "accepts 2 arg(s), received 1")
	requireUsage(t, runfRun(t, "hook", newCmdHook), "accepts 2 arg(s), received 0")
	requireUsage(t, runfRun(t, "hook", newCmdHook, "claude", "pre-edit", "extra"), "accepts 2 arg(s), received 3")
}

// A malformed hook line exits 1 — an error every harness shows without
// blocking the tool call — never 2, which harnesses read as a deny; an
// agent or event nobody knows is malformed too. Through execute, in
// process: nothing reaches the hook's work.
func TestRunFHookMalformedLineIsNoDeny(t *testing.T) {
	runfEnv(t)
	for _, line := range [][]string{
		{"hook", "claude"},
		{"hook", "claude", "pre-edit", "extra"},
		{"hook", "claude", "pre-edit", "--no-such-flag"},
		{"hook", "nobody", "pre-edit"},
		{"hook", "claude", "pre-edt"},
	} {
		var out, errOut bytes.Buffer
		f := &Factory{IO: &IOStreams{In: strings.NewReader(`{"tool_name":"Edit"}`), Out: &out, ErrOut: &errOut}, Now: time.Now}
		code := execute(f, line)
		require.Equal(t, report.ExitHookLine, code, "%v: %s", line, errOut.String())
		require.NotEqual(t, report.ExitDeny, code)
		require.Contains(t, errOut.String(), "agentlock: malformed hook command (", "%v", line)
		require.Contains(t, errOut.String(), "see 'agentlock hook --help'", "%v", line)
		require.Empty(t, out.String(), "%v: no decision on stdout", line)
	}
}
