//go:build etcd

package main_test

// The etcd store through the command line, in real processes: two
// checkouts of one repository at different paths stand for two machines
// sharing one cluster, started by the test (embedded etcd).

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/etcdtest"
	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// etcdTeam is two checkouts ("machines") of one repository on one cluster.
type etcdTeam struct {
	t       *testing.T
	cluster *etcdtest.Cluster
	a, b    string // the checkouts' roots
	env     []string
}

// newEtcdTeam starts a cluster of members and two checkouts whose origin
// remotes name one repository in two spellings.
func newEtcdTeam(t *testing.T, members int, timeout string, query ...string) *etcdTeam {
	t.Helper()
	c := etcdtest.Start(t, members)
	root := realTempDir(t)
	team := &etcdTeam{t: t, cluster: c, a: filepath.Join(root, "machine-a", "repo"), b: filepath.Join(root, "machine-b", "work", "repo")}
	for dir, url := range map[string]string{team.a: "git@example.com:Org/Repo.git", team.b: "https://example.com/Org/Repo"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
		require.NoError(t, os.MkdirAll(filepath.Join(dir, "src"), 0o755))
		cfg := fmt.Sprintf("[core]\n\tbare = false\n[remote \"origin\"]\n\turl = %s\n", url)
		require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", "config"), []byte(cfg), 0o644))
	}
	prefix := strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())
	url := c.URL(prefix)
	if len(query) > 0 {
		url += "?" + strings.Join(query, "&")
	}
	team.env = hermeticEnv(t, root, "AGENTLOCK_STORE="+url, "AGENTLOCK_TIMEOUT="+timeout)
	return team
}

func (e *etcdTeam) cmd(dir string, args ...string) proctest.Cmd {
	return proctest.Cmd{Args: args, Env: e.env, Dir: dir}
}

func (e *etcdTeam) run(dir string, args ...string) proctest.Result {
	e.t.Helper()
	return harness(e.t).Run(e.t, e.cmd(dir, args...))
}

func TestEtcdOneWinnerPerRoundAcrossTwoCheckouts(t *testing.T) {
	e := newEtcdTeam(t, 1, "30")
	const procs = 16
	rounds := 20
	if testing.Short() {
		rounds = 3
	}
	for round := range rounds {
		var cmds []proctest.Cmd
		for i := range procs {
			dir := e.a
			if i%2 == 1 {
				dir = e.b
			}
			cmds = append(cmds, e.cmd(dir, "acquire", "src/shared.go", "--session", fmt.Sprintf("r%d-s%d", round, i)))
		}
		results := harness(t).Race(t, cmds)
		winners := 0
		var winner proctest.Result
		for _, r := range results {
			switch r.Code {
			case 0:
				winners++
				winner = r
			case 1:
				require.Contains(t, r.Stderr, "is locked by", "%s", r)
			default:
				t.Fatalf("round %d: exit %d: %s", round, r.Code, r)
			}
		}
		require.Equal(t, 1, winners, "round %d: exactly one winner", round)
		requireExit(t, 0, e.run(winner.Cmd.Dir, "release", "src/shared.go", "--session", winner.Cmd.Args[3]))
	}
}

func TestEtcdSemanticsAcrossCheckouts(t *testing.T) {
	e := newEtcdTeam(t, 1, "30")
	requireExit(t, 0, e.run(e.a, "acquire", "src/a.go", "src/b.go", "--session", "alice"))
	// The same lock, seen from the other checkout with its own paths.
	r := e.run(e.b, "check", "src/a.go", "--json", "--session", "bob")
	requireExit(t, 1, r)
	rec := jsonLines(t, r)[0]
	require.Equal(t, true, rec["locked"], "%v", rec)
	require.Equal(t, "alice", rec["session_id"], "%v", rec)
	require.Equal(t, filepath.Join(e.b, "src/a.go"), rec["path"], "%v", rec)
	// All or nothing: c is free, a is held.
	requireExit(t, 1, e.run(e.b, "acquire", "src/c.go", "src/a.go", "--session", "bob"))
	r = e.run(e.b, "status", "--json")
	requireExit(t, 0, r)
	require.Len(t, jsonLines(t, r), 2, "%s", r)
	requireExit(t, 1, e.run(e.b, "release", "src/a.go", "--session", "bob"))
	requireExit(t, 1, e.run(e.b, "heartbeat", "src/a.go", "--session", "bob"))
	requireExit(t, 0, e.run(e.a, "heartbeat", "src/a.go", "--session", "alice"))
	// The registry is shared: alice registers on A, B's registry.md shows her.
	requireExit(t, 0, e.run(e.a, "register", "--session", "alice", "--provider", "test", "--working-on", "auth"))
	r = e.run(e.b, "show", "--json")
	requireExit(t, 0, r)
	require.Contains(t, r.Stdout, `"alice"`, "%s", r)
	data, err := os.ReadFile(filepath.Join(e.b, ".agent-registry", "registry.md"))
	require.NoError(t, err, "B's registry.md is written from the cluster's")
	require.Contains(t, string(data), "alice")
	require.Contains(t, string(data), "PROTOCOL:START")
	// Areas (issue 15): alice's area over her own files; bob is refused
	// a file inside it from the other checkout.
	requireExit(t, 0, e.run(e.a, "acquire", "src/", "--session", "alice"))
	r = e.run(e.b, "acquire", "src/c.go", "--session", "bob")
	requireExit(t, 1, r)
	require.Contains(t, r.Stderr, filepath.Join(e.b, "src")+"/", "the area is named, at B's path: %s", r)
	requireExit(t, 0, e.run(e.a, "release", "src/", "--session", "alice"))
	// finish releases by prefix range, from either checkout.
	requireExit(t, 0, e.run(e.b, "finish", "--session", "alice"))
	r = e.run(e.a, "acquire", "src/a.go", "--session", "bob", "--json")
	requireExit(t, 0, r)
}

