package main_test

import (
	"bufio"
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

	"github.com/agentlock/agentlock/internal/testkit/proctest"
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

// One staleness rule for every process of a project: the project's
// timeout, recorded at init. A server started with AGENTLOCK_TIMEOUT=5
// neither offers nor performs the release of a lock renewed 30 s ago —
// a working session's or an unregistered owner's — and a process started
// with the same short timeout cannot take either over; the unregistered
// owner's fresh lock is "owner still renewing", not "orphaned".
func TestServeNeverReleasesALiveLock(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	p := newProject(t)
	requireExit(t, 0, p.run("init"))
	requireExit(t, 0, p.run("register", "--session", "claude-1", "--working-on", "tests"))
	assert.Equal(t, "2m0s\n", p.read(".agent-registry/timeout"), "init records the project's timeout")
	locks := filepath.Join(p.dir, ".agent-registry", "locks")
	sec := time.Now().Add(-30 * time.Second).Unix()
	paths := map[string]string{"claude-1": "src/a.go", "never-registered": "src/b.go"}
	for owner, rel := range paths {
		real := filepath.Join(p.dir, rel)
		require.NoError(t, os.WriteFile(filepath.Join(locks, lockName(real)), fmt.Appendf(nil, "%s|%d.000000|%s", owner, sec, real), 0o644))
	}
	short := append(append([]string{}, p.env...), "AGENTLOCK_TIMEOUT=5")
	serve := proctest.Start(t, harness(t).Bin, proctest.Cmd{Args: []string{"serve", "--addr", "127.0.0.1:0"}, Env: short, Dir: p.dir})
	serve.WaitStderr(t, "serving the dashboard", 10*time.Second)
	link := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`).FindString(serve.Stderr())
	require.NotEmpty(t, link)
	page, csrf := openPage(t, link)
	assert.NotContains(t, page, `class="release"`, "no Release button for a lock renewed within the project's timeout")
	assert.Contains(t, page, "owner still renewing")
	assert.NotContains(t, page, `badge orphaned"`)
	assert.Contains(t, page, "this server was started with 5s")
	for owner, rel := range paths {
		real := filepath.Join(p.dir, rel)
		code, answer := postRelease(t, link, csrf, real, owner, fmt.Sprint(sec*1e9))
		assert.Equal(t, http.StatusConflict, code, "%s: %s", owner, answer)
		assert.Contains(t, answer, "still renewing", owner)
		// Another process with the same short timeout cannot take it over.
		r := p.runEnv([]string{"AGENTLOCK_TIMEOUT=5"}, "acquire", "--session", "taker", real)
		requireExit(t, 1, r)
		assert.Equal(t, owner, p.owner(rel), "the live lock is kept")
	}
	r := p.runEnv([]string{"AGENTLOCK_TIMEOUT=5"}, "status", "--json")
	requireExit(t, 0, r)
	for _, rec := range jsonLines(t, r) {
		assert.Equal(t, "locked", rec["state"], "status judges with the project's timeout: %v", rec)
	}
	// A person may still force it, told that the owner is at work.
	r = p.runEnv([]string{"AGENTLOCK_TIMEOUT=5"}, "release", "--force", "src/a.go")
	requireExit(t, 0, r)
	assert.Contains(t, r.Stderr, "within the project's timeout of 2m0s: claude-1 is probably still working on it")
	require.NoError(t, serve.Signal(syscall.SIGTERM))
	requireExit(t, 0, serve.Wait(t))
}

// sseStream reads Server-Sent Events from an open response.
type sseStream struct {
	events chan [2]string // event name, data
	body   io.Closer
}

func openStream(t *testing.T, url string) *sseStream {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode)
	st := &sseStream{events: make(chan [2]string, 100000), body: resp.Body}
	go func() {
		defer close(st.events)
		sc := bufio.NewScanner(resp.Body)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		var name string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				st.events <- [2]string{name, strings.TrimPrefix(line, "data: ")}
			}
		}
	}()
	t.Cleanup(func() { resp.Body.Close() })
	return st
}

