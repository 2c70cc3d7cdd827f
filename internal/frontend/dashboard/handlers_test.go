package dashboard

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"github.com/agentlock/agentlock/store/filestore"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/internal/frontend/dashboard/listenaddr"
	"github.com/agentlock/agentlock/internal/sys/agentproc"
	"github.com/agentlock/agentlock/internal/sys/procs"
	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/store"
	"github.com/agentlock/agentlock/workspace"
)

// Hostile values from the registry and the lock files: each must reach
// the page as text.
const (
	hostileWorkingOn = `<img src=x onerror=alert(1)>`
	hostileID        = `<script>alert(2)</script>`
	hostileName      = `"><svg onload=alert(3)>.go`
)

// fixture is a set-up project and a Server on it.
type fixture struct {
	root  string
	ws    *workspace.Workspace
	srv   *Server
	audit *bytes.Buffer
}

func newFixture(t *testing.T, opts Options) *fixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	require.NoError(t, os.Mkdir(filepath.Join(root, ".git"), 0o755))
	require.NoError(t, os.Mkdir(filepath.Join(root, "src"), 0o755))
	ws, err := workspace.Open(t.Context(), root, workspace.Settings{UserHome: filepath.Join(root, "user")})
	require.NoError(t, err)
	require.NoError(t, ws.Setup(t.Context()))
	audit := &bytes.Buffer{}
	opts.Workspace, opts.Audit = ws, audit
	srv, err := New(opts)
	require.NoError(t, err)
	return &fixture{root: root, ws: ws, srv: srv, audit: audit}
}

// register registers a working session.
func (f *fixture) register(t *testing.T, id, workingOn string) {
	t.Helper()
	_, err := f.ws.StartSession(t.Context(), core.Session{SessionID: id, Provider: "anthropic", AIVersion: "opus", WorkingOn: workingOn},
		workspace.SessionStart{Update: func(old *core.Session) { old.WorkingOn = workingOn }})
	require.NoError(t, err)
}

// lock takes path for session, stamped age ago.
func (f *fixture) lock(t *testing.T, rel, session string, age time.Duration) string {
	t.Helper()
	ws, err := workspace.Open(t.Context(), f.root, workspace.Settings{UserHome: filepath.Join(f.root, "user"), Now: func() time.Time { return time.Now().Add(-age) }})
	require.NoError(t, err)
	leases, err := ws.Locker().AcquireAll(t.Context(), []string{filepath.Join(f.root, rel)}, session)
	require.NoError(t, err)
	return leases[0].Path
}

// get serves a GET of target from a loopback host.
func (f *fixture) get(t *testing.T, target string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:7420"+target, nil)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	rec := httptest.NewRecorder()
	f.srv.Handler().ServeHTTP(rec, req)
	return rec
}

// release posts a release request as the page does; edit may spoil it.
func (f *fixture) release(t *testing.T, body releaseRequest, edit func(*http.Request)) *httptest.ResponseRecorder {
	t.Helper()
	data, err := json.Marshal(body)
	require.NoError(t, err)
	req := httptest.NewRequest(http.MethodPost, "http://127.0.0.1:7420/api/release", bytes.NewReader(data))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Origin", "http://127.0.0.1:7420")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	req.Header.Set(csrfHeader, f.srv.csrf)
	if edit != nil {
		edit(req)
	}
	rec := httptest.NewRecorder()
	f.srv.Handler().ServeHTTP(rec, req)
	return rec
}

// lines decodes a JSON-lines body.
func lines(t *testing.T, body []byte) []map[string]any {
	t.Helper()
	var out []map[string]any
	sc := bufio.NewScanner(bytes.NewReader(body))
	for sc.Scan() {
		var m map[string]any
		require.NoError(t, json.Unmarshal(sc.Bytes(), &m), "%s", sc.Text())
		out = append(out, m)
	}
	return out
}

// stateOf reads the lock on real path.
func (f *fixture) stateOf(t *testing.T, real string) core.State {
	t.Helper()
	st, err := f.ws.Locker().IsLocked(t.Context(), real)
	require.NoError(t, err)
	return st
}

