package main_test

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/proctest"
)

// harness runs the agentlock binary under test, built once by TestMain.
var harness *proctest.Harness

// configVars are the variables agentlock reads; the tests clear them so that
// the developer's own settings cannot leak in.
var configVars = []string{
	"AGENT_REGISTRY_LOCK_DIR", "AGENT_REGISTRY_PATH", "AGENT_REGISTRY_HOME",
	"AGENTLOCK_SESSION", "AGENTLOCK_TIMEOUT",
	// The harnesses' session ids: a test run inside an agent must not inherit its session.
	"CLAUDE_CODE_SESSION_ID", "CODEX_THREAD_ID", "GEMINI_SESSION_ID",
}

func TestMain(m *testing.M) {
	os.Exit(testMain(m))
}

func testMain(m *testing.M) int {
	dir, err := os.MkdirTemp("", "agentlock-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	harness, err = proctest.New(".", dir, "agentlock")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	for _, v := range configVars {
		os.Unsetenv(v)
	}
	// A home of its own, so that nothing falls back to the real ~/.agent-registry.
	home := filepath.Join(dir, "home")
	if err := os.Mkdir(home, 0o700); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	os.Setenv("HOME", home)
	return m.Run()
}

// sandbox is one test's world: a project folder (a git work tree, for the
// default home rule) and a lock directory given by AGENT_REGISTRY_LOCK_DIR.
type sandbox struct {
	t       *testing.T
	root    string // temporary folder holding everything
	project string // a project folder inside root, with a .git entry
	locks   string // the lock directory
	env     []string
}

func newSandbox(t *testing.T) *sandbox {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	s := &sandbox{t: t, root: root, project: filepath.Join(root, "project"), locks: filepath.Join(root, "locks")}
	require.NoError(t, os.MkdirAll(filepath.Join(s.project, ".git"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(s.project, "src"), 0o755))
	s.env = []string{"AGENT_REGISTRY_LOCK_DIR=" + s.locks}
	return s
}

// cmd describes an agentlock invocation from the project folder.
func (s *sandbox) cmd(args ...string) proctest.Cmd {
	return proctest.Cmd{Args: args, Env: s.env, Dir: s.project}
}

// run runs agentlock once from the project folder, as a separate process.
func (s *sandbox) run(args ...string) proctest.Result {
	s.t.Helper()
	return proctest.Run(s.t, harness.Bin, s.cmd(args...))
}

// runIn runs agentlock once from dir.
func (s *sandbox) runIn(dir string, args ...string) proctest.Result {
	s.t.Helper()
	c := s.cmd(args...)
	c.Dir = dir
	return proctest.Run(s.t, harness.Bin, c)
}

// path returns the absolute path of a project file.
func (s *sandbox) path(rel string) string { return filepath.Join(s.project, rel) }

// lockFile returns where the lock of a real path lives, computed here
// independently of agentlock: SHA-256 of the path, 16 hex digits, ".lock".
func (s *sandbox) lockFile(realPath string) string {
	return lockFileIn(s.locks, realPath)
}

func lockFileIn(dir, realPath string) string {
	sum := sha256.Sum256([]byte(realPath))
	return filepath.Join(dir, hex.EncodeToString(sum[:])[:16]+".lock")
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