// A burst of 200 lock events — one acquire of 200 paths, then a finish
// that releases them — keeps every subscriber of a real server connected,
// and each sees every event, numbered without a gap (or a resync marker,
// never a silent loss), and still sees the next change after the burst.
func TestServeBurstKeepsEverySubscriber(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	p := newProject(t)
	requireExit(t, 0, p.run("init"))
	requireExit(t, 0, p.run("register", "--session", "burst", "--working-on", "many files"))
	serve := proctest.Start(t, harness(t).Bin, proctest.Cmd{Args: []string{"serve", "--addr", "127.0.0.1:0", "--read-only"}, Env: p.env, Dir: p.dir})
	serve.WaitStderr(t, "serving the dashboard", 10*time.Second)
	link := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`).FindString(serve.Stderr())
	require.NotEmpty(t, link)
	var streams []*sseStream
	for range 4 {
		streams = append(streams, openStream(t, link+"api/events"))
	}
	args := []string{"acquire", "--session", "burst"}
	for i := range 200 {
		args = append(args, fmt.Sprintf("src/f%03d.go", i))
	}
	// Each step waits until the server has seen it, so that every path
	// changes between two of its readings: 200 events each way.
	held := func(want int) {
		t.Helper()
		for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			resp, err := http.Get(link + "api/locks")
			require.NoError(t, err)
			data, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			require.NoError(t, err)
			if n := strings.Count(string(data), `"state":"locked"`); n == want {
				return
			} else if time.Now().After(deadline) {
				t.Fatalf("the server shows %d held locks, not %d", n, want)
			}
		}
	}
	requireExit(t, 0, p.run(args...))
	held(200)
	requireExit(t, 0, p.run("finish", "--session", "burst"))
	held(0)
	requireExit(t, 0, p.run("acquire", "--session", "after", "src/after.go"))

	for i, st := range streams {
		counts, lastSeq, resyncs := map[string]int{}, int64(0), 0
		deadline := time.After(20 * time.Second)
	read:
		for {
			select {
			case ev, ok := <-st.events:
				require.True(t, ok, "stream %d was cut (server exited: %t): %s", i, serve.Exited(), serve.Stderr())
				switch ev[0] {
				case "resync":
					resyncs++
				case "lock":
					var rec struct {
						Event     string `json:"event"`
						SessionID string `json:"session_id"`
						Seq       int64  `json:"seq"`
					}
					require.NoError(t, json.Unmarshal([]byte(ev[1]), &rec))
					if resyncs == 0 {
						assert.Equal(t, lastSeq+1, rec.Seq, "stream %d: events numbered without a gap", i)
					}
					lastSeq = rec.Seq
					counts[rec.Event+" "+rec.SessionID]++
					if rec.SessionID == "after" {
						break read
					}
				}
			case <-deadline:
				t.Fatalf("stream %d: the change after the burst never came: %v", i, counts)
			}
		}
		if resyncs == 0 {
			assert.Equal(t, 200, counts["acquired burst"], "stream %d", i)
			assert.Equal(t, 200, counts["released "], "stream %d: %v", i, counts)
		}
		t.Logf("stream %d: %v, %d resync(s)", i, counts, resyncs)
	}
	require.NoError(t, serve.Signal(syscall.SIGTERM))
	requireExit(t, 0, serve.Wait(t))
}

// The audit log records, from separate processes: the takeover of a stale
// lock by `agentlock acquire`, a release from the page of a real server,
// a release --force, and a finish — each with who, what, when and the
// previous owner — and `agentlock log` prints them, with --json too.
func TestAuditLogRecordsTakeoversAndReleases(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	p := newProject(t)
	requireExit(t, 0, p.run("init"))
	locks := filepath.Join(p.dir, ".agent-registry", "locks")
	plant := func(owner, rel string) string {
		real := filepath.Join(p.dir, rel)
		require.NoError(t, os.WriteFile(filepath.Join(locks, lockName(real)), []byte(record(owner, time.Hour, real)), 0o644))
		return real
	}
	plant("gone-1", "src/taken.go")
	pageLock := plant("gone-2", "src/page.go")
	plant("gone-3", "src/forced.go")
	requireExit(t, 0, p.run("register", "--session", "taker", "--working-on", "x"))
	requireExit(t, 0, p.run("acquire", "--session", "taker", "src/taken.go"))

	serve, link := startServe(t, p)
	page, csrf := openPage(t, link)
	stamp := regexp.MustCompile(`data-path="` + regexp.QuoteMeta(pageLock) + `" data-shown="[^"]*" data-owner="gone-2" data-stamp="([0-9]+)"`).FindStringSubmatch(page)
	require.NotNil(t, stamp, "the page offers the stale lock's release")
	code, answer := postRelease(t, link, csrf, pageLock, "gone-2", stamp[1])
	require.Equal(t, http.StatusOK, code, answer)
	require.NoError(t, serve.Signal(syscall.SIGTERM))
	requireExit(t, 0, serve.Wait(t))

	requireExit(t, 0, p.run("release", "--force", "src/forced.go"))
	requireExit(t, 0, p.run("finish", "--session", "taker"))

	r := p.run("log", "--json")
	requireExit(t, 0, r)
	entries := jsonLines(t, r)
	require.Len(t, entries, 4, r.Stdout)
	want := []struct{ action, path, session, previous string }{
		{"takeover", "src/taken.go", "taker", "gone-1"},
		{"page release", "src/page.go", "", "gone-2"},
		{"force release", "src/forced.go", "", "gone-3"},
		{"finish", "", "taker", ""},
	}
	for i, w := range want {
		e := entries[i]
		assert.Equal(t, "audit", e["kind"])
		assert.Equal(t, w.action, e["action"], "entry %d", i)
		if w.path != "" {
			assert.Equal(t, filepath.Join(p.dir, w.path), e["path"], "entry %d", i)
		}
		if w.session != "" {
			assert.Equal(t, w.session, e["session_id"], "entry %d", i)
		}
		if w.previous != "" {
			assert.Equal(t, w.previous, e["previous_owner"], "entry %d", i)
		}
		assert.NotEmpty(t, e["who"], "entry %d", i)
		_, err := time.Parse(time.RFC3339Nano, e["time"].(string))
		assert.NoError(t, err, "entry %d: when", i)
	}
	assert.Contains(t, entries[1]["who"], "dashboard", "a page release says so")
	assert.NotEmpty(t, entries[2]["previous_renewed"], "a force release says when the owner last renewed")

	r = p.run("log", "--for", "gone-1")
	requireExit(t, 0, r)
	assert.Contains(t, r.Stdout, "takeover "+filepath.Join(p.dir, "src/taken.go")+" by taker (held by gone-1)")
	assert.Equal(t, 1, strings.Count(r.Stdout, "\n"), "only gone-1's entry: %s", r.Stdout)
	r = p.run("log", "--last", "1")
	requireExit(t, 0, r)
	assert.Contains(t, r.Stdout, "finish by taker, 1 lock(s) released")
	requireExit(t, 2, p.run("log", "--last", "-1"))
}

// openPage reads the dashboard's page and its CSRF token.
func openPage(t *testing.T, link string) (page, csrf string) {
	t.Helper()
	resp, err := http.Get(link)
	require.NoError(t, err)
	data, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	m := regexp.MustCompile(`name="csrf-token" content="([0-9a-f]+)"`).FindStringSubmatch(string(data))
	require.NotNil(t, m, "the page carries its CSRF token")
	return string(data), m[1]
}

// postRelease posts a release as the page's script does, and returns the
// status and the answer.
func postRelease(t *testing.T, link, csrf, path, owner, stamp string) (int, string) {
	t.Helper()
	body, err := json.Marshal(map[string]string{"path": path, "session_id": owner, "stamp": stamp})
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodPost, link+"api/release", strings.NewReader(string(body)))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", strings.TrimSuffix(link, "/"))
	req.Header.Set("X-CSRF-Token", csrf)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	answer, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	require.NoError(t, err)
	return resp.StatusCode, string(answer)
}
