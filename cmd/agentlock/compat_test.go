package main_test

// On-disk compatibility with agent-registry 0.2 (and the 0.1.0 lock format):
// fixtures written byte for byte in those formats, and real python3
// processes contending with agentlock for the same locks.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/proctest"
)

func TestReadsAgentRegistry02LockFile(t *testing.T) {
	s := newSandbox(t)
	target := s.path("src/auth.py")
	// What lock_manager.py 0.2 writes: sid|time.time()|realpath, no newline.
	s.plant(target, fmt.Sprintf("claude-111|%.7f|%s", float64(time.Now().UnixNano())/1e9, target))
	r := s.run("acquire", "--json", "src/auth.py", "kimi-222")
	requireExit(t, 1, r)
	assert.Equal(t, "claude-111", oneJSON(t, r)["session_id"])
	requireExit(t, 0, s.run("release", "src/auth.py", "claude-111"))
}

func TestReadsAgentRegistry010LockFile(t *testing.T) {
	s := newSandbox(t)
	target := s.path("src/auth.py")
	// 0.1.0 wrote sid|timestamp without the path.
	s.plant(target, fmt.Sprintf("claude-111|%.6f", float64(time.Now().UnixNano())/1e9))
	r := s.run("check", "--json", "src/auth.py")
	requireExit(t, 1, r) // held by a session other than the (absent) caller
	rec := oneJSON(t, r)
	assert.Equal(t, "locked", rec["state"])
	assert.Equal(t, "claude-111", rec["owner"])
	requireExit(t, 1, s.run("acquire", "src/auth.py", "kimi-222"))

	s.plant(target, fmt.Sprintf("claude-111|%d", time.Now().Add(-time.Hour).Unix()))
	r = s.run("acquire", "--json", "src/auth.py", "kimi-222")
	requireExit(t, 0, r)
	assert.Equal(t, "claude-111", oneJSON(t, r)["stale_owner"])
	owner, _ := s.onDisk(target) // rewritten in the 0.2 form, with the path
	assert.Equal(t, "kimi-222", owner)
}

func TestWritesAgentRegistry02Format(t *testing.T) {
	s := newSandbox(t)
	requireExit(t, 0, s.run("acquire", "src/auth.py", "agent-a"))
	data, err := os.ReadFile(s.lockFile(s.path("src/auth.py")))
	require.NoError(t, err)
	assert.Regexp(t, `^agent-a\|\d+\.\d+\|`+regexpQuote(s.path("src/auth.py"))+`$`, string(data))
}

func regexpQuote(s string) string {
	return strings.NewReplacer(".", `\.`, "/", `/`).Replace(s)
}

// pyLockManager is the lock protocol of agent-registry 0.2's lock_manager.py
// (flock on the lock file only around a read-modify-write of its content,
// file named by sha256(realpath)[:16]), reduced to acquire and check.
const pyLockManager = `
import fcntl, hashlib, json, os, sys, time

def lock_file(lock_dir, path):
    real = os.path.realpath(path)
    name = hashlib.sha256(real.encode("utf-8")).hexdigest()[:16] + ".lock"
    return real, os.path.join(lock_dir, name)

def acquire(lock_dir, path, sid, timeout=120.0):
    os.makedirs(lock_dir, exist_ok=True)
    real, lf = lock_file(lock_dir, path)
    fd = os.open(lf, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        content = os.pread(fd, 65536, 0).decode("utf-8").strip()
        stale_owner = None
        if content:
            parts = content.split("|", 2)
            owner, ts = parts[0], float(parts[1])
            if owner != sid:
                if time.time() - ts <= timeout:
                    return {"locked": False, "session_id": owner, "age": time.time() - ts}
                stale_owner = owner
        data = f"{sid}|{time.time()}|{real}".encode("utf-8")
        os.pwrite(fd, data, 0)
        os.ftruncate(fd, len(data))
        return {"locked": True, "owner": sid, "stale_owner": stale_owner}
    finally:
        os.close(fd)

def check(lock_dir, path):
    real, lf = lock_file(lock_dir, path)
    try:
        fd = os.open(lf, os.O_RDONLY)
    except FileNotFoundError:
        return {"locked": False, "path": real}
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
        content = os.pread(fd, 65536, 0).decode("utf-8").strip()
    finally:
        os.close(fd)
    if not content:
        return {"locked": False, "path": real}
    parts = content.split("|", 2)
    return {"locked": True, "session_id": parts[0], "path": parts[2] if len(parts) > 2 else None,
            "age": time.time() - float(parts[1])}

cmd, lock_dir, path = sys.argv[1:4]
if cmd == "acquire":
    res = acquire(lock_dir, path, sys.argv[4])
    print(json.dumps(res))
    sys.exit(0 if res["locked"] else 1)
print(json.dumps(check(lock_dir, path)))
`

func TestPythonAndGoReadEachOthersLocks(t *testing.T) {
	py := python3(t)
	s := newSandbox(t)
	script := filepath.Join(s.root, "lock_manager.py")
	require.NoError(t, os.WriteFile(script, []byte(pyLockManager), 0o644))
	pyRun := func(args ...string) proctest.Result {
		return proctest.Run(t, py, proctest.Cmd{Args: append([]string{script}, args...), Env: s.env, Dir: s.project})
	}

	// Python takes a lock; Go sees it and is refused.
	requireExit(t, 0, pyRun("acquire", s.locks, "src/py.py", "python-agent"))
	r := s.run("acquire", "--json", "src/py.py", "go-agent")
	requireExit(t, 1, r)
	assert.Equal(t, "python-agent", oneJSON(t, r)["session_id"])

	// Go takes a lock; Python sees it, with the same real path, and is refused.
	requireExit(t, 0, s.run("acquire", "src/go.py", "go-agent"))
	r = pyRun("check", s.locks, "src/go.py")
	rec := oneJSON(t, r)
	assert.Equal(t, "go-agent", rec["session_id"])
	assert.Equal(t, s.path("src/go.py"), rec["path"])
	requireExit(t, 1, pyRun("acquire", s.locks, "src/go.py", "python-agent"))
}

func TestPythonAndGoProcessesRaceForOneLock(t *testing.T) {
	py := python3(t)
	s := newSandbox(t)
	script := filepath.Join(s.root, "lock_manager.py")
	require.NoError(t, os.WriteFile(script, []byte(pyLockManager), 0o644))
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
		assert.Equal(t, strings.TrimSpace(want.Stdout), oneJSON(t, got)["path"], "realpath of %q", c)
	}
}
