package compattest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// childTimeout is every child process's deadline: far above what any of
// them needs on a loaded machine, far below a hung test's cost.
const childTimeout = 30 * time.Second

var (
	// harness runs agentlock, built once by TestMain.
	harness *proctest.Harness
	// child is the command that gives racers their environment and deadline.
	child string
	// python is the real python3 interpreter with PyYAML; "" when missing,
	// and pythonMissing says why.
	python, pythonMissing string
	// pythonFast are the interpreter's arguments and environment that skip
	// site's start-up work (.pth files can import whole packages: 60 ms a
	// process here) while still finding PyYAML; empty when that does not
	// work.
	pythonFast []string
	pythonPath string
	// fixture is agent-registry 0.2's re-implementation.
	fixture string
)

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "agentlock-compattest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	var bin string
	bin, err = build("github.com/agentlock/agentlock/cmd/agentlock", filepath.Join(dir, "agentlock"))
	if err == nil {
		harness = &proctest.Harness{Bin: bin}
		child, err = build("./child", filepath.Join(dir, "child"))
	}
	if err == nil {
		fixture, err = filepath.Abs(filepath.Join("testdata", "agent_registry_02.py"))
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	python, pythonMissing = findPython()
	if python != "" {
		pythonFast, pythonPath = fastPython()
	}
	return m.Run()
}

// build builds agentlock or a helper, the same on every machine
// (proctest.GoBuild): a build step, not a process under test.
func build(pkg, out string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if err := proctest.GoBuild(ctx, out, pkg); err != nil {
		return "", fmt.Errorf("build %s: %w", pkg, err)
	}
	return out, nil
}

// findPython returns the interpreter that python3 on PATH really is (a
// version manager's shim needs the developer's environment; the
// interpreter itself does not), checking that it has PyYAML, which
// agent-registry 0.2 needs. Only PATH and the version managers' variables
// are passed to the probe.
func findPython() (string, string) {
	shim, err := exec.LookPath("python3")
	if err != nil {
		return "", "python3 is not on PATH"
	}
	env := []string{"PYTHONDONTWRITEBYTECODE=1"}
	for _, k := range []string{"PATH", "HOME", "PYENV_ROOT", "PYENV_VERSION", "VIRTUAL_ENV", "CONDA_PREFIX"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), childTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, shim, "-c", "import sys, yaml; print(sys.executable)")
	cmd.Env = env
	out, err := cmd.Output()
	exe := strings.TrimSpace(string(out))
	if err != nil || !filepath.IsAbs(exe) {
		return "", fmt.Sprintf("%s cannot import yaml (PyYAML, which agent-registry 0.2 needs): %v", shim, err)
	}
	return exe, ""
}

// fastPython returns "-S" and the folder holding PyYAML for PYTHONPATH,
// when the interpreter finds PyYAML that way.
func fastPython() ([]string, string) {
	probe := func(env []string, args ...string) (string, bool) {
		ctx, cancel := context.WithTimeout(context.Background(), childTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, python, args...)
		cmd.Env = env
		out, err := cmd.Output()
		return strings.TrimSpace(string(out)), err == nil
	}
	dir, ok := probe([]string{"PYTHONDONTWRITEBYTECODE=1"}, "-c", "import os, yaml; print(os.path.dirname(os.path.dirname(yaml.__file__)))")
	if !ok || !filepath.IsAbs(dir) {
		return nil, ""
	}
	if _, ok := probe([]string{"PYTHONDONTWRITEBYTECODE=1", "PYTHONPATH=" + dir}, "-S", "-c", "import yaml"); !ok {
		return nil, ""
	}
	return []string{"-S"}, dir
}

// needPython skips the test, saying why, when python3 or PyYAML is
// missing (fails it under CI=true: proctest.Unavailable).
func needPython(t *testing.T) {
	t.Helper()
	if python == "" {
		proctest.Unavailable(t, "%s; the agent-registry 0.2 compatibility test did not run", pythonMissing)
	}
}

// rounds is how many times a race is repeated: n, or a quarter under -short.
func rounds(n int) int {
	if testing.Short() {
		return max(n/4, 2)
	}
	return n
}

// sandbox is one test's machine: a user home, a project (a git work tree)
// and the environment every process of the test gets — nothing of the
// developer's.
type sandbox struct {
	t       *testing.T
	root    string
	home    string // HOME: agent-registry 0.2's default home is under it
	project string
	env     []string // the variables of both implementations, besides HOME and PATH
}

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	s := &sandbox{t: t, root: root, home: filepath.Join(root, "home"), project: filepath.Join(root, "project")}
	for _, d := range []string{s.home, filepath.Join(s.project, ".git"), filepath.Join(s.project, "src")} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	return s
}

// sharedByEnv points both implementations at one registry and lock folder
// through the variables both read, and returns them.
func (s *sandbox) sharedByEnv() (registry, locks string) {
	registry, locks = filepath.Join(s.root, "state", "registry.md"), filepath.Join(s.root, "state", "locks")
	s.env = append(s.env, "AGENT_REGISTRY_PATH="+registry, "AGENT_REGISTRY_LOCK_DIR="+locks)
	return registry, locks
}

// environ is the whole environment of a child process.
func (s *sandbox) environ(extra ...string) []string {
	env := []string{"HOME=" + s.home, "PATH=/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE=1", "PYTHONUTF8=1"}
	if pythonPath != "" {
		env = append(env, "PYTHONPATH="+pythonPath)
	}
	return append(append(env, s.env...), extra...)
}

