package main

// The harness of the in-process flag tests (the *_runf_test.go files):
// gh's seam, newCmdX(f, runF). A test builds the command with a runF that
// captures the options it would run with, under a root that has the real
// persistent flags (--json, --session, --timeout) and the real
// configuration of the Factory, runs one command line, and asserts on the
// captured options, on the configuration they resolve, or on the error and
// its exit class. Nothing runs a process, touches a lock or reads a
// registry: each test takes milliseconds and is race-clean.

import (
	"bytes"
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/frontend/cmdutil"
	"github.com/agentlock/agentlock/internal/testkit/clienv"
	"github.com/agentlock/agentlock/report"
)

// runfResult is one command line run through a command built with a runF.
type runfResult[O any] struct {
	// Opts are the options runF got; nil when runF was not called (a
	// flag or argument error, help).
	Opts *O
	// Cmd is the command that ran, or whose flags failed.
	Cmd *cobra.Command
	// Err is what Execute returned.
	Err error
	// Out and ErrOut are what the command tree printed.
	Out, ErrOut *bytes.Buffer
}

// Code is the exit code of the result's error.
func (r runfResult[O]) Code() int { return report.ExitCode(r.Err) }

// runfRun runs "agentlock <name> args..." with the top-level command
// name built by build with a runF that captures its options. The root is
// the one execute builds for that command line (newRootCmd), its command
// name replaced by the built one; the configuration is resolved from the
// environment runfEnv made, when the test asks for it.
func runfRun[O any](t *testing.T, name string, build func(*Factory, func(*O) error) *cobra.Command, args ...string) runfResult[O] {
	t.Helper()
	return runfRunIn(t, name, nil, build, args...)
}

// runfRunIn is runfRun for the subcommand sub of the top-level command
// name (nil sub: name itself).
func runfRunIn[O any](t *testing.T, name string, sub []string, build func(*Factory, func(*O) error) *cobra.Command, args ...string) runfResult[O] {
	t.Helper()
	return runfRunLine(t, name, build, append(append([]string{name}, sub...), args...))
}

// runfRunLine runs the whole command line line, whose top-level command
// name is built by build with a capturing runF.
func runfRunLine[O any](t *testing.T, name string, build func(*Factory, func(*O) error) *cobra.Command, line []string) runfResult[O] {
	t.Helper()
	res := runfResult[O]{Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}
	f := &Factory{
		IO:   &IOStreams{In: strings.NewReader(""), Out: res.Out, ErrOut: res.ErrOut},
		Now:  time.Now,
		Args: line,
	}
	root := newRootCmd(f, line)
	t.Cleanup(func() {
		if f.closeConfig != nil {
			assert.NoError(t, f.closeConfig())
		}
	})
	for _, c := range root.Commands() {
		if c.Name() == name {
			root.RemoveCommand(c)
		}
	}
	calls := 0
	cmd := build(f, func(o *O) error {
		calls++
		res.Opts = o
		return nil
	})
	require.Equal(t, name, cmd.Name(), "the constructor builds another command")
	cmdutil.UsageArgs(cmd)
	root.AddCommand(cmd)
	root.SetArgs(line)
	res.Cmd, res.Err = root.ExecuteC()
	require.LessOrEqual(t, calls, 1, "runF ran twice")
	if res.Err == nil && !helpAsked(line) {
		require.NotNil(t, res.Opts, "%v: neither an error nor a run", line)
	}
	if res.Err != nil || helpAsked(line) {
		require.Nil(t, res.Opts, "%v: runF ran although %v", line, res.Err)
	}
	return res
}

// helpAsked reports whether a command line asks for help.
func helpAsked(line []string) bool {
	for _, a := range line {
		switch a {
		case "--":
			return false
		case "-h", "--help":
			return true
		}
	}
	return false
}

// requireUsage asserts that a result is a usage error (exit 2) whose text
// holds each of want, and that nothing ran.
func requireUsage[O any](t *testing.T, r runfResult[O], want ...string) {
	t.Helper()
	require.Error(t, r.Err)
	require.Nil(t, r.Opts)
	require.ErrorIs(t, r.Err, report.ErrUsage)
	code := report.ExitUsage
	if errors.As(r.Err, new(*report.HookLineError)) {
		// A hook's command line: a usage error that never exits as a
		// denial (report.ExitHookLine).
		code = report.ExitHookLine
	}
	require.Equal(t, code, r.Code(), "%v", r.Err)
	for _, w := range want {
		require.Contains(t, r.Err.Error(), w)
	}
}

