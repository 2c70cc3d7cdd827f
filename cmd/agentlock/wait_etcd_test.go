//go:build etcd

package main_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
	"github.com/agentlock/agentlock/store/etcdstore"
)

// teamClient is a client of e's cluster and e's key prefix, for a test to
// read what the processes wrote.
func teamClient(t *testing.T, e *etcdTeam) (*clientv3.Client, string) {
	t.Helper()
	cfg, err := etcdstore.ParseURL(e.cluster.URL(strings.NewReplacer("/", "-", " ", "-").Replace(t.Name())))
	require.NoError(t, err)
	conn := etcdstore.NewConn(cfg)
	t.Cleanup(func() { conn.Close() })
	cli, err := conn.Client()
	require.NoError(t, err)
	return cli, cfg.Prefix
}

// until polls f every 20 ms until it returns true; the test fails, saying
// what, after limit (a deadline, not a measure).
func until(t *testing.T, limit time.Duration, what string, f func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !f() {
		if time.Now().After(deadline) {
			t.Fatalf("not within %s: %s", limit, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestEtcdWaitersAreServedInArrivalOrder: waiters started one after
// another behind a held lock, from two checkouts ("machines"), get it in
// the order they came, as etcd's Mutex serves its waiters; a waiter killed
// in the line keeps the others waiting no longer than its place's lease
// (issue 23: the first waiter was overtaken by 13 of 15 later ones).
func TestEtcdWaitersAreServedInArrivalOrder(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a killed waiter's place in line to expire")
	}
	e := newEtcdTeam(t, 1, "60")
	cli, prefix := teamClient(t, e)
	count := func(under string) int64 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		resp, err := cli.Get(ctx, prefix+under, clientv3.WithPrefix(), clientv3.WithCountOnly())
		require.NoError(t, err)
		return resp.Count
	}
	owner := func() string {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		resp, err := cli.Get(ctx, prefix+"/locks/", clientv3.WithPrefix())
		require.NoError(t, err)
		if len(resp.Kvs) != 1 {
			return ""
		}
		session, _, _ := strings.Cut(string(resp.Kvs[0].Value), "|")
		return session
	}
	requireExit(t, 0, e.run(e.a, "acquire", "src/x.go", "--session", "holder"))
	const waiters, victim = 6, 2
	procs := make([]*proctest.Proc, waiters)
	for i := range waiters {
		dir := e.a
		if i%2 == 1 {
			dir = e.b
		}
		procs[i] = proctest.Start(t, harness(t).Bin, e.cmd(dir, "acquire", "--wait", "60s", "src/x.go", "--session", fmt.Sprintf("w%d", i)))
		// The next one starts once this one stands in line.
		until(t, 20*time.Second, fmt.Sprintf("w%d in line", i), func() bool { return count("/queue/") == int64(i+1) })
	}
	require.NoError(t, procs[victim].Signal(os.Kill))
	procs[victim].Wait(t)

	holder := "holder"
	var order []string
	for range waiters - 1 {
		requireExit(t, 0, e.run(e.a, "release", "src/x.go", "--session", holder))
		// Well within the waiters' --wait (60 s): the killed waiter's place
		// expires after 5 s.
		until(t, 30*time.Second, "a waiter takes the lock "+holder+" released", func() bool {
			o := owner()
			return o != "" && o != holder
		})
		holder = owner()
		order = append(order, holder)
	}
	want := []string{"w0", "w1", "w3", "w4", "w5"}
	violations := 0
	for i := range want {
		if order[i] != want[i] {
			violations++
		}
	}
	require.Equal(t, 0, violations, "order of service %v, want %v", order, want)
	for i, p := range procs {
		if i != victim {
			requireExit(t, 0, p.Wait(t))
		}
	}
	until(t, 10*time.Second, "the line empty once everyone was served", func() bool { return count("/queue/") == 0 })
}

// TestEtcdNobodyOvertakesAWaiter: a path freed while a waiter stands in
// line goes to that waiter, not to a one-shot acquire nor to an agent's
// edit that comes later: both are refused, saying who goes first. (The
// waiter is stopped, SIGSTOP, so that it cannot take the lock before the
// others try; its place outlives the stop by its lease, 5 s.)
func TestEtcdNobodyOvertakesAWaiter(t *testing.T) {
	e := newEtcdTeam(t, 1, "60")
	cli, prefix := teamClient(t, e)
	queued := func() bool {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		resp, err := cli.Get(ctx, prefix+"/queue/", clientv3.WithPrefix(), clientv3.WithCountOnly())
		require.NoError(t, err)
		return resp.Count == 1
	}
	requireExit(t, 0, e.run(e.a, "acquire", "src/x.go", "--session", "holder"))
	waiter := proctest.Start(t, harness(t).Bin, e.cmd(e.b, "acquire", "--wait", "60s", "src/x.go", "--session", "patient"))
	until(t, 20*time.Second, "the waiter in line", queued)
	require.NoError(t, waiter.Signal(syscall.SIGSTOP))
	requireExit(t, 0, e.run(e.a, "release", "src/x.go", "--session", "holder"))

	r := e.run(e.a, "acquire", "src/x.go", "--session", "hasty")
	requireExit(t, 1, r)
	require.Contains(t, r.Stderr, "patient has been waiting for it", "%s", r)
	// The hook gates the files of a project set up for agentlock.
	require.NoError(t, os.MkdirAll(filepath.Join(e.a, ".agent-registry"), 0o755))
	file := filepath.Join(e.a, "src", "x.go")
	payload := fmt.Sprintf(`{"session_id":"editor","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":%q,"content":"x"}}`, e.a, file)
	r = harness(t).Run(t, proctest.Cmd{Args: []string{"hook", "claude", "pre-edit"}, Env: e.env, Dir: e.a, Stdin: payload})
	require.Contains(t, r.Stdout, `"deny"`, "%s", r)
	require.Contains(t, r.Stdout, "patient", "%s", r)
	require.True(t, queued(), "the refusals came while the waiter still stood in line (its lease is 5 s)")

	require.NoError(t, waiter.Signal(syscall.SIGCONT))
	requireExit(t, 0, waiter.Wait(t))
	r = e.run(e.a, "check", "src/x.go", "--session", "hasty", "--json")
	requireExit(t, 1, r)
	require.Equal(t, "patient", jsonLines(t, r)[0]["session_id"], "%s", r)
}
