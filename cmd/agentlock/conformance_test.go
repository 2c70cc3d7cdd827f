package main_test

// The conformance suite of the lock stores (issue 23): the same test
// functions, run as real agentlock processes, against every backend this
// build has — the lock files, and in the etcd build an etcd started by the
// test. A backend passes when agents cannot tell which one they use.

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// backend is one store under test: a checkout made on it and the
// environment of its processes.
type backend struct {
	name string
	// open makes a checkout at dir on the store (a prefix of the test's
	// own) and returns the environment of its processes, timeout the
	// locks' staleness timeout.
	open func(t *testing.T, root, dir, timeout string) []string
	// corrupt plants an unreadable record for the real path path.
	corrupt func(t *testing.T, dir, path string)
}

// filesBackend is the lock files.
var filesBackend = backend{
	name: "files",
	open: func(t *testing.T, root, dir, timeout string) []string {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, ".agent-registry", "locks"), 0o700))
		return hermeticEnv(t, root, "AGENTLOCK_TIMEOUT="+timeout)
	},
	corrupt: func(t *testing.T, dir, path string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, ".agent-registry", "locks", lockName(path)), []byte("garbage without fields"), 0o600))
	},
}

// conformance is one checkout on a backend.
type conformance struct {
	t   *testing.T
	b   backend
	dir string
	env []string
}

func (c *conformance) cmd(args ...string) proctest.Cmd {
	return proctest.Cmd{Args: args, Env: c.env, Dir: c.dir}
}

func (c *conformance) run(args ...string) proctest.Result {
	c.t.Helper()
	return harness(c.t).Run(c.t, c.cmd(args...))
}

// newConformance makes a checkout on b.
func newConformance(t *testing.T, b backend, timeout string) *conformance {
	t.Helper()
	root := realTempDir(t)
	dir := filepath.Join(root, "repo")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "src", "area"), 0o755))
	return &conformance{t: t, b: b, dir: dir, env: b.open(t, root, dir, timeout)}
}

func TestConformance(t *testing.T) {
	for _, b := range conformanceBackends(t) {
		t.Run(b.name, func(t *testing.T) {
			for _, tc := range []struct {
				name string
				fn   func(t *testing.T, b backend)
			}{
				{"race", conformRace},
				{"stale-takeover", conformStaleTakeover},
				{"areas", conformAreas},
				{"renewal", conformRenewal},
				{"finish", conformFinish},
				{"corrupt", conformCorrupt},
				{"change-feed", conformChangeFeed},
				{"dashboard-feed", conformDashboardFeed},
				{"hook-lifetime", conformHookLifetime},
			} {
				t.Run(tc.name, func(t *testing.T) { tc.fn(t, b) })
			}
		})
	}
}

// conformRace: processes behind a barrier race for one path; exactly one
// wins each round, the others are told who holds it.
func conformRace(t *testing.T, b backend) {
	c := newConformance(t, b, "30")
	rounds := 5
	if testing.Short() {
		rounds = 2
	}
	for round := range rounds {
		var cmds []proctest.Cmd
		for i := range 8 {
			cmds = append(cmds, c.cmd("acquire", "src/shared.go", "--session", fmt.Sprintf("r%d-s%d", round, i)))
		}
		winners := 0
		var winner string
		for _, r := range harness(t).Race(t, cmds) {
			switch r.Code {
			case 0:
				winners++
				winner = r.Cmd.Args[3]
			case 1:
				require.Contains(t, r.Stderr, "is locked by", "%s", r)
			default:
				t.Fatalf("round %d: %s", round, r)
			}
		}
		require.Equal(t, 1, winners, "round %d", round)
		requireExit(t, 0, c.run("release", "src/shared.go", "--session", winner))
	}
}

// conformStaleTakeover: a lock its owner stopped renewing is taken over
// once the timeout passed, and its previous owner reported.
func conformStaleTakeover(t *testing.T, b backend) {
	if testing.Short() {
		t.Skip("waits for a lock to go stale")
	}
	c := newConformance(t, b, "1")
	requireExit(t, 0, c.run("acquire", "src/x.go", "--session", "gone"))
	requireExit(t, 1, c.run("acquire", "src/x.go", "--session", "heir"))
	time.Sleep(2500 * time.Millisecond)
	r := c.run("acquire", "src/x.go", "--session", "heir", "--json")
	requireExit(t, 0, r)
	require.Equal(t, "gone", oneJSON(t, r)["stale_owner"], "%s", r)
}

// conformAreas: an area excludes another session's paths inside it, and
// an area over another session's file is refused.
func conformAreas(t *testing.T, b backend) {
	c := newConformance(t, b, "30")
	requireExit(t, 0, c.run("acquire", "src/area/", "--session", "alice"))
	r := c.run("acquire", "src/area/f.go", "--session", "bob")
	requireExit(t, 1, r)
	require.Contains(t, r.Stderr, "alice", "%s", r)
	requireExit(t, 0, c.run("acquire", "src/area/f.go", "--session", "alice"))
	requireExit(t, 0, c.run("acquire", "src/b.go", "--session", "bob"))
	requireExit(t, 1, c.run("acquire", "src/", "--session", "alice"))
	requireExit(t, 0, c.run("release", "src/area/", "src/area/f.go", "--session", "alice"))
	requireExit(t, 0, c.run("acquire", "src/area/f.go", "--session", "bob"))
}