func TestEtcdKilledOwnerFreesWithinTheTimeout(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a lease to expire")
	}
	e := newEtcdTeam(t, 1, "1")
	requireExit(t, 0, e.run(e.a, "acquire", "src/x.go", "--session", "victim"))
	// The victim's renewer, killed with SIGKILL mid-wait: nothing renews
	// the lease any more.
	p := proctest.Start(t, harness(t).Bin, e.cmd(e.a, "acquire", "--wait", "20s", "src/x.go", "--session", "victim-2"))
	time.Sleep(100 * time.Millisecond)
	require.NoError(t, p.Signal(os.Kill))
	p.Wait(t)
	r := e.run(e.b, "acquire", "--wait", "4s", "src/x.go", "--session", "heir", "--json")
	requireExit(t, 0, r)
	rec := jsonLines(t, r)[0]
	require.Equal(t, "victim", rec["stale_owner"], "%v", rec)
	// The victim's next renewal says it lost the lock.
	r = e.run(e.a, "heartbeat", "src/x.go", "--session", "victim")
	requireExit(t, 1, r)
}

func TestEtcdRestartKeepsLocksAndFailsInFlightCleanly(t *testing.T) {
	e := newEtcdTeam(t, 1, "60", "dial-timeout=700ms")
	requireExit(t, 0, e.run(e.a, "acquire", "src/x.go", "--session", "holder"))
	waiting := proctest.Start(t, harness(t).Bin, e.cmd(e.b, "acquire", "--wait", "20s", "src/x.go", "--session", "waiter"))
	time.Sleep(300 * time.Millisecond)
	m := e.cluster.Members[0]
	m.Stop()
	r := waiting.Wait(t)
	requireExit(t, 3, r)
	require.Contains(t, r.Stderr, m.ClientURL.Host, "the error names the endpoint")
	r = e.run(e.b, "acquire", "src/y.go", "--session", "waiter")
	requireExit(t, 3, r)
	require.Contains(t, r.Stderr, m.ClientURL.Host)
	// The pre-edit hook denies while the store is down.
	payload := fmt.Sprintf(`{"session_id":"hooked","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":%q,"content":"x"}}`,
		e.b, filepath.Join(e.b, "src/z.go"))
	require.NoError(t, os.MkdirAll(filepath.Join(e.b, ".agent-registry"), 0o700))
	c := e.cmd(e.b, "hook", "claude", "pre-edit")
	c.Stdin = payload
	r = harness(t).Run(t, c)
	require.Contains(t, r.Stdout, `"deny"`, "%s", r)
	m.Restart(t)
	r = e.run(e.b, "acquire", "src/x.go", "--session", "waiter")
	requireExit(t, 1, r)
	require.Contains(t, r.Stderr, "holder", "the lock survived the restart")
}

func TestEtcdClusterServesWithOneMemberDown(t *testing.T) {
	e := newEtcdTeam(t, 3, "30")
	e.cluster.Members[0].Stop()
	requireExit(t, 0, e.run(e.a, "acquire", "src/x.go", "--session", "alice"))
	requireExit(t, 1, e.run(e.b, "acquire", "src/x.go", "--session", "bob"))
	requireExit(t, 0, e.run(e.a, "release", "src/x.go", "--session", "alice"))
	requireExit(t, 0, e.run(e.b, "acquire", "src/x.go", "--session", "bob"))
}

func TestEtcdDoctorChecksTheStore(t *testing.T) {
	e := newEtcdTeam(t, 1, "30", "dial-timeout=700ms")
	r := e.run(e.a, "doctor", "--json")
	got := map[string]string{}
	for _, rec := range jsonLines(t, r) {
		name, _ := rec["name"].(string)
		status, _ := rec["status"].(string)
		got[name] = status
	}
	require.Equal(t, "ok", got["store-reachable"], "%s", r)
	require.Equal(t, "ok", got["store-lease"], "%s", r)
	require.Equal(t, "ok", got["store-clock"], "%s", r)
	require.Contains(t, r.Stdout, "etcd 3.7", "the version is reported")

	e.cluster.Members[0].Stop()
	r = e.run(e.a, "doctor", "--json")
	requireExit(t, 1, r)
	require.Contains(t, r.Stdout, `"name":"store-reachable","status":"problem"`, "%s", r)
}

