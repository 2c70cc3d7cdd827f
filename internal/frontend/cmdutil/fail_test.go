package cmdutil

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/stretchr/testify/assert"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/report"
)

// tree is a root with a command "x" and a command "hook", both with --json.
func tree() (root, x, hook *cobra.Command) {
	root = &cobra.Command{Use: "agentlock"}
	root.PersistentFlags().Bool("json", false, "")
	x = &cobra.Command{Use: "x <path>", RunE: func(*cobra.Command, []string) error { return nil }}
	hook = &cobra.Command{Use: "hook <agent> <event>", RunE: func(*cobra.Command, []string) error { return nil }}
	root.AddCommand(x, hook)
	return root, x, hook
}

func TestFailSaysEachClassOnce(t *testing.T) {
	_, x, hook := tree()
	for _, tc := range []struct {
		name    string
		cmd     *cobra.Command
		args    []string
		err     error
		code    int
		errOut  string
		jsonOut string
	}{
		{name: "done", cmd: x, code: report.ExitOK},
		{name: "usage", cmd: x, err: report.UsageErrorf("agentlock: bad %q", "v"), code: report.ExitUsage,
			errOut: "agentlock: bad \"v\"\nusage: agentlock x <path>\nsee 'agentlock x --help'\n"},
		{name: "one line", cmd: x, err: report.LineUsageErrorf("you are %s: run 'y'", "s"), code: report.ExitUsage,
			errOut: "agentlock: you are s: run 'y'\n"},
		{name: "one line, wrapped", cmd: x, err: &report.UsageError{Err: fmt.Errorf("x: %w", report.LineUsageErrorf("run 'y'"))}, code: report.ExitUsage,
			errOut: "agentlock: x: run 'y'\n"},
		{name: "malformed hook line", cmd: hook, err: &report.HookLineError{Err: report.UsageErrorf("unknown agent %q", "clod")}, code: report.ExitHookLine,
			errOut: "agentlock: malformed hook command (unknown agent \"clod\"): nothing is checked until it is fixed; " +
				"run 'agentlock init --check' to see the hooks agentlock writes\nusage: agentlock hook <agent> <event>\nsee 'agentlock hook --help'\n"},
		{name: "hook's denial", cmd: hook, err: report.ErrDenied, code: report.ExitDeny},
		{name: "reported", cmd: x, args: []string{"x", "--json"}, err: fmt.Errorf("x: %w", report.ErrReported), code: report.ExitRefused},
		{name: "environment", cmd: x, args: []string{"x", "--json"}, err: fmt.Errorf("read a: %w", core.ErrCorrupt), code: report.ExitEnv,
			errOut:  "agentlock: read a: corrupt lock file; inspect it, then empty it with 'agentlock release --force'\n",
			jsonOut: `{"kind":"error","error":"read a: corrupt lock file; inspect it, then empty it with 'agentlock release --force'","exit_code":3}` + "\n"},
		{name: "escaped", cmd: x, err: errors.New("bad\x1b[2J"), code: report.ExitEnv, errOut: "agentlock: bad\\x1b[2J\n"},
	} {
		var out, errOut bytes.Buffer
		assert.Equal(t, tc.code, Fail(&out, &errOut, tc.cmd, tc.args, tc.err), tc.name)
		assert.Equal(t, tc.errOut, errOut.String(), tc.name)
		assert.Equal(t, tc.jsonOut, out.String(), tc.name)
	}
}

func TestUsageHelpers(t *testing.T) {
	root, x, _ := tree()
	assert.Equal(t, "x", Unprefixed("agentlock: x"))
	assert.Equal(t, "other: x", Unprefixed("other: x"))

	err := UnknownCommand(root, "y")
	assert.Equal(t, report.ExitUsage, report.ExitCode(err))
	assert.Equal(t, `unknown command "y"`, err.Error())
	root.SuggestionsMinimumDistance = 2
	assert.Equal(t, `unknown command "hok"; did you mean "hook"?`, UnknownCommand(root, "hok").Error())

	err = FlagError(x, errors.New("unknown flag: --jsn"))
	assert.Equal(t, report.ExitUsage, report.ExitCode(err))
	assert.Contains(t, err.Error(), "--json")

	x.Args = cobra.ExactArgs(1)
	UsageArgs(root)
	err = x.Args(x, nil)
	assert.Equal(t, report.ExitUsage, report.ExitCode(err))
	var usage *report.UsageError
	assert.ErrorAs(t, err, &usage)
	assert.NotErrorIs(t, usage.Err, report.ErrUsage, "wrapped once")

	CompletionUsage(root)
	completion, _, cerr := root.Find([]string{"completion"})
	assert.NoError(t, cerr)
	assert.Equal(t, "a shell is required: bash, zsh, fish or powershell", completion.RunE(completion, nil).Error())
	assert.True(t, strings.HasPrefix(completion.UseLine(), "agentlock completion bash|zsh|fish|powershell"), "the usage line names the shells: %s", completion.UseLine())
	err = completion.RunE(completion, []string{"tcsh"})
	assert.Equal(t, report.ExitUsage, report.ExitCode(err))
	assert.Equal(t, `unknown shell "tcsh": bash, zsh, fish or powershell`, err.Error())
}