// The JSON endpoints serve exactly the records of status --json and show
// --json, hostile values kept exact.
func TestAPIRecordsAreTheCLIs(t *testing.T) {
	f := newFixture(t, Options{})
	f.register(t, hostileID, hostileWorkingOn)
	held := f.lock(t, "src/"+hostileName, hostileID, 0)
	f.lock(t, "src/old.go", "gone-1", time.Hour)

	rec := f.get(t, "/api/locks")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Equal(t, "application/x-ndjson", rec.Header().Get("Content-Type"))
	got := lines(t, rec.Body.Bytes())
	states, problems, err := f.ws.Locker().List(t.Context())
	require.NoError(t, err)
	want := report.Statuses(states, problems, false)
	require.Len(t, got, len(want))
	for i, w := range want {
		assert.Equal(t, "lock", got[i]["kind"])
		assert.Equal(t, w.Path, got[i]["path"])
		assert.Equal(t, w.File, got[i]["file"])
		assert.Equal(t, w.State, got[i]["state"])
		assert.Equal(t, w.SessionID, got[i]["session_id"])
	}
	assert.Contains(t, []any{got[0]["path"], got[1]["path"]}, held)

	rec = f.get(t, "/api/sessions")
	require.Equal(t, http.StatusOK, rec.Code)
	sessions := lines(t, rec.Body.Bytes())
	require.Len(t, sessions, 1)
	s := sessions[0]
	assert.Equal(t, "session", s["kind"])
	assert.Equal(t, hostileID, s["session_id"])
	assert.Equal(t, hostileWorkingOn, s["working_on"])
	assert.Equal(t, f.ws.RegistryPath, s["registry"])
	for _, key := range []string{"provider", "ai_version", "started_at", "todo", "space", "do_not_touch", "status", "issues", "handoff", "idle"} {
		assert.Contains(t, s, key)
	}
}

// Every value from the registry and the lock files reaches the page as
// text: nothing hostile is left unescaped, and the page runs no inline
// script.
func TestPageEscapesHostileValues(t *testing.T) {
	f := newFixture(t, Options{})
	f.register(t, hostileID, hostileWorkingOn)
	f.lock(t, "src/"+hostileName, hostileID, time.Hour) // stale: with a release button
	for _, target := range []string{"/", "/view"} {
		rec := f.get(t, target)
		require.Equal(t, http.StatusOK, rec.Code)
		body := rec.Body.String()
		for _, raw := range []string{hostileWorkingOn, hostileID, hostileName, "<svg", "<img", "<script>alert"} {
			assert.NotContains(t, body, raw, "%s", target)
		}
		assert.Contains(t, body, "&lt;img src=x onerror=alert(1)&gt;")
		assert.Contains(t, body, "&lt;script&gt;alert(2)&lt;/script&gt;")
		assert.Contains(t, body, "&#34;&gt;&lt;svg onload=alert(3)&gt;.go")
		assert.Contains(t, body, `class="release"`)
	}
	page := f.get(t, "/").Body.String()
	assert.Equal(t, 1, strings.Count(page, "<script"), "one script, from a file")
	assert.Contains(t, page, `<script src="assets/app.js" defer></script>`)
	csp := f.get(t, "/").Header().Get("Content-Security-Policy")
	assert.Contains(t, csp, "script-src 'self'")
	assert.NotContains(t, csp, "unsafe-inline")
}