// TestEtcdPathDecidesTheStoreFromOutsideTheCheckout: commands and the
// pre-edit hook run outside the checkout, on absolute paths inside it, use
// the checkout's etcd (its store file), not lock files (issue 23).
func TestEtcdPathDecidesTheStoreFromOutsideTheCheckout(t *testing.T) {
	c := etcdtest.Start(t, 1)
	root, checkout, outside := storeCheckout(t, c.URL("outside"))
	env := hermeticEnv(t, root, "AGENTLOCK_TIMEOUT=30")
	run := func(dir string, args ...string) proctest.Result {
		return harness(t).Run(t, proctest.Cmd{Args: args, Env: env, Dir: dir})
	}
	file := filepath.Join(checkout, "src", "f.py")
	requireExit(t, 0, run(checkout, "acquire", "src/f.py", "--session", "alice"))
	r := run(outside, "acquire", file, "--session", "bob")
	requireExit(t, 1, r)
	require.Contains(t, r.Stderr, "alice", "%s", r)
	r = run(outside, "check", file, "--session", "bob", "--json")
	requireExit(t, 1, r)
	require.Equal(t, "alice", jsonLines(t, r)[0]["session_id"], "%s", r)
	r = run(outside, "release", file, "--session", "bob")
	requireExit(t, 1, r)
	require.NotContains(t, r.Stdout+r.Stderr, "not locked", "%s", r)

	payload := fmt.Sprintf(`{"session_id":"hooked","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":%q,"content":"x"}}`,
		outside, file)
	r = harness(t).Run(t, proctest.Cmd{Args: []string{"hook", "claude", "pre-edit"}, Env: env, Dir: outside, Stdin: payload})
	require.Contains(t, r.Stdout, `"deny"`, "%s", r)
	require.Contains(t, r.Stdout, "alice", "%s", r)

	// A lock taken from outside is the checkout's.
	other := filepath.Join(checkout, "src", "g.py")
	requireExit(t, 0, run(outside, "acquire", other, "--session", "bob"))
	r = run(checkout, "check", "src/g.py", "--session", "carol", "--json")
	requireExit(t, 1, r)
	require.Equal(t, "bob", jsonLines(t, r)[0]["session_id"], "%s", r)
	_, err := os.Stat(filepath.Join(checkout, ".agent-registry", "locks"))
	require.True(t, os.IsNotExist(err), "no lock file was written in the checkout")
}

// TestEtcdRepoIDIgnoresCaseOnGitHub: https://github.com/Acme/API and
// git@github.com:acme/api.git are one repository, one lock space; doctor
// and status name it (issue 23).
func TestEtcdRepoIDIgnoresCaseOnGitHub(t *testing.T) {
	c := etcdtest.Start(t, 1)
	root := realTempDir(t)
	a, b := filepath.Join(root, "a"), filepath.Join(root, "b")
	for dir, url := range map[string]string{a: "https://github.com/Acme/API", b: "git@github.com:acme/api.git"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", "config"), []byte("[remote \"origin\"]\n\turl = "+url+"\n"), 0o644))
	}
	env := hermeticEnv(t, root, "AGENTLOCK_STORE="+c.URL("case"), "AGENTLOCK_TIMEOUT=30")
	run := func(dir string, args ...string) proctest.Result {
		return harness(t).Run(t, proctest.Cmd{Args: args, Env: env, Dir: dir})
	}
	requireExit(t, 0, run(a, "acquire", "f.go", "--session", "alice"))
	r := run(b, "acquire", "f.go", "--session", "bob")
	requireExit(t, 1, r)
	require.Contains(t, r.Stderr, "alice", "%s", r)
	r = run(b, "status")
	requireExit(t, 0, r)
	require.Contains(t, r.Stdout, "repository github.com/acme/api", "%s", r)
	r = run(b, "doctor", "--json")
	require.Contains(t, r.Stdout, `"name":"store-repo"`, "%s", r)
	require.Contains(t, r.Stdout, "github.com/acme/api", "%s", r)
}

// TestEtcdRemoteAcquireReachesTheDashboard: a lock taken through another
// checkout (another machine) reaches the event stream of a dashboard
// served on this one, through the store's change feed (issue 23: the
// dashboard watched the local lock folder, which on etcd never changes).
// With no lock held before, nothing else makes the server read the store
// again, so the event comes from the feed or not at all: the wait is
// bounded only to name a feed that never delivers, not to time it.
func TestEtcdRemoteAcquireReachesTheDashboard(t *testing.T) {
	e := newEtcdTeam(t, 1, "30")
	serve, lines := serveEvents(t, e.cmd(e.a))
	requireExit(t, 0, e.run(e.b, "acquire", "src/remote.go", "--session", "far-away"))
	awaitEvent(t, serve, lines, "far-away", 10*time.Second)
}
