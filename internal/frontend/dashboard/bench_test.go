package dashboard

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/store/filestore"
	"github.com/agentlock/agentlock/workspace"
)

// Fleet is the size issue 14 sets for the dashboard: 200 sessions and
// 10,000 lock files.
const (
	fleetSessions = 200
	fleetLocks    = 10000
)

// writeFleetOf fills a set-up workspace with fleetSessions working sessions
// and n lock files (fleetLocks: 50 per session), one in ten stale.
func writeFleetOf(tb testing.TB, ws *workspace.Workspace, n int) {
	tb.Helper()
	reg := ws.Registry()
	for i := range fleetSessions {
		s := core.Session{SessionID: fmt.Sprintf("agent-%03d", i), Provider: "anthropic", AIVersion: "opus", WorkingOn: fmt.Sprintf("package pkg%03d", i)}
		if _, err := reg.Register(tb.Context(), s); err != nil {
			tb.Fatal(err)
		}
	}
	if err := os.MkdirAll(ws.LockDir, 0o755); err != nil {
		tb.Fatal(err)
	}
	for i := range n {
		path := filepath.Join(ws.Project, fmt.Sprintf("pkg%03d", i%fleetSessions), fmt.Sprintf("file%05d.go", i))
		stamp := time.Now()
		if i%10 == 0 {
			stamp = stamp.Add(-time.Hour)
		}
		rec := fmt.Sprintf("agent-%03d|%.6f|%s", i%fleetSessions, float64(stamp.UnixMicro())/1e6, path)
		if err := os.WriteFile(filepath.Join(ws.LockDir, filestore.LockFileName(path)), []byte(rec), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
}

// fleetServer is a Server on a fleet, its snapshot kept as Run keeps it.
func fleetServer(b *testing.B, watching bool) *Server { return fleetServerOf(b, watching, fleetLocks) }

// fleetServerOf is fleetServer with n lock files.
func fleetServerOf(b *testing.B, watching bool, n int) *Server {
	b.Helper()
	root, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		b.Fatal(err)
	}
	ws, err := workspace.Open(b.Context(), root, workspace.Settings{UserHome: filepath.Join(root, "user")})
	if err != nil {
		b.Fatal(err)
	}
	if err := ws.Setup(b.Context()); err != nil {
		b.Fatal(err)
	}
	writeFleetOf(b, ws, n)
	srv, err := New(Options{Workspace: ws})
	if err != nil {
		b.Fatal(err)
	}
	if watching {
		srv.refresh(b.Context())
		srv.mu.Lock()
		srv.watching = true
		srv.mu.Unlock()
	}
	return srv
}

// serve answers one GET as the server would, and checks it.
func serve(b *testing.B, h http.Handler, target, want string) int {
	req := httptest.NewRequest(http.MethodGet, "http://127.0.0.1:7420"+target, nil)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), want) {
		b.Fatalf("%s: %d %.200s", target, rec.Code, rec.Body.String())
	}
	return rec.Body.Len()
}

// BenchmarkPage10k serves the page of 200 sessions and 10,000 locks from
// the snapshot that Run keeps current (issue 14: under 100 ms).
func BenchmarkPage10k(b *testing.B) {
	h := fleetServer(b, true).Handler()
	var size int
	for b.Loop() {
		size = serve(b, h, "/", "agent-199")
	}
	b.ReportMetric(float64(size)/1e6, "MB/page")
}

// BenchmarkAPILocks10k serves /api/locks of 10,000 locks (under 100 ms).
func BenchmarkAPILocks10k(b *testing.B) {
	h := fleetServer(b, true).Handler()
	var size int
	for b.Loop() {
		size = serve(b, h, "/api/locks", "agent-199")
	}
	b.ReportMetric(float64(size)/1e6, "MB/answer")
}

// BenchmarkRefresh10k is the work of one change seen: read the lock folder
// and the registry, diff, push. It runs once per burst of writes.
// BenchmarkRefresh200 reads 200 working sessions holding one lock each
// again, as after one heartbeat: what the idle server spends per renewal
// (bench/serveidle measures the whole).
func BenchmarkRefresh200(b *testing.B) {
	srv := fleetServerOf(b, true, fleetSessions)
	for b.Loop() {
		srv.refresh(b.Context())
	}
}

func BenchmarkRefresh10k(b *testing.B) {
	srv := fleetServer(b, true)
	for b.Loop() {
		srv.refresh(b.Context())
	}
}

// BenchmarkPageCold10k serves the page with a new reading of the
// workspace: what a page costs when Run is not keeping the snapshot.
func BenchmarkPageCold10k(b *testing.B) {
	h := fleetServer(b, false).Handler()
	for b.Loop() {
		serve(b, h, "/", "agent-199")
	}
}