func TestTokenIsRequiredWhenSet(t *testing.T) {
	f := newFixture(t, Options{Token: "s3cret"})
	assert.Equal(t, http.StatusUnauthorized, f.get(t, "/api/locks").Code)
	assert.Equal(t, http.StatusUnauthorized, f.get(t, "/?token=wrong").Code)
	assert.Equal(t, http.StatusUnauthorized, f.get(t, "/assets/app.js").Code, "assets too")
	assert.Equal(t, http.StatusOK, f.get(t, "/api/locks", "Authorization", "Bearer s3cret").Code)
	assert.Equal(t, http.StatusOK, f.get(t, "/api/locks", "X-Agentlock-Token", "s3cret").Code)
	rec := f.get(t, "/?token=s3cret")
	require.Equal(t, http.StatusOK, rec.Code)
	cookie := rec.Result().Cookies()
	require.Len(t, cookie, 1)
	assert.True(t, cookie[0].HttpOnly)
	assert.Equal(t, http.SameSiteStrictMode, cookie[0].SameSite)
	assert.Equal(t, http.StatusOK, f.get(t, "/view", "Cookie", tokenCookie+"=s3cret").Code)
	assert.Equal(t, http.StatusUnauthorized, f.get(t, "/view", "Cookie", tokenCookie+"=other").Code)

	// With a token, other host names are served (the address is not
	// loopback).
	req := httptest.NewRequest(http.MethodGet, "http://dash.example:7420/api/locks", nil)
	req.Header.Set("Authorization", "Bearer s3cret")
	rec = httptest.NewRecorder()
	f.srv.Handler().ServeHTTP(rec, req)
	assert.Equal(t, http.StatusOK, rec.Code)
}