// conformRenewal: renewing a session keeps its locks past the timeout.
func conformRenewal(t *testing.T, b backend) {
	if testing.Short() {
		t.Skip("renews across a timeout")
	}
	c := newConformance(t, b, "2")
	requireExit(t, 0, c.run("acquire", "src/a.go", "src/b.go", "--session", "alice"))
	for range 3 {
		time.Sleep(time.Second)
		requireExit(t, 0, c.run("heartbeat", "--all", "--session", "alice"))
	}
	for _, p := range []string{"src/a.go", "src/b.go"} {
		r := c.run("acquire", p, "--session", "bob")
		requireExit(t, 1, r)
		require.Contains(t, r.Stderr, "alice", "%s", r)
	}
}

// conformFinish: finish releases every lock of the session, and no other.
func conformFinish(t *testing.T, b backend) {
	c := newConformance(t, b, "30")
	requireExit(t, 0, c.run("register", "--session", "alice", "--provider", "test", "--working-on", "conformance"))
	requireExit(t, 0, c.run("acquire", "src/a.go", "src/area/", "--session", "alice"))
	requireExit(t, 0, c.run("acquire", "src/b.go", "--session", "bob"))
	requireExit(t, 0, c.run("finish", "--session", "alice"))
	requireExit(t, 0, c.run("acquire", "src/a.go", "src/area/x.go", "--session", "carol"))
	requireExit(t, 1, c.run("acquire", "src/b.go", "--session", "carol"))
}

// conformCorrupt: a record that cannot be read, written just now, is no
// free lock: acquire refuses (exit 3) naming it, status shows it, and a
// person clears it with release --force.
func conformCorrupt(t *testing.T, b backend) {
	c := newConformance(t, b, "30")
	path := filepath.Join(c.dir, "src", "c.go")
	c.b.corrupt(t, c.dir, path)
	r := c.run("acquire", "src/c.go", "--session", "alice")
	requireExit(t, 3, r)
	require.Contains(t, r.Stderr, "corrupt", "%s", r)
	r = c.run("status", "--json")
	require.Contains(t, r.Stdout, `"state":"corrupt"`, "%s", r)
	requireExit(t, 0, c.run("release", "--force", "src/c.go"))
	requireExit(t, 0, c.run("acquire", "src/c.go", "--session", "alice"))
}

// conformChangeFeed: a waiter is woken by the release it waits for and
// takes the lock (it would otherwise wait for its whole --wait).
func conformChangeFeed(t *testing.T, b backend) {
	c := newConformance(t, b, "30")
	requireExit(t, 0, c.run("acquire", "src/x.go", "--session", "holder"))
	waiter := proctest.Start(t, harness(t).Bin, c.cmd("acquire", "--wait", "20s", "src/x.go", "--session", "waiter"))
	waiter.WaitStderr(t, "waiting up to", 10*time.Second)
	requireExit(t, 0, c.run("release", "src/x.go", "--session", "holder"))
	r := waiter.Wait(t)
	requireExit(t, 0, r)
	r = c.run("check", "src/x.go", "--session", "other", "--json")
	requireExit(t, 1, r)
	require.Equal(t, "waiter", oneJSON(t, r)["session_id"], "%s", r)
}

// conformDashboardFeed: an acquire made by another process reaches the
// event stream of a dashboard through the store's change feed. With no
// lock held, nothing else makes the server read the store again (no lock
// to expire), so the event comes from the feed or not at all.
func conformDashboardFeed(t *testing.T, b backend) {
	if testing.Short() {
		t.Skip("starts a server and waits for its events")
	}
	c := newConformance(t, b, "30")
	serve, lines := serveEvents(t, c.cmd())
	requireExit(t, 0, c.run("acquire", "src/fed.go", "--session", "far-away"))
	awaitEvent(t, serve, lines, "far-away", 10*time.Second)
}

// serveEvents starts a read-only dashboard as cmd says (its Args are
// replaced), opens its event stream, and returns the server and the
// stream's lines once the stream's greeting arrived.
func serveEvents(t *testing.T, cmd proctest.Cmd) (*proctest.Proc, <-chan string) {
	t.Helper()
	cmd.Args = []string{"serve", "--addr", "127.0.0.1:0", "--read-only"}
	serve := proctest.Start(t, harness(t).Bin, cmd)
	serve.WaitStderr(t, "serving the dashboard", 10*time.Second)
	link := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`).FindString(serve.Stderr())
	require.NotEmpty(t, link, serve.Stderr())
	client := &http.Client{Timeout: 30 * time.Second}
	stream, err := client.Get(link + "api/events")
	require.NoError(t, err)
	t.Cleanup(func() { stream.Body.Close() })
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(stream.Body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	for line := range lines {
		if strings.HasPrefix(line, ": agentlock dashboard") {
			break
		}
	}
	return serve, lines
}

// awaitEvent waits up to within for a line of the stream naming what,
// then stops the server.
func awaitEvent(t *testing.T, serve *proctest.Proc, lines <-chan string, what string, within time.Duration) {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case line, ok := <-lines:
			require.True(t, ok, "the stream ended")
			if strings.Contains(line, what) {
				require.NoError(t, serve.Signal(syscall.SIGTERM))
				serve.Wait(t)
				return
			}
		case <-deadline:
			t.Fatalf("%s did not reach the dashboard within %s: %s", what, within, serve.Stderr())
		}
	}
}
