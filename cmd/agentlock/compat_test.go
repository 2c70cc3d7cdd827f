package main_test

// On-disk compatibility with agent-registry 0.2 that a script cannot say:
// real python3 processes racing agentlock for the same lock, and Python's
// realpath compared with agentlock's on many paths. The fixtures in those
// formats are the scripts in testdata/script/compat.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/txtar"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// lockManagerScript holds lock_manager.py: the lock protocol of
// agent-registry 0.2 (flock on the lock file only around a read-modify-write
// of its content, file named by sha256(realpath)[:16]), reduced to acquire
// and check.
const lockManagerScript = "testdata/script/compat/compat_python_and_go_read_each_other.txtar"

// writeLockManager writes lock_manager.py into dir and returns its path.
func writeLockManager(t *testing.T, dir string) string {
	t.Helper()
	a, err := txtar.ParseFile(lockManagerScript)
	require.NoError(t, err)
	for _, f := range a.Files {
		if f.Name == "lock_manager.py" {
			path := filepath.Join(dir, f.Name)
			require.NoError(t, os.WriteFile(path, f.Data, 0o644))
			return path
		}
	}
	t.Fatalf("%s holds no lock_manager.py", lockManagerScript)
	return ""
}

func TestPythonAndGoProcessesRaceForOneLock(t *testing.T) {
	py := python3(t)
	s := newSandbox(t)
	script := writeLockManager(t, s.root)
	rounds := max(raceRounds()/5, 2)
	for round := range rounds {
		target := fmt.Sprintf("src/mixed%d.py", round)
		var cmds []proctest.Cmd
		for i := range 8 {
			cmds = append(cmds, s.cmd("acquire", "--json", target, fmt.Sprintf("go-%d", i)))
			cmds = append(cmds, proctest.Cmd{Program: py, Args: []string{script, "acquire", s.locks, target, fmt.Sprintf("py-%d", i)},
				Env: s.env, Dir: s.project})
		}
		// Both kinds start behind the same barrier.
		var winners []string
		for _, r := range harness(t).Race(t, cmds) {
			if rec := oneJSON(t, r); rec["locked"] == true {
				winners = append(winners, rec["owner"].(string))
			}
		}
		require.Len(t, winners, 1, "round %d: one winner among Go and Python processes", round)
		owner, _ := s.onDisk(s.path(target))
		require.Equal(t, winners[0], owner)
	}
}

func TestRealPathMatchesPython(t *testing.T) {
	py := python3(t)
	s := newSandbox(t)
	root := s.root
	mustMkdir := func(p string) { require.NoError(t, os.MkdirAll(filepath.Join(root, p), 0o755)) }
	mustLink := func(target, link string) { require.NoError(t, os.Symlink(target, filepath.Join(root, link))) }
	mustMkdir("a/b/c")
	mustMkdir("x/y")
	mustLink(filepath.Join(root, "a/b"), "abs-link")
	mustLink("a/b/c", "rel-link")
	mustLink("../x/y", "a/up-link")
	mustLink("loop2", "loop1")
	mustLink("loop1", "loop2")
	mustLink("missing/target", "dangling")

	cases := []string{
		"a/b/c/file.go", "./a/./b//c/file.go", "a/b/../b/c/file.go",
		"abs-link/c/file.go", "abs-link/../file.go", "rel-link/../../file.go",
		"a/up-link/file.go", "a/up-link/../file.go", "does/not/exist/../file.go",
		"loop1/file.go", "dangling/file.go", "a/b/c/new/../../file.go", "..", ".",
		filepath.Join(root, "abs-link/c/../c/file.go"),
	}
	for _, c := range cases {
		want := proctest.Run(t, py, proctest.Cmd{Args: []string{"-c", "import os,sys; print(os.path.realpath(sys.argv[1]))", c}, Env: s.env, Dir: root})
		requireExit(t, 0, want)
		got := s.runIn(root, "check", "--json", c)
		requireExit(t, 0, got)
		real := strings.TrimSpace(want.Stdout)
		if info, err := os.Stat(real); err == nil && info.IsDir() {
			real += "/" // an existing folder names its area (issue 15)
		}
		assert.Equal(t, real, oneJSON(t, got)["path"], "realpath of %q", c)
	}
}