func TestLoopbackOnlyWithoutToken(t *testing.T) {
	f := newFixture(t, Options{})
	for host, want := range map[string]int{
		"127.0.0.1:7420": http.StatusOK, "localhost:7420": http.StatusOK, "[::1]:7420": http.StatusOK,
		"evil.example:7420": http.StatusMisdirectedRequest, "192.168.1.2:7420": http.StatusMisdirectedRequest,
		"127.0.0.1.evil.example": http.StatusMisdirectedRequest,
	} {
		req := httptest.NewRequest(http.MethodGet, "/api/locks", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		f.srv.Handler().ServeHTTP(rec, req)
		assert.Equal(t, want, rec.Code, "Host %s", host)
	}
	for addr, ok := range map[string]bool{
		"127.0.0.1:7420": true, "localhost:0": true, "[::1]:7420": true,
		"0.0.0.0:7420": false, ":7420": false, "192.168.1.2:80": false, "[::]:7420": false,
	} {
		err := listenaddr.Check(addr, "")
		assert.Equal(t, ok, err == nil, "%s: %v", addr, err)
		assert.NoError(t, listenaddr.Check(addr, "t"), "with a token: %s", addr)
	}
	// A port that is no port is refused before anything listens, token
	// or not.
	for _, addr := range []string{"127.0.0.1:notaport", "127.0.0.1:99999", "127.0.0.1:-1", "0.0.0.0:65536"} {
		assert.ErrorContains(t, listenaddr.Check(addr, "t"), "is not a port number", addr)
	}
}

// A release from the page needs the CSRF token, a JSON body and the
// page's own origin; a good one empties the lock file as release --force
// does, with its audit line.
func TestReleaseNeedsCSRFAndSameOrigin(t *testing.T) {
	f := newFixture(t, Options{})
	real := f.lock(t, "src/a.go", "gone-1", time.Hour)
	shown := f.stateOf(t, real)
	req := releaseRequest{Path: real, SessionID: "gone-1", Stamp: stampString(shown.Stamp)}
	for name, spoil := range map[string]func(*http.Request){
		"no CSRF token":    func(r *http.Request) { r.Header.Del(csrfHeader) },
		"wrong CSRF token": func(r *http.Request) { r.Header.Set(csrfHeader, "x") },
		"no origin":        func(r *http.Request) { r.Header.Del("Origin") },
		"other origin":     func(r *http.Request) { r.Header.Set("Origin", "http://evil.example") },
		"cross-site fetch": func(r *http.Request) { r.Header.Set("Sec-Fetch-Site", "cross-site") },
		"a form's body":    func(r *http.Request) { r.Header.Set("Content-Type", "application/x-www-form-urlencoded") },
	} {
		rec := f.release(t, req, spoil)
		assert.Equal(t, http.StatusForbidden, rec.Code, "%s: %s", name, rec.Body.String())
		assert.Equal(t, "gone-1", f.stateOf(t, real).Owner, "%s: nothing released", name)
	}
	get := httptest.NewRecorder()
	f.srv.Handler().ServeHTTP(get, httptest.NewRequest(http.MethodGet, "http://127.0.0.1:7420/api/release", nil))
	assert.Equal(t, http.StatusMethodNotAllowed, get.Code)

	rec := f.release(t, req, nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	wantRec, wantLine := report.ForceReleased(shown)
	var got report.Release
	require.NoError(t, json.Unmarshal(rec.Body.Bytes(), &got))
	assert.Equal(t, wantRec, got)
	assert.Equal(t, wantLine+"\n", f.audit.String(), "release --force's line")
	data, err := os.ReadFile(shown.Ref)
	require.NoError(t, err)
	assert.Empty(t, data, "the lock file is emptied in place")
}

// Only a stale lock, or one whose owner's session is finished, is
// released, and only while it is the lock the page showed. A fresh lock of
// an unregistered owner is still renewed: never released.
func TestReleaseOnlyTheStaleOrOrphanedLockShown(t *testing.T) {
	f := newFixture(t, Options{})
	f.register(t, "claude-1", "tests")
	f.register(t, "gone-2", "done")
	fresh := f.lock(t, "src/fresh.go", "claude-1", 0)
	renewing := f.lock(t, "src/renewing.go", "never-registered", 0)
	orphan := f.lock(t, "src/orphan.go", "gone-2", 0)
	_, err := f.ws.Registry().Finish(t.Context(), "gone-2")
	require.NoError(t, err)
	stale := f.lock(t, "src/stale.go", "claude-1", time.Hour)
	ask := func(real string) releaseRequest {
		st := f.stateOf(t, real)
		return releaseRequest{Path: real, SessionID: st.Owner, Stamp: stampString(st.Stamp)}
	}

	rec := f.release(t, ask(fresh), nil)
	assert.Equal(t, http.StatusConflict, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), "its owner is still renewing it")
	assert.Equal(t, "claude-1", f.stateOf(t, fresh).Owner)
	rec = f.release(t, ask(renewing), nil)
	assert.Equal(t, http.StatusConflict, rec.Code, "an unregistered owner's fresh lock: %s", rec.Body.String())
	assert.Equal(t, "never-registered", f.stateOf(t, renewing).Owner)
	page := f.get(t, "/").Body.String()
	assert.Contains(t, page, "owner still renewing")
	assert.NotContains(t, page, `data-owner="never-registered"`, "no Release button on a renewed lock")

	// The owner renewed the stale lock after the page showed it.
	shown := ask(stale)
	_, err = f.ws.Locker().Heartbeat(t.Context(), stale, "claude-1")
	require.NoError(t, err)
	rec = f.release(t, shown, nil)
	assert.Equal(t, http.StatusConflict, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), "changed since the page showed it")
	assert.Equal(t, "claude-1", f.stateOf(t, stale).Owner)

	orphanShown := ask(orphan)
	rec = f.release(t, orphanShown, nil)
	assert.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Empty(t, f.stateOf(t, orphan).Owner)

	outside := filepath.Join(t.TempDir(), "x.go")
	rec = f.release(t, releaseRequest{Path: outside, SessionID: "a", Stamp: "1"}, nil)
	assert.Equal(t, http.StatusConflict, rec.Code, "only the locks of this lock folder")
	rec = f.release(t, orphanShown, nil)
	assert.Equal(t, http.StatusConflict, rec.Code, "released already: %s", rec.Body.String())
	assert.Contains(t, rec.Body.String(), "is held in")
	rec = f.release(t, releaseRequest{Path: stale}, nil)
	assert.Equal(t, http.StatusBadRequest, rec.Code)

	ro := newFixture(t, Options{ReadOnly: true})
	real := ro.lock(t, "src/a.go", "gone", time.Hour)
	rec = ro.release(t, ask(real), nil)
	assert.Equal(t, http.StatusForbidden, rec.Code)
	assert.NotContains(t, ro.get(t, "/").Body.String(), `class="release"`, "read-only: no button")
}

