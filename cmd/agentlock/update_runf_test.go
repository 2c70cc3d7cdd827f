package main

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/session"
)

func TestRunFUpdate(t *testing.T) {
	requireCommon(t, "update", newCmdUpdate, func(o *UpdateOptions) func() (*config, error) { return o.Config }, false, "now testing")

	r := runfRun(t, "update", newCmdUpdate, "now testing")
	require.NoError(t, r.Err)
	require.Equal(t, "agentlock update", r.Opts.Command)
	require.Equal(t, []string{"now testing"}, r.Opts.Args, "told apart from a session at run time")
	require.Empty(t, r.Opts.Changed)

	// Each flag sets its field and is marked as changed, an empty value
	// too (it empties a list); the root's flags are not fields.
	for flag, field := range map[string]func(*UpdateOptions) string{
		"working-on":   func(o *UpdateOptions) string { return o.WorkingOn },
		"status":       func(o *UpdateOptions) string { return o.Status },
		"space":        func(o *UpdateOptions) string { return o.Space },
		"todo-past":    func(o *UpdateOptions) string { return o.TodoPast },
		"todo-present": func(o *UpdateOptions) string { return o.TodoPresent },
		"todo-future":  func(o *UpdateOptions) string { return o.TodoFuture },
		"issues":       func(o *UpdateOptions) string { return o.Issues },
		"provider":     func(o *UpdateOptions) string { return o.Provider },
		"ai-version":   func(o *UpdateOptions) string { return o.AIVersion },
	} {
		for _, value := range []string{"a,b", ""} {
			r := runfRun(t, "update", newCmdUpdate, "--"+flag, value, "--session", "s-1", "--json", "--timeout", "30", "--session-id", "s-1")
			require.NoError(t, r.Err, flag)
			require.Equal(t, value, field(r.Opts), flag)
			require.Equal(t, map[string]bool{flag: true}, r.Opts.Changed, "--%s %q", flag, value)
		}
	}
	requireUsage(t, runfRun(t, "update", newCmdUpdate, "s-1", "text", "more"), "accepts at most 2 arg(s), received 3")
}

// update's reading of its positional arguments against the session known
// here (updateArgs), which its run does before it writes anything.
func TestRunFUpdateArgs(t *testing.T) {
	for _, tc := range []struct {
		args     []string
		changed  []string
		known    string
		source   string
		session  string
		workOn   string
		want     string // a usage error's text
		wantLine bool   // a one-line refusal
	}{
		{args: []string{"now testing"}, known: "s-1", session: "s-1", workOn: "now testing"},
		{args: []string{"s-1"}, changed: []string{"status"}, known: "s-1", session: "s-1"},
		{args: []string{"s-1"}, known: "", want: "nothing to update"},
		{args: []string{"s-1"}, changed: []string{"space"}, known: "", session: "s-1"},
		{args: []string{"s-1", "now testing"}, known: "", session: "s-1", workOn: "now testing"},
		{args: []string{"s-1", "now testing"}, known: "s-1", session: "s-1", workOn: "now testing"},
		{args: []string{"s-1", "x"}, changed: []string{"working-on"}, known: "s-1", want: "working_on given twice (argument and --working-on)"},
		{args: []string{"x"}, changed: []string{"working-on"}, known: "s-1", want: "working_on given twice"},
		{args: nil, known: "", changed: []string{"status"}, want: "no session id known here"},
		{args: nil, known: "s-1", want: "nothing to update"},
		{args: []string{"s-2", "x"}, known: "s-1", source: "AGENTLOCK_SESSION", wantLine: true, want: "you are session s-1 (from AGENTLOCK_SESSION), not s-2: run 'agentlock update x'"},
		{args: []string{"s-2", "x"}, known: "s-1", source: session.SourceFlag, want: "two session ids: s-2 and --session s-1"},
	} {
		opts := &UpdateOptions{Command: "agentlock update", Args: tc.args, Changed: map[string]bool{}}
		for _, c := range tc.changed {
			opts.Changed[c] = true
		}
		c := fakeConfig(tc.known, tc.source)
		err := updateArgs(t.Context(), opts, c)
		if tc.want == "" {
			require.NoError(t, err, "%+v", tc)
			require.Equal(t, tc.session, opts.Session, "%+v", tc)
			require.Equal(t, tc.workOn, opts.WorkingOn, "%+v", tc)
			continue
		}
		require.Error(t, err, "%+v", tc)
		require.Equal(t, report.ExitUsage, report.ExitCode(err), "%+v: %v", tc, err)
		require.Contains(t, err.Error(), tc.want)
		var usage *report.UsageError
		require.True(t, errors.As(err, &usage), "%+v: %v", tc, err)
		require.Equal(t, tc.wantLine, usage.Line, "%+v: %v", tc, err)
	}
}