// requireHelp runs "<name> [sub...] --help" and "-h": the help of the
// command goes to stdout, naming its usage and every one of its flags with
// a description, and nothing runs.
func requireHelp[O any](t *testing.T, name string, sub []string, build func(*Factory, func(*O) error) *cobra.Command) {
	t.Helper()
	for _, h := range []string{"--help", "-h"} {
		r := runfRunIn(t, name, sub, build, h)
		require.NoError(t, r.Err, h)
		help := r.Out.String()
		require.Contains(t, help, "Usage:\n  "+r.Cmd.UseLine(), h)
		desc := r.Cmd.Long
		if desc == "" {
			desc = r.Cmd.Short
		}
		require.Contains(t, help, strings.TrimSpace(desc), h)
		r.Cmd.Flags().VisitAll(func(fl *pflag.Flag) {
			if fl.Hidden {
				return
			}
			require.NotEmpty(t, strings.TrimSpace(fl.Usage), "--%s has no description", fl.Name)
			require.Contains(t, help, "--"+fl.Name, "%s: --%s is missing from the help", h, fl.Name)
		})
		for _, global := range []string{"--json", "--session", "--timeout"} {
			require.Contains(t, help, global, "%s: the global flag %s is missing from the help", h, global)
		}
		require.Empty(t, r.ErrOut.String(), h)
	}
}

// requireCommon runs the checks every command takes: its help, a
// misspelled flag, and — when get is not nil — the root's flags through
// its configuration (see requireGlobals, whose arguments the others are).
func requireCommon[O any](t *testing.T, name string, build func(*Factory, func(*O) error) *cobra.Command,
	get func(*O) func() (*config, error), lenient bool, args ...string) {
	t.Helper()
	runfEnv(t)
	requireHelp(t, name, nil, build)
	requireUnknownFlag(t, name, nil, build)
	if get != nil {
		requireGlobals(t, name, nil, build, get, lenient, args...)
	}
}

// requireUnknownFlag asserts that a misspelled flag is a usage error that
// names it, and that nothing runs.
func requireUnknownFlag[O any](t *testing.T, name string, sub []string, build func(*Factory, func(*O) error) *cobra.Command) {
	t.Helper()
	r := runfRunIn(t, name, sub, build, "--no-such-flag")
	requireUsage(t, r, "unknown flag: --no-such-flag")
}

// runfEnv makes the configuration that an in-process command resolves
// hermetic (clienv.Hermetic) and returns the working directory.
func runfEnv(t *testing.T) string { return clienv.Hermetic(t) }

// config resolves the configuration that a captured options struct would
// run with.
func runfConfig(t *testing.T, get func() (*config, error)) *config {
	t.Helper()
	require.NotNil(t, get, "the options carry no configuration")
	c, err := get()
	require.NoError(t, err)
	return c
}

// The root itself: its flags, its refusals and its help.
func TestRunFRoot(t *testing.T) {
	runfEnv(t)
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		f := &Factory{IO: &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, Now: time.Now}
		return execute(f, args), out.String(), errOut.String()
	}
	code, _, stderr := run()
	require.Equal(t, report.ExitUsage, code)
	require.Contains(t, stderr, "a command is required")

	code, _, stderr = run("aquire", "x")
	require.Equal(t, report.ExitUsage, code)
	require.Contains(t, stderr, `unknown command "aquire"; did you mean "acquire"?`)

	code, _, stderr = run("frobnicate")
	require.Equal(t, report.ExitUsage, code)
	require.Contains(t, stderr, `unknown command "frobnicate"`)
	require.NotContains(t, stderr, "did you mean")

	code, out, _ := run("--version")
	require.Equal(t, report.ExitOK, code)
	require.Equal(t, "agentlock "+moduleVersion()+"\n", out)

	for _, h := range []string{"--help", "-h", "help"} {
		code, out, stderr = run(h)
		require.Equal(t, report.ExitOK, code, h)
		require.Empty(t, stderr, h)
		for _, c := range topLevelCommands() {
			if c.name != "docs" {
				require.Contains(t, out, "\n  "+c.name+" ", "%s lists %s", h, c.name)
			}
		}
		require.NotContains(t, out, "\n  docs ", "docs is hidden")
	}

	// The root's flags may come before the command (the whole tree is
	// built then, see onlyCommand) or after its arguments.
	for _, line := range [][]string{
		{"--session", "s-1", "--json", "acquire", "a.go"},
		{"acquire", "a.go", "--session=s-1", "--json"},
		{"--session-id", "s-1", "acquire", "--json", "a.go"},
	} {
		r := runfRunLine(t, "acquire", newCmdAcquire, line)
		require.NoError(t, r.Err, "%v", line)
		require.Equal(t, []string{"a.go"}, r.Opts.Args, "%v", line)
		c := runfConfig(t, r.Opts.Config)
		require.Equal(t, "s-1", who(t, c).ID, "%v", line)
		require.True(t, c.JSON, "%v", line)
	}

	code, _, stderr = run("status", "--json=maybe")
	require.Equal(t, report.ExitUsage, code)
	require.Contains(t, stderr, `invalid argument "maybe" for "--json" flag`)
	code, _, stderr = run("status", "--session")
	require.Equal(t, report.ExitUsage, code)
	require.Contains(t, stderr, "flag needs an argument: --session")

	code, _, stderr = run("--no-such-flag")
	require.Equal(t, report.ExitUsage, code)
	require.Contains(t, stderr, "unknown flag: --no-such-flag")

	// --json on a line whose flags fail still answers in JSON.
	code, out, _ = run("status", "--json", "--no-such-flag")
	require.Equal(t, report.ExitUsage, code)
	require.Contains(t, out, `"exit_code":2`)
}