func TestHandoffServedOnlyInsideTheProject(t *testing.T) {
	f := newFixture(t, Options{})
	require.NoError(t, os.WriteFile(filepath.Join(f.root, "notes.md"), []byte("next: the tests"), 0o644))
	outside := filepath.Join(t.TempDir(), "secret.txt")
	require.NoError(t, os.WriteFile(outside, []byte("secret"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(f.root, "alias.md")))
	require.NoError(t, os.MkdirAll(filepath.Join(f.root, "config", ".hidden"), 0o755))
	for _, name := range []string{".env", "config/.env", "config/.hidden/notes.md", "config/prod.env", "deploy.pem", "api-token.txt", "Secrets.md"} {
		require.NoError(t, os.WriteFile(filepath.Join(f.root, name), []byte("secret=1"), 0o644))
	}
	require.NoError(t, os.Symlink(filepath.Join(f.root, ".env"), filepath.Join(f.root, "env-alias.md")))
	big := bytes.Repeat([]byte("x"), maxHandoff+4096)
	require.NoError(t, os.WriteFile(filepath.Join(f.root, "big.md"), big, 0o644))
	for id, handoff := range map[string]string{
		"in": "notes.md", "abs": outside, "up": "../secret.txt", "alias": "alias.md", "state": ".agent-registry/registry.md",
		"dotenv": ".env", "nested-dotenv": "config/.env", "dot-folder": "config/.hidden/notes.md", "prod-env": "config/prod.env",
		"pem": "deploy.pem", "token": "api-token.txt", "secrets": "Secrets.md", "env-alias": "env-alias.md", "big": "big.md",
	} {
		f.register(t, id, "w")
		_, err := f.ws.Registry().Update(t.Context(), id, func(s *core.Session) { s.Handoff = handoff })
		require.NoError(t, err)
	}
	rec := f.get(t, "/handoff?session=in")
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "next: the tests", rec.Body.String())
	assert.Equal(t, "text/plain; charset=utf-8", rec.Header().Get("Content-Type"))
	for _, id := range []string{"abs", "up", "alias", "state", "nobody", "dotenv", "nested-dotenv", "dot-folder", "prod-env", "pem", "token", "secrets", "env-alias"} {
		rec := f.get(t, "/handoff?session="+id)
		assert.Equal(t, http.StatusNotFound, rec.Code, id)
		assert.NotContains(t, rec.Body.String(), "secret", id)
	}
	rec = f.get(t, "/handoff?session=big")
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Less(t, rec.Body.Len(), maxHandoff+1024, "a handoff is cut at the cap")
	assert.Contains(t, rec.Body.String(), "the rest is not shown")
	page := f.get(t, "/").Body.String()
	assert.Contains(t, page, `href="handoff?session=in"`)
	assert.NotContains(t, page, `href="handoff?session=abs"`)
	assert.Equal(t, http.StatusNotFound, f.get(t, "/registry.md").Code)
	for _, target := range []string{"/assets/../../go.mod", "/assets/%2e%2e/page.html", "/assets/page.html", "/go.mod"} {
		rec := f.get(t, target)
		assert.NotEqual(t, http.StatusOK, rec.Code, target)
		assert.NotContains(t, rec.Body.String(), "module github.com", target)
		assert.NotContains(t, rec.Body.String(), "{{", target)
	}
}

