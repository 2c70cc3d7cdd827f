package main_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// fileCall is one file system call strace saw: its name, the path it
// named, and whether it did not follow a final symbolic link (an lstat).
type fileCall struct {
	name, path string
	nofollow   bool
}

// straceFiles runs agentlock args (stdin its input) in p under strace and
// returns the file system calls of every thread, in no order.
func straceFiles(t *testing.T, p *project, stdin string, args ...string) []fileCall {
	t.Helper()
	strace := proctest.Need(t, "strace", "the count of file system calls did not run (.ci/run installs strace)")
	out := filepath.Join(t.TempDir(), "trace")
	// -ff: one file per thread, so that no call is split across lines.
	sargs := append([]string{"-ff", "-qq", "-o", out, "-e", "trace=%file", harness(t).Bin}, args...)
	r := proctest.Run(t, strace, proctest.Cmd{Args: sargs, Env: p.env, Dir: p.dir, Stdin: stdin})
	if strings.Contains(r.Stderr, "ptrace") && strings.Contains(r.Stderr, "Operation not permitted") {
		proctest.Unavailable(t, "strace cannot trace here: %s", r.Stderr)
	}
	requireExit(t, 0, r)
	files, err := filepath.Glob(out + ".*")
	require.NoError(t, err)
	require.NotEmpty(t, files, "strace wrote no trace")
	line := regexp.MustCompile(`^(\w+)\((?:AT_FDCWD, )?"([^"]*)"`)
	var calls []fileCall
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, l := range strings.Split(string(data), "\n") {
			if m := line.FindStringSubmatch(l); m != nil {
				calls = append(calls, fileCall{name: m[1], path: m[2], nofollow: strings.Contains(l, "AT_SYMLINK_NOFOLLOW")})
			}
		}
	}
	return calls
}

// count is how many calls match.
func count(calls []fileCall, match func(fileCall) bool) int {
	n := 0
	for _, c := range calls {
		if match(c) {
			n++
		}
	}
	return n
}

// A command works its path facts out once (issue 33): the real path of
// the user's home, the project of each path, the repository-scope and
// shared-home records of the project, the real path of the path it is
// given. A lock call used to ask each of them two to eight times (215 file
// system calls for one acquire, 97 at 3c11506, by the count of that time).
// Counted with strace in a real acquire, release and pre-edit hook, whose
// home is several folders deep as everywhere: counts, never times.
func TestPathFactsOncePerCommand(t *testing.T) {
	p := newProject(t)
	requireExit(t, 0, p.run("init", "--agent", "claude"))
	home := ""
	for _, kv := range p.env {
		if v, ok := strings.CutPrefix(kv, "HOME="); ok {
			home = v
		}
	}
	require.NotEmpty(t, home)
	file := filepath.Join(p.dir, "src", "file.go")
	commands := []struct {
		name  string
		stdin string
		args  []string
	}{
		{"acquire", "", []string{"acquire", file, "--session", "s1"}},
		{"release", "", []string{"release", file, "--session", "s1"}},
		{"pre-edit hook", claudeEdit("c1", p.dir, file), []string{"hook", "claude", "pre-edit"}},
	}
	for _, c := range commands {
		calls := straceFiles(t, p, c.stdin, c.args...)
		lstat := func(path string) func(fileCall) bool {
			return func(fc fileCall) bool { return fc.name == "newfstatat" && fc.nofollow && fc.path == path }
		}
		opened := func(path string) func(fileCall) bool {
			return func(fc fileCall) bool { return fc.name == "openat" && fc.path == path }
		}
		// The user's home is resolved (filepath.EvalSymlinks, an lstat of
		// each of its folders) once: it marks no project by its
		// .agent-registry alone, wherever a walk up meets it.
		assert.LessOrEqual(t, count(calls, lstat(home)), 1, "%s: the user's home resolved more than once", c.name)
		// The repository scope (.git/agentlock/store) and the shared home
		// (.agent-registry/home) of the project: read once.
		assert.LessOrEqual(t, count(calls, opened(filepath.Join(p.dir, ".git", "agentlock", "store"))), 1,
			"%s: the repository-scope store file read more than once", c.name)
		assert.LessOrEqual(t, count(calls, opened(filepath.Join(p.dir, ".agent-registry", "home"))), 1,
			"%s: the shared-home record read more than once", c.name)
		// The path's real path (core.RealPath: an lstat of each part, its
		// folder's included) is resolved once, by the session service, the
		// engine and the stale-write check together. The file itself is
		// looked at once more where a lock is taken (the read version's
		// digest of it, filedigest.Of) or an edit checked (is it a symbolic
		// link?): its folder's lstats count the resolutions.
		assert.LessOrEqual(t, count(calls, lstat(filepath.Dir(file))), 1, "%s: the path resolved more than once", c.name)
		assert.LessOrEqual(t, count(calls, lstat(file)), 2, "%s: the path looked at more than twice", c.name)
		// The project of the path is searched once by the command, and
		// once by the hand-over check that runs before it (a store
		// configured for the path's project hands the command over to
		// agentlock-etcd): src/ is looked at twice at most.
		assert.LessOrEqual(t, count(calls, lstat(filepath.Join(p.dir, "src", ".git"))), 2,
			"%s: the project of the path searched more than twice", c.name)
		assert.LessOrEqual(t, count(calls, func(fc fileCall) bool { return fc.name == "getcwd" }), 2,
			"%s: the working directory asked for more than twice", c.name)
	}
}
