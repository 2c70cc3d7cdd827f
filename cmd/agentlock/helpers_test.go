package main_test

// Helpers of the Go tests. Every child runs through proctest: hermetic (an
// environment built here, with a HOME and TMPDIR of the test's own) and
// bounded (a deadline on every process).

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// installed finds agentlock and the barrier, installed on PATH by TestMain.
var installed = sync.OnceValues(func() (*proctest.Harness, error) {
	return proctest.Installed("agentlock")
})

// harness returns the agentlock harness.
func harness(t testing.TB) *proctest.Harness {
	t.Helper()
	h, err := installed()
	require.NoError(t, err)
	return h
}

// sandbox is one test's world: a project folder (a git work tree, for the
// default home rule), a lock directory given by AGENT_REGISTRY_LOCK_DIR, and
// a HOME and TMPDIR of its own.
type sandbox struct {
	t       *testing.T
	root    string // temporary folder holding everything
	project string // a project folder inside root, with a .git entry
	locks   string // the lock directory
	env     []string
}

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	root := realTempDir(t)
	s := &sandbox{t: t, root: root, project: filepath.Join(root, "project"), locks: filepath.Join(root, "locks")}
	require.NoError(t, os.MkdirAll(filepath.Join(s.project, ".git"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(s.project, "src"), 0o755))
	s.env = hermeticEnv(t, root, "AGENT_REGISTRY_LOCK_DIR="+s.locks)
	return s
}

// realTempDir is t.TempDir with its symbolic links resolved, as agentlock
// reports paths.
func realTempDir(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	return root
}

// hermeticEnv is the whole environment of a child: a HOME and TMPDIR made
// in root, then extra.
func hermeticEnv(t *testing.T, root string, extra ...string) []string {
	t.Helper()
	home, tmp := filepath.Join(root, "home"), filepath.Join(root, "tmp")
	require.NoError(t, os.MkdirAll(home, 0o700))
	require.NoError(t, os.MkdirAll(tmp, 0o700))
	return proctest.Env(home, tmp, extra...)
}

// cmd describes an agentlock invocation from the project folder.
func (s *sandbox) cmd(args ...string) proctest.Cmd {
	return proctest.Cmd{Args: args, Env: s.env, Dir: s.project}
}

// run runs agentlock once from the project folder, as a separate process.
func (s *sandbox) run(args ...string) proctest.Result {
	s.t.Helper()
	return harness(s.t).Run(s.t, s.cmd(args...))
}

// runIn runs agentlock once from dir.
func (s *sandbox) runIn(dir string, args ...string) proctest.Result {
	s.t.Helper()
	c := s.cmd(args...)
	c.Dir = dir
	return harness(s.t).Run(s.t, c)
}

// start starts agentlock from the project folder without waiting for it.
func (s *sandbox) start(args ...string) *proctest.Proc {
	s.t.Helper()
	return proctest.Start(s.t, harness(s.t).Bin, s.cmd(args...))
}

// path returns the absolute path of a project file.
func (s *sandbox) path(rel string) string { return filepath.Join(s.project, rel) }

// lockFile returns where the lock of a real path lives.
func (s *sandbox) lockFile(realPath string) string {
	return filepath.Join(s.locks, lockName(realPath))
}

// lockName is the name of the lock file of a real path, computed here
// independently of agentlock: SHA-256 of the path, 16 hex digits, ".lock".
func lockName(realPath string) string {
	sum := sha256.Sum256([]byte(realPath))
	return hex.EncodeToString(sum[:])[:16] + ".lock"
}

// onDisk reads the owner and timestamp recorded for a real path, "" when
// free or missing.
func (s *sandbox) onDisk(realPath string) (owner string, stamp float64) {
	s.t.Helper()
	data, err := os.ReadFile(s.lockFile(realPath))
	if os.IsNotExist(err) || len(data) == 0 {
		return "", 0
	}
	require.NoError(s.t, err)
	parts := strings.SplitN(string(data), "|", 3)
	require.Len(s.t, parts, 3, "lock file content %q", data)
	require.Equal(s.t, realPath, parts[2], "lock file records its real path")
	stamp, err = strconv.ParseFloat(parts[1], 64)
	require.NoError(s.t, err)
	return parts[0], stamp
}

// plant writes a lock file as another agent-registry process would.
func (s *sandbox) plant(realPath, content string) {
	s.t.Helper()
	require.NoError(s.t, os.MkdirAll(s.locks, 0o755))
	require.NoError(s.t, os.WriteFile(s.lockFile(realPath), []byte(content), 0o644))
}