func TestDiffNamesTheEvents(t *testing.T) {
	t0 := time.Unix(1_700_000_000, 0)
	prev := &Snapshot{Taken: t0,
		Locks: []core.State{
			{Path: "/p/a", Ref: "a.lock"},
			{Path: "/p/b", Ref: "b.lock", Owner: "s1", Stamp: t0},
			{Path: "/p/c", Ref: "c.lock", Owner: "s1", Stamp: t0},
			{Path: "/p/d", Ref: "d.lock", Owner: "s1", Stamp: t0},
		},
		Sessions: []core.Session{{SessionID: "s1", Status: core.StatusWorking}, {SessionID: "s2", Status: core.StatusFinished}},
	}
	next := &Snapshot{Taken: t0.Add(time.Second),
		Locks: []core.State{
			{Path: "/p/a", Ref: "a.lock", Owner: "s2", Stamp: t0},
			{Ref: "b.lock"},
			{Path: "/p/c", Ref: "c.lock", Owner: "s3", Stamp: t0},
			{Path: "/p/d", Ref: "d.lock", Owner: "s1", Stamp: t0.Add(time.Second)}, // renewed: no event
		},
		Sessions: []core.Session{{SessionID: "s1", Status: core.StatusFinished}, {SessionID: "s2", Status: core.StatusWorking}, {SessionID: "s3", Status: core.StatusWorking}},
	}
	var got []string
	for _, e := range diff(prev, next) {
		got = append(got, e.Event+" "+e.Path+" "+e.SessionID+" "+e.PreviousOwner)
	}
	assert.Equal(t, []string{
		"acquired /p/a s2 ", "released /p/b  s1", "taken over /p/c s3 s1",
		"finished  s1 ", "registered  s2 ", "registered  s3 ",
	}, got)
	assert.Nil(t, diff(nil, next), "the first reading is no change")
	assert.True(t, same(next, next))
	assert.False(t, same(prev, next))
}

