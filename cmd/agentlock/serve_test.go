package main_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/proctest"
)

// A port already taken is a clear error naming the address, and the
// command to choose another.
func TestServePortTaken(t *testing.T) {
	p := newProject(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	r := p.run("serve", "--addr", ln.Addr().String())
	requireExit(t, 3, r)
	assert.Contains(t, r.Stderr, "cannot serve on "+ln.Addr().String()+": the port is taken")
	assert.Contains(t, r.Stderr, "--addr host:port")
}

// SIGINT and SIGTERM stop the server gracefully: open event streams end,
// the exit code is 0.
func TestServeStopsOnSignal(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the server in real time")
	}
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		p := newProject(t)
		requireExit(t, 0, p.run("init"))
		serve := proctest.Start(t, harness(t).Bin, proctest.Cmd{Args: []string{"serve", "--addr", "127.0.0.1:0", "--read-only"}, Env: p.env, Dir: p.dir})
		serve.WaitStderr(t, "serving the dashboard", 10*time.Second)
		link := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`).FindString(serve.Stderr())
		require.NotEmpty(t, link)
		client := &http.Client{Timeout: 10 * time.Second}
		stream, err := client.Get(link + "api/events") // an open event stream
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, stream.StatusCode)
		require.NoError(t, serve.Signal(sig))
		r := serve.Wait(t)
		stream.Body.Close()
		requireExit(t, 0, r)
		assert.Contains(t, r.Stderr, "dashboard stopped", "%s", sig)
	}
}

// Releases from the page race takeovers by agents: separate `agentlock
// acquire` processes and releases posted to a real `agentlock serve` (by
// curl processes), all behind one barrier, on one stale lock. Exactly one
// agent ends up with the lock, the page releases at most once, and only
// the stale owner's lock: never the lock an agent just took.
func TestServeReleaseRacesTakeovers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server per round")
	}
	curl := proctest.Need(t, "curl", "it posts releases from separate processes")
	rounds := max(raceRounds()/10, 3)
	for round := range rounds {
		p := newProject(t)
		requireExit(t, 0, p.run("init"))
		stale := filepath.Join(p.dir, "src", "x.go")
		locks := filepath.Join(p.dir, ".agent-registry", "locks")
		require.NoError(t, os.WriteFile(filepath.Join(locks, lockName(stale)), []byte(record("gone", time.Hour, stale)), 0o644))
		serve := proctest.Start(t, harness(t).Bin, proctest.Cmd{Args: []string{"serve", "--addr", "127.0.0.1:0"}, Env: p.env, Dir: p.dir})
		serve.WaitStderr(t, "serving the dashboard", 10*time.Second)
		link := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`).FindString(serve.Stderr())
		resp, err := http.Get(link)
		require.NoError(t, err)
		page, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		require.NoError(t, err)
		csrf := regexp.MustCompile(`name="csrf-token" content="([0-9a-f]+)"`).FindSubmatch(page)
		stamp := regexp.MustCompile(`data-stamp="([0-9]+)"`).FindSubmatch(page)
		require.NotNil(t, csrf)
		require.NotNil(t, stamp)
		body, err := json.Marshal(map[string]string{"path": stale, "session_id": "gone", "stamp": string(stamp[1])})
		require.NoError(t, err)

		var cmds []proctest.Cmd
		for i := range 4 {
			// In odd rounds the agents start a little later, so that
			// releases from the page come first too.
			delay := fmt.Sprintf("0.%03d", (round%2)*40+i*5)
			cmds = append(cmds, proctest.Cmd{Program: "/bin/sh", Env: p.env, Dir: p.dir, Args: []string{
				"-c", `sleep "$1"; exec agentlock acquire --session "$2" src/x.go`, "sh", delay, fmt.Sprintf("new-%d", i)}})
			cmds = append(cmds, proctest.Cmd{Program: curl, Env: p.env, Dir: p.dir, Args: []string{
				"-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "POST", "-H", "Content-Type: application/json",
				"-H", "Origin: " + strings.TrimSuffix(link, "/"), "-H", "X-CSRF-Token: " + string(csrf[1]), "--data", string(body), link + "api/release",
			}})
		}
		winners, releases := []string{}, 0
		for i, r := range harness(t).Race(t, cmds) {
			switch {
			case i%2 == 0 && r.Code == 0:
				winners = append(winners, cmds[i].Args[len(cmds[i].Args)-1])
			case i%2 == 0:
				requireExit(t, 1, r)
			case r.Stdout == "200":
				releases++
			default:
				assert.Equal(t, "409", r.Stdout, "round %d: a refused release is a conflict: %s", round, r)
			}
		}
		t.Logf("round %d: %d release(s) from the page, winner %v", round, releases, winners)
		require.Len(t, winners, 1, "round %d: exactly one agent holds the lock", round)
		assert.LessOrEqual(t, releases, 1, "round %d", round)
		assert.Equal(t, winners[0], p.owner("src/x.go"), "round %d: the winner's lock was never released", round)
		require.NoError(t, serve.Signal(syscall.SIGTERM))
		r := serve.Wait(t)
		requireExit(t, 0, r)
		assert.Equal(t, releases, strings.Count(r.Stdout, "by force (it was held by gone)"), "round %d: %s", round, r.Stdout)
		assert.Equal(t, releases, strings.Count(r.Stdout, "released "), "round %d: only gone's lock: %s", round, r.Stdout)
	}
}