// result is what one process did.
type result struct {
	args         []string
	code         int
	stdout       string
	stderr       string
	programLabel string
}

func (r result) String() string {
	return fmt.Sprintf("%s %q: exit %d\nstdout: %s\nstderr: %s", r.programLabel, r.args, r.code, r.stdout, r.stderr)
}

// run runs prog with args in the project, with the sandbox's environment
// and a deadline, and waits for it.
func (s *sandbox) run(label, prog string, args ...string) result {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), childTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Env = s.environ()
	cmd.Dir = s.project
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	r := result{args: args, stdout: stdout.String(), stderr: stderr.String(), programLabel: label}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		s.t.Fatalf("%s %q: no exit after %s", label, args, childTimeout)
	case errors.As(err, &exit):
		r.code = exit.ExitCode()
	case err != nil:
		s.t.Fatalf("%s %q: %v", label, args, err)
	}
	return r
}

// al runs agentlock.
func (s *sandbox) al(args ...string) result {
	s.t.Helper()
	return s.run("agentlock", harness.Bin, args...)
}

// py runs the agent-registry 0.2 fixture.
func (s *sandbox) py(args ...string) result {
	s.t.Helper()
	return s.run("agent-registry 0.2", python, pyArgs(args...)...)
}

// pyArgs are the interpreter's arguments that run the fixture with args.
func pyArgs(args ...string) []string {
	return append(append(append([]string{}, pythonFast...), fixture), args...)
}

// raceCmd is one racer: the 0.2 fixture, or agentlock started after delay.
func (s *sandbox) raceCmd(py bool, delay time.Duration, args ...string) proctest.Cmd {
	prog := []string{harness.Bin}
	if py {
		prog, delay = append([]string{python}, pyArgs()...), 0
	}
	env := s.environ()
	a := append([]string{childTimeout.String(), delay.String(), strconv.Itoa(len(env))}, env...)
	return proctest.Cmd{Program: child, Args: append(append(a, prog...), args...), Env: s.environ(), Dir: s.project}
}

// pyStart measures how long one 0.2 process takes from its start to its
// exit, here and now (the machine may be busy): the scale of the delays
// that make agentlock's racers meet 0.2's.
func (s *sandbox) pyStart() time.Duration {
	s.t.Helper()
	s.py("check", "src/warm-up") // first run: caches cold
	start := time.Now()
	requireExit(s.t, 0, s.py("check", "src/warm-up"))
	return time.Since(start)
}

// sweep is agentlock's delay in round of n: from none, ahead of every 0.2
// process, to twice a 0.2 process's run, behind the first of eight that
// start together. Across the rounds the two kinds of process meet at the
// contended file.
func sweep(round, n int, py time.Duration) time.Duration {
	if n < 2 {
		return 0
	}
	return 2 * py * time.Duration(round) / time.Duration(n-1)
}

// race starts every command behind one barrier, agentlock and 0.2 alike,
// and returns their results in order.
func (s *sandbox) race(cmds []proctest.Cmd) []result {
	s.t.Helper()
	var out []result
	for _, r := range harness.Race(s.t, cmds) {
		require.NotEqual(s.t, 124, r.Code, "a racer hit its deadline: %s", r)
		require.NotEqual(s.t, 125, r.Code, "a racer could not start: %s", r)
		out = append(out, result{args: r.Cmd.Args, code: r.Code, stdout: r.Stdout, stderr: r.Stderr, programLabel: "racer"})
	}
	return out
}

func requireExit(t *testing.T, code int, r result, why ...string) {
	t.Helper()
	require.Equal(t, code, r.code, "%s%s", strings.Join(why, " "), r)
}

// oneJSON decodes a single JSON record from stdout.
func oneJSON(t *testing.T, r result) map[string]any {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(strings.TrimSpace(r.stdout)), &m), "%s", r)
	return m
}

// frontmatter is the registry as the 0.2 fixture reads it, with the order
// of its keys.
type frontmatter struct {
	Frontmatter map[string]any `json:"frontmatter"`
	Order       struct {
		Top    []string   `json:"top"`
		Agents [][]string `json:"agents"`
		Todo   [][]string `json:"todo"`
	} `json:"order"`
}

// dump reads the registry with the 0.2 fixture.
func (s *sandbox) dump() frontmatter {
	s.t.Helper()
	r := s.py("dump")
	requireExit(s.t, 0, r)
	var fm frontmatter
	require.NoError(s.t, json.Unmarshal([]byte(r.stdout), &fm), "%s", r)
	return fm
}

// session returns a session as the 0.2 fixture reads it, and its index.
func (fm frontmatter) session(t *testing.T, id string) (map[string]any, int) {
	t.Helper()
	agents, _ := fm.Frontmatter["agents"].([]any)
	for i, a := range agents {
		if m, ok := a.(map[string]any); ok && m["session_id"] == id {
			return m, i
		}
	}
	t.Fatalf("session %q not in the registry as 0.2 reads it: %v", id, fm.Frontmatter)
	return nil, 0
}

// show reads the sessions with agentlock, by id.
func (s *sandbox) show() map[string]map[string]any {
	s.t.Helper()
	r := s.al("show", "--json")
	requireExit(s.t, 0, r)
	out := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		require.NoError(s.t, json.Unmarshal([]byte(line), &m), "%s", r)
		out[m["session_id"].(string)] = m
	}
	return out
}