// With Run, a lock taken pushes a "lock" event and a "change" on
// /api/events.
func TestEventsStreamPushesChanges(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for file-system events in real time")
	}
	f := newFixture(t, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go f.srv.Run(ctx)
	ts := httptest.NewServer(f.srv.Handler())
	defer ts.Close()
	reqCtx, reqCancel := context.WithTimeout(ctx, 10*time.Second)
	defer reqCancel()
	req, err := http.NewRequestWithContext(reqCtx, http.MethodGet, ts.URL+"/api/events", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	assert.Equal(t, "text/event-stream", resp.Header.Get("Content-Type"))
	r := bufio.NewReader(resp.Body)
	_, err = r.ReadString('\n') // the stream is open: the subscription exists
	require.NoError(t, err)
	real := f.lock(t, "src/a.go", "claude-1", 0)
	var data []string
	for len(data) < 2 {
		line, err := r.ReadString('\n')
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		if d, ok := strings.CutPrefix(line, "data: "); ok {
			data = append(data, d)
		}
	}
	require.Len(t, data, 2)
	var ev Event
	require.NoError(t, json.Unmarshal([]byte(data[0]), &ev))
	assert.Equal(t, Event{Kind: "event", Event: EventAcquired, Time: ev.Time, Path: real, SessionID: "claude-1", Seq: 1}, ev, "the first event of the server")
	assert.Contains(t, data[1], `"kind":"change"`)
	assert.Contains(t, data[1], `"held":1`)
}

// An area lock (a folder and everything below it) shows as an area, and a
// stale one is released from the page like a file's.
func TestAreaLockShownAndReleased(t *testing.T) {
	f := newFixture(t, Options{})
	require.NoError(t, os.Mkdir(filepath.Join(f.root, "src", "auth"), 0o755))
	ws, err := workspace.Open(t.Context(), f.root, workspace.Settings{UserHome: filepath.Join(f.root, "user"), Now: func() time.Time { return time.Now().Add(-time.Hour) }})
	require.NoError(t, err)
	leases, err := ws.Locker().AcquireAll(t.Context(), []string{filepath.Join(f.root, "src", "auth") + "/"}, "gone-1")
	require.NoError(t, err)
	area := leases[0].Path
	require.True(t, strings.HasSuffix(area, "/"), area)
	page := strings.ReplaceAll(f.get(t, "/").Body.String(), "<wbr>", "")
	assert.Contains(t, page, `<code class="path">src/auth/</code>`)
	assert.Contains(t, page, `class="badge area"`)
	st := f.stateOf(t, area)
	rec := f.release(t, releaseRequest{Path: area, SessionID: "gone-1", Stamp: stampString(st.Stamp)}, nil)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Empty(t, f.stateOf(t, area).Owner)
}

// A session whose recorded agent process exited (kimi -p runs no
// SessionEnd) shows as Finished, although the dashboard writes nothing
// and the registry still lists it working; a session whose agent runs
// stays working.
func TestExitedAgentsSessionShownFinished(t *testing.T) {
	f := newFixture(t, Options{})
	dir := agentproc.Dir(f.ws.Home)
	for _, id := range []string{"kimi-gone", "kimi-live"} {
		f.register(t, id, "work")
		child := exec.Command("sleep", "30")
		require.NoError(t, child.Start())
		t.Cleanup(func() { _ = child.Process.Kill(); _ = child.Wait() })
		p, err := procs.Get(child.Process.Pid)
		if err != nil {
			t.Skipf("processes cannot be read here: %v", err)
		}
		_, err = agentproc.Write(dir, p, id, "kimi", agentproc.KindHook, time.Now())
		require.NoError(t, err)
		if id == "kimi-gone" {
			require.NoError(t, child.Process.Kill())
			_ = child.Wait()
		}
	}
	rec := f.get(t, "/api/sessions")
	require.Equal(t, http.StatusOK, rec.Code)
	status := map[any]any{}
	for _, s := range lines(t, rec.Body.Bytes()) {
		status[s["session_id"]] = s["status"]
	}
	assert.Equal(t, map[any]any{"kimi-gone": core.StatusFinished, "kimi-live": core.StatusWorking}, status)
	doc, err := f.ws.Registry().Load(t.Context())
	require.NoError(t, err)
	gone, _ := doc.Find("kimi-gone")
	assert.Equal(t, core.StatusWorking, gone.Status, "the dashboard only shows it; a command finishes it")
}

// Bidirectional controls in ids, paths and texts are shown escaped: a name
// cannot pose as another ("claude-exe.png" from "claude-\u202egnp.exe").
func TestPageEscapesBidiControls(t *testing.T) {
	f := newFixture(t, Options{})
	id := "claude-\u202egnp.exe" // written by hand or by another tool: register refuses it
	f.register(t, "codex-1", "fix \u2066the\u2069 tests")
	real := filepath.Join(f.root, "src", "\u202eevil.go")
	stamp := time.Now().Add(-time.Hour).Unix()
	require.NoError(t, os.WriteFile(filepath.Join(f.ws.LockDir, filestore.LockFileName(real)), fmt.Appendf(nil, "%s|%d|%s", id, stamp, real), 0o644))
	page := f.get(t, "/").Body.String()
	// The release still names the exact owner and path, in attributes
	// never shown.
	assert.Contains(t, page, `data-owner="`+id+`"`)
	page = regexp.MustCompile(`data-[a-z]+="[^"]*"`).ReplaceAllString(page, "")
	page = strings.ReplaceAll(page, "<wbr>", "")
	for _, r := range []string{"\u202e", "\u2066", "\u2069"} {
		assert.NotContains(t, page, r, "%q reaches the page", r)
	}
	assert.Contains(t, page, `claude-\u202egnp.exe`)
	assert.Contains(t, page, `src/\u202eevil.go`)
	rec := f.release(t, releaseRequest{Path: real, SessionID: id, Stamp: fmt.Sprint(stamp * 1e9)}, nil)
	assert.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
}

// A sub-agent's session is listed under its parent's, marked as one, in
// the page and in /api/sessions (its parent field).
func TestSubAgentsNestedUnderTheirParent(t *testing.T) {
	f := newFixture(t, Options{})
	f.register(t, "claude-1/a7", "edit a")
	f.register(t, "codex-2", "other")
	f.register(t, "claude-1", "lead")
	_, err := f.ws.StartSession(t.Context(), workspace.ChildEntry("claude-1/b8", "claude-1"), workspace.SessionStart{})
	require.NoError(t, err)
	_, err = f.ws.Registry().Update(t.Context(), "claude-1/a7", func(s *core.Session) { s.Parent = "claude-1" })
	require.NoError(t, err)

	page := f.get(t, "/").Body.String()
	at := func(id string) int { return strings.Index(page, `data-key="s:`+id+`"`) }
	require.True(t, at("codex-2") >= 0 && at("claude-1") >= 0 && at("claude-1/a7") >= 0 && at("claude-1/b8") >= 0, page)
	assert.Less(t, at("codex-2"), at("claude-1"), "the registry's order")
	assert.Less(t, at("claude-1"), at("claude-1/a7"), "a sub-agent under its parent")
	assert.Less(t, at("claude-1/a7"), at("claude-1/b8"))
	assert.Contains(t, page, `data-parent="claude-1"`)
	assert.Equal(t, 2, strings.Count(page, `class="sub-agent-of"`))

	parents := map[any]any{}
	for _, s := range lines(t, f.get(t, "/api/sessions").Body.Bytes()) {
		parents[s["session_id"]] = s["parent"]
	}
	assert.Equal(t, map[any]any{"claude-1/a7": "claude-1", "claude-1/b8": "claude-1", "claude-1": nil, "codex-2": nil}, parents)
}

// The page and /api/locks say why a lock is held: a lock a pre-edit hook
// took is marked as an edit in progress, one taken on purpose is not.
func TestWhyALockIsHeldShown(t *testing.T) {
	f := newFixture(t, Options{})
	f.register(t, "s1", "edits")
	edited := f.lock(t, "src/edited.go", "s1", 0)
	_, err := f.ws.Locker().AcquireClaim(t.Context(), []string{filepath.Join(f.root, "src", "hooked.go")}, core.Claim{Session: "s1", Taken: store.TakenByHook})
	require.NoError(t, err)

	page := strings.ReplaceAll(f.get(t, "/").Body.String(), "<wbr>", "")
	assert.Equal(t, 1, strings.Count(page, `class="badge held-as"`), "only the hook's lock is marked")
	assert.Regexp(t, `(?s)hooked\.go</code>.*?<span class="badge held-as"[^>]*>editing \(last edit [0-9.hms]+ ago\)</span>`, page, "the turn lifetime says since when it is unused")
	held := map[string]any{}
	for _, rec := range lines(t, f.get(t, "/api/locks").Body.Bytes()) {
		held[filepath.Base(rec["path"].(string))] = rec["held_as"]
	}
	assert.Equal(t, map[string]any{"edited.go": "explicit", "hooked.go": "editing"}, held, "edited: %s", edited)
}

// The page and /api/locks mark a held file whose holder's view is stale
// (it read the file, which changed since: it must read it again before it
// writes it), beside the file, as they mark an edit in progress; a file
// whose holder's view is current, or that it never read, is not marked.
func TestStaleViewShown(t *testing.T) {
	f := newFixture(t, Options{})
	f.register(t, "s1", "edits")
	stale, fresh := filepath.Join(f.root, "src", "stale.go"), filepath.Join(f.root, "src", "fresh.go")
	for _, p := range []string{stale, fresh, filepath.Join(f.root, "src", "unread.go")} {
		require.NoError(t, os.WriteFile(p, []byte("C0\n"), 0o644))
	}
	_, err := f.ws.See(t.Context(), "s1", []string{stale, fresh}, time.Time{})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(stale, []byte("C1 by an editor\n"), 0o644))
	for _, rel := range []string{"src/stale.go", "src/fresh.go", "src/unread.go"} {
		f.lock(t, rel, "s1", 0)
	}

	page := strings.ReplaceAll(f.get(t, "/").Body.String(), "<wbr>", "")
	assert.Equal(t, 1, strings.Count(page, `class="badge stale-view"`), "only the stale view is marked")
	assert.Regexp(t, `(?s)stale\.go</code>.*?<span class="badge stale-view"[^>]*>stale view: changed</span>`, page)
	marked := map[string]any{}
	for _, rec := range lines(t, f.get(t, "/api/locks").Body.Bytes()) {
		marked[filepath.Base(rec["path"].(string))] = rec["stale_view"]
	}
	assert.Equal(t, map[string]any{"stale.go": "changed", "fresh.go": nil, "unread.go": nil}, marked)

	_, err = f.ws.See(t.Context(), "s1", []string{stale}, time.Time{})
	require.NoError(t, err)
	assert.NotContains(t, f.get(t, "/").Body.String(), `class="badge stale-view"`, "read again: current")
}