// record returns a 0.2 lock record for owner renewed age ago.
func record(owner string, age time.Duration, realPath string) string {
	ts := float64(time.Now().Add(-age).UnixNano()) / 1e9
	return fmt.Sprintf("%s|%.6f|%s", owner, ts, realPath)
}

// jsonLines decodes the JSON lines a command printed.
func jsonLines(t *testing.T, r proctest.Result) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &m), "stdout line %q of %s", line, r)
		out = append(out, m)
	}
	return out
}

// oneJSON decodes the single JSON line a command printed.
func oneJSON(t *testing.T, r proctest.Result) map[string]any {
	t.Helper()
	lines := jsonLines(t, r)
	require.Len(t, lines, 1, "%s", r)
	return lines[0]
}

// raceRounds is how many times a race is repeated: enough to make a lucky
// pass unlikely, fewer under -short.
func raceRounds() int {
	if testing.Short() {
		return 5
	}
	return 50
}

// requireExit fails the test when r did not exit with code.
func requireExit(t *testing.T, code int, r proctest.Result) {
	t.Helper()
	require.Equal(t, code, r.Code, "%s", r)
}

// project is a fresh git work tree with the default home rule (no
// AGENT_REGISTRY_* variables) and a HOME of its own for user-scope files.
type project struct {
	t    *testing.T
	dir  string
	home string
	env  []string
}

func newProject(t *testing.T) *project {
	t.Helper()
	root := realTempDir(t)
	p := &project{t: t, dir: filepath.Join(root, "repo"), home: filepath.Join(root, "home")}
	require.NoError(t, os.MkdirAll(filepath.Join(p.dir, ".git"), 0o755))
	p.env = hermeticEnv(t, root)
	return p
}

func (p *project) run(args ...string) proctest.Result {
	p.t.Helper()
	return p.runEnv(nil, args...)
}

// runEnv runs agentlock from the project with extra environment.
func (p *project) runEnv(env []string, args ...string) proctest.Result {
	p.t.Helper()
	return harness(p.t).Run(p.t, proctest.Cmd{Args: args, Env: append(append([]string{}, p.env...), env...), Dir: p.dir})
}

func (p *project) write(rel, content string) {
	p.t.Helper()
	path := filepath.Join(p.dir, rel)
	require.NoError(p.t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(p.t, os.WriteFile(path, []byte(content), 0o644))
}

func (p *project) read(rel string) string {
	p.t.Helper()
	data, err := os.ReadFile(filepath.Join(p.dir, rel))
	require.NoError(p.t, err)
	return string(data)
}

// owner is the session holding a project file's lock, "" when free.
func (p *project) owner(rel string) string {
	p.t.Helper()
	if len(teamStore(p.t)) > 0 {
		r := p.run("check", rel, "--json", "--session", "owner-probe")
		for _, rec := range jsonLines(p.t, r) {
			// The path's own record, not an area's around it (via).
			if owner, _ := rec["session_id"].(string); owner != "" && rec["locked"] == true && rec["via"] == nil {
				return owner
			}
		}
		return ""
	}
	data, err := os.ReadFile(filepath.Join(p.dir, ".agent-registry", "locks", lockName(filepath.Join(p.dir, rel))))
	if os.IsNotExist(err) || len(data) == 0 {
		return ""
	}
	require.NoError(p.t, err)
	return strings.SplitN(string(data), "|", 2)[0]
}

// python3 returns the interpreter, or skips the test loudly when absent.
func python3(t *testing.T) string {
	t.Helper()
	return proctest.Need(t, "python3", "the cross-language compatibility check did not run")
}

// hookCommand is the first command of a harness's hook event in the JSON
// settings file rel that init wrote (Claude's and Gemini's shape).
func (p *project) hookCommand(rel, event string) string {
	p.t.Helper()
	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string } `json:"hooks"`
		} `json:"hooks"`
	}
	require.NoError(p.t, json.Unmarshal([]byte(p.read(rel)), &settings), rel)
	require.NotEmpty(p.t, settings.Hooks[event], "%s has no %s hook", rel, event)
	require.NotEmpty(p.t, settings.Hooks[event][0].Hooks, "%s has no %s hook", rel, event)
	return settings.Hooks[event][0].Hooks[0].Command
}

// oneWinner returns the index of the one process of a race round that
// exited 0, and fails the test when none or two did.
func oneWinner(t *testing.T, round int, results []proctest.Result) int {
	t.Helper()
	winner := -1
	for i, r := range results {
		if r.Code == 0 {
			require.Equal(t, -1, winner, "round %d: two winners, s-%d and s-%d:\n%s\n%s", round, winner, i, results[max(winner, 0)], r)
			winner = i
		}
	}
	require.NotEqual(t, -1, winner, "round %d: nobody won", round)
	return winner
}