// The help command and cobra's completion command, which have no runF:
// help of each command is its --help; a shell completion script is
// printed for each shell, and an unknown shell is a usage error.
func TestRunFHelpAndCompletion(t *testing.T) {
	runfEnv(t)
	run := func(args ...string) (int, string, string) {
		var out, errOut bytes.Buffer
		f := &Factory{IO: &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, Now: time.Now}
		return execute(f, args), out.String(), errOut.String()
	}
	for _, name := range []string{"acquire", "heartbeat-loop", "init", "docs"} {
		code, helpOut, stderr := run("help", name)
		require.Equal(t, report.ExitOK, code, stderr)
		_, dashOut, _ := run(name, "--help")
		require.Equal(t, dashOut, helpOut, name)
	}
	code, rootHelp, _ := run("help")
	require.Equal(t, report.ExitOK, code)
	_, dashRoot, _ := run("--help")
	require.Equal(t, dashRoot, rootHelp)
	// A word that names no command is a usage error, as it is without
	// "help", not the root's page with exit 0.
	code, out, stderr := run("help", "aquire")
	require.Equal(t, report.ExitUsage, code, out)
	require.Contains(t, stderr, `unknown command "aquire"; did you mean "acquire"?`)
	code, _, stderr = run("help", "acquire", "now")
	require.Equal(t, report.ExitUsage, code)
	require.Contains(t, stderr, `"now" is no command of agentlock acquire`)

	for shell, marker := range map[string]string{
		"bash": "# bash completion", "zsh": "#compdef agentlock", "fish": "# fish completion", "powershell": "# powershell completion",
	} {
		code, out, stderr := run("completion", shell)
		require.Equal(t, report.ExitOK, code, "%s: %s", shell, stderr)
		require.Contains(t, strings.ToLower(out), strings.ToLower(marker), shell)
	}
	code, _, stderr = run("completion")
	require.Equal(t, report.ExitUsage, code)
	require.Contains(t, stderr, "a shell is required")
	require.Contains(t, stderr, "usage: agentlock completion bash|zsh|fish|powershell", "the usage line names the shells")
	code, out, _ = run("completion", "bash", "--no-descriptions")
	require.Equal(t, report.ExitOK, code)
	require.Contains(t, out, "# bash completion")
	code, _, stderr = run("completion", "bash", "extra")
	require.Equal(t, report.ExitUsage, code)
	require.Contains(t, stderr, `unknown command "extra" for "agentlock completion bash"`)
	code, _, stderr = run("completion", "tcsh")
	require.Equal(t, report.ExitUsage, code)
	require.Contains(t, stderr, `unknown shell "tcsh"`)
}

// runfCoveredNames are the command paths (without "agentlock") that the
// package's *_runf_test.go files run: the first argument after the test
// of every call of runfRun, runfRunIn and the checks built on them (with
// the subcommand words), whose constructor argument is a newCmdX.
// dir is the package's folder. For each command it returns the string
// literals of the files that run it: the words its flag tests use.
func runfCoveredNames(t *testing.T, dir string) map[string]map[string]bool {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*_runf_test.go"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	covered := map[string]map[string]bool{}
	fset := token.NewFileSet()
	for _, file := range files {
		f, err := parser.ParseFile(fset, file, nil, 0)
		require.NoError(t, err)
		literals := map[string]bool{}
		ast.Inspect(f, func(n ast.Node) bool {
			if s, ok := n.(ast.Expr); ok {
				if v, ok := stringLit(s); ok {
					literals[v] = true
				}
			}
			return true
		})
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			fn := call.Fun
			if ix, ok := fn.(*ast.IndexExpr); ok {
				fn = ix.X
			}
			id, ok := fn.(*ast.Ident)
			if !ok || len(call.Args) < 3 {
				return true
			}
			words := []string{}
			switch id.Name {
			case "runfRun", "requireCommon", "requireHelp", "requireUnknownFlag", "runfRunIn", "requireGlobals":
				top := id.Name == "runfRun" || id.Name == "requireCommon"
				if !top && len(call.Args) < 4 {
					return true
				}
				name, ok := stringLit(call.Args[1])
				if !ok {
					return true
				}
				words = append(words, name)
				if !top {
					// The subcommand words: a []string{...} literal or nil.
					if lit, ok := call.Args[2].(*ast.CompositeLit); ok {
						for _, e := range lit.Elts {
							if w, ok := stringLit(e); ok {
								words = append(words, w)
							}
						}
					}
				}
				// The constructor must be a newCmdX: the seam.
				arg := call.Args[2]
				if !top {
					arg = call.Args[3]
				}
				if c, ok := arg.(*ast.Ident); !ok || !strings.HasPrefix(c.Name, "newCmd") {
					return true
				}
			default:
				return true
			}
			name := strings.Join(words, " ")
			if covered[name] == nil {
				covered[name] = map[string]bool{}
			}
			for l := range literals {
				covered[name][l] = true
			}
			return true
		})
	}
	return covered
}

// flagMentioned reports whether the literals of a command's tests name
// the flag: "--name", "--name=...", or the bare name (a table of flags).
func flagMentioned(literals map[string]bool, name string) bool {
	if literals["--"+name] || literals[name] {
		return true
	}
	for l := range literals {
		if strings.HasPrefix(l, "--"+name+"=") {
			return true
		}
	}
	return false
}

// stringLit is the value of a string literal expression.
func stringLit(e ast.Expr) (string, bool) {
	lit, ok := e.(*ast.BasicLit)
	if !ok || lit.Kind != token.STRING {
		return "", false
	}
	s, err := strconv.Unquote(lit.Value)
	return s, err == nil
}

// Every command of the tree — every top-level command, hidden ones and
// subcommands included — is run by an in-process test through its runF, so
// that the seam stays used: a command added without one fails here. Only
// cobra's help and completion commands, which have no runF, are left to
// TestRunFHelpAndCompletion.
func TestRunFCoversEveryCommand(t *testing.T) {
	pkg, err := os.Getwd()
	require.NoError(t, err)
	runfEnv(t)
	f := &Factory{IO: &IOStreams{In: strings.NewReader(""), Out: &bytes.Buffer{}, ErrOut: &bytes.Buffer{}}, Now: time.Now}
	root := newRootCmd(f, nil)
	root.InitDefaultHelpCmd()
	var tree []string
	var walk func(*cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			path := strings.TrimPrefix(sub.CommandPath(), root.Name()+" ")
			if path == "help" || path == "completion" || strings.HasPrefix(path, "completion ") {
				continue
			}
			tree = append(tree, path)
			walk(sub)
		}
	}
	walk(root)
	require.GreaterOrEqual(t, len(tree), len(topLevelCommands()), "the walk found %v", tree)
	covered := runfCoveredNames(t, pkg)
	var missing, flags []string
	for _, path := range tree {
		if covered[path] == nil {
			missing = append(missing, path)
			continue
		}
		// Each of the command's own flags is named by its tests.
		cmd, _, err := root.Find(strings.Fields(path))
		require.NoError(t, err)
		cmd.LocalNonPersistentFlags().VisitAll(func(fl *pflag.Flag) {
			if fl.Name != "help" && !flagMentioned(covered[path], fl.Name) {
				flags = append(flags, path+" --"+fl.Name)
			}
		})
	}
	sort.Strings(missing)
	require.Empty(t, missing, "commands with no runF test in a *_runf_test.go file (runfRun(t, %q, newCmdX, ...)): add one", "name")
	require.Empty(t, flags, "flags that no runF test of their command names: test them")
	// And no test runs a command the tree does not have.
	inTree := map[string]bool{}
	for _, p := range tree {
		inTree[p] = true
	}
	for name := range covered {
		require.True(t, inTree[name], "a runF test runs %q, which is no command of the tree", name)
	}
	t.Logf("%d commands, each run through its runF", len(tree))
}

// requireGlobals asserts that the command name [sub...] takes the root's
// flags and hands them to its configuration through the options: --session
// (also spelled --session-id, as agent-registry 0.2 did), --timeout and
// --json; and that an invalid --timeout is refused by a strict command (a
// usage error naming the flag) and reported, with the default in its
// place, to a lenient one (hooks, doctor, env, version, whoami). args are
// the positional arguments of a valid line; get returns the options'
// configuration.
func requireGlobals[O any](t *testing.T, name string, sub []string, build func(*Factory, func(*O) error) *cobra.Command,
	get func(*O) func() (*config, error), lenient bool, args ...string) {
	t.Helper()
	runfEnv(t)
	line := append([]string{"--session", "s-1", "--timeout", "30", "--json"}, args...)
	r := runfRunIn(t, name, sub, build, line...)
	require.NoError(t, r.Err, "%v", line)
	c := runfConfig(t, get(r.Opts))
	require.Equal(t, "s-1", who(t, c).ID)
	require.Equal(t, "--session", who(t, c).Source)
	require.Equal(t, 30*time.Second, c.Settings.Timeout)
	require.True(t, c.JSON)

	r = runfRunIn(t, name, sub, build, append([]string{"--session-id=s-2", "--timeout=1m30s"}, args...)...)
	require.NoError(t, r.Err)
	c = runfConfig(t, get(r.Opts))
	require.Equal(t, "s-2", who(t, c).ID)
	require.Equal(t, 90*time.Second, c.Settings.Timeout)
	require.False(t, c.JSON)

	// The defaults: no session known in runfEnv's environment, the
	// default timeout, text output.
	r = runfRunIn(t, name, sub, build, args...)
	require.NoError(t, r.Err)
	c = runfConfig(t, get(r.Opts))
	require.Empty(t, who(t, c).ID)
	require.Equal(t, 120*time.Second, c.Settings.Timeout)
	require.False(t, c.JSON)

	t.Setenv("AGENTLOCK_SESSION", "env-1")
	t.Setenv("AGENTLOCK_TIMEOUT", "45")
	r = runfRunIn(t, name, sub, build, args...)
	require.NoError(t, r.Err)
	c = runfConfig(t, get(r.Opts))
	require.Equal(t, "env-1", who(t, c).ID)
	require.Equal(t, "AGENTLOCK_SESSION", who(t, c).Source)
	require.Equal(t, 45*time.Second, c.Settings.Timeout)
	r = runfRunIn(t, name, sub, build, append([]string{"--session", "s-3", "--timeout", "50"}, args...)...)
	require.NoError(t, r.Err)
	c = runfConfig(t, get(r.Opts))
	require.Equal(t, "s-3", who(t, c).ID, "--session wins over AGENTLOCK_SESSION")
	require.Equal(t, 50*time.Second, c.Settings.Timeout, "--timeout wins over AGENTLOCK_TIMEOUT")

	for _, bad := range []string{"-5", "abc", "NaN", "1e30", "0"} {
		r = runfRunIn(t, name, sub, build, append([]string{"--timeout", bad}, args...)...)
		require.NoError(t, r.Err, "the flag is read with the configuration, not by the parser")
		c, err := get(r.Opts)()
		if lenient {
			require.NoError(t, err, "--timeout %s", bad)
			require.NotEmpty(t, c.Problems, "--timeout %s", bad)
			require.Contains(t, c.Problems[0].Error(), "--timeout")
			require.Equal(t, 120*time.Second, c.Settings.Timeout, "the default stands in")
		} else {
			require.Error(t, err, "--timeout %s", bad)
			require.Equal(t, report.ExitUsage, report.ExitCode(err))
			require.Contains(t, err.Error(), `--timeout="`+bad+`" is invalid`)
		}
	}
	requireUsage(t, runfRunIn(t, name, sub, build, append(args, "--timeout")...), "flag needs an argument: --timeout")
	runfEnv(t) // AGENTLOCK_SESSION and AGENTLOCK_TIMEOUT unset again
}
