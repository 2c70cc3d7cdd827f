package dashboard

import (
	"bufio"
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/agentlock/agentlock/audit"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/internal/frontend/dashboard/listenaddr"
	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/session"
	"github.com/agentlock/agentlock/workspace"
)

// tokenCookie carries the token for the page's own requests, once the
// page was opened with ?token=.
const tokenCookie = "agentlock_token"

// csrfHeader carries the CSRF token of every state-changing request.
const csrfHeader = "X-CSRF-Token"

// Handler returns the dashboard's HTTP handler: the page, its assets, the
// JSON endpoints and the release endpoint, behind the security checks.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.servePage)
	mux.HandleFunc("GET /view", s.serveView)
	mux.Handle("GET /assets/", http.StripPrefix("/assets/", http.FileServerFS(staticFS())))
	mux.HandleFunc("GET /api/sessions", s.serveSessions)
	mux.HandleFunc("GET /api/locks", s.serveLocks)
	mux.HandleFunc("GET /api/events", s.serveEvents)
	mux.HandleFunc("GET /handoff", s.serveHandoff)
	mux.HandleFunc("POST /api/release", s.serveRelease)
	return s.secure(mux)
}

// secure wraps every request: the Host must be the server's (loopback
// names without a token: no DNS rebinding), the token must come when one
// is set, and every answer forbids framing, sniffing and foreign scripts.
func (s *Server) secure(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		h.Set("Cache-Control", "no-store")
		if s.opts.Token == "" && !listenaddr.Loopback(r.Host) {
			httpError(w, report.Usagef(http.StatusMisdirectedRequest, "this dashboard answers only to a loopback host name (localhost, 127.0.0.1, [::1]); start it with --token to serve other names"))
			return
		}
		if s.opts.Token != "" {
			ok, fromQuery := s.tokenOf(r)
			if !ok {
				httpError(w, report.Refusedf(http.StatusUnauthorized, "a token is required: open the URL that agentlock serve printed"))
				return
			}
			if fromQuery {
				http.SetCookie(w, &http.Cookie{Name: tokenCookie, Value: s.opts.Token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
			}
		}
		next.ServeHTTP(w, r)
	})
}

// tokenOf reports whether r carries the token, and whether in the query.
func (s *Server) tokenOf(r *http.Request) (ok, fromQuery bool) {
	want := []byte(s.opts.Token)
	match := func(got string) bool { return got != "" && subtle.ConstantTimeCompare([]byte(got), want) == 1 }
	if match(strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")) || match(r.Header.Get("X-Agentlock-Token")) {
		return true, false
	}
	if c, err := r.Cookie(tokenCookie); err == nil && match(c.Value) {
		return true, false
	}
	if match(r.URL.Query().Get("token")) {
		return true, true
	}
	return false, false
}

// sameOrigin checks a state-changing request: the CSRF token of the page,
// a JSON body (a cross-site form cannot send one without a preflight),
// and an Origin equal to the server's own.
func (s *Server) sameOrigin(r *http.Request) error {
	if subtle.ConstantTimeCompare([]byte(r.Header.Get(csrfHeader)), []byte(s.csrf)) != 1 {
		return errors.New("missing or wrong CSRF token: reload the page")
	}
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		return errors.New("the body must be application/json")
	}
	origin := r.Header.Get("Origin")
	if origin == "" || (origin != "http://"+r.Host && origin != "https://"+r.Host) {
		return fmt.Errorf("origin %q is not this dashboard's", origin)
	}
	if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
		return fmt.Errorf("a %s request cannot change anything", site)
	}
	return nil
}

// pageData is what page.html renders.
type pageData struct {
	CSRF  string
	Rules string
	View  view
}

func (s *Server) servePage(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	snap, events, err := s.current(ctx)
	if err != nil {
		httpError(w, err)
		return
	}
	s.render(w, "page.html", pageData{CSRF: s.csrf, Rules: s.rules, View: s.buildView(snap, events)})
}

func (s *Server) serveView(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	snap, events, err := s.current(ctx)
	if err != nil {
		httpError(w, err)
		return
	}
	s.render(w, "view.html", s.buildView(snap, events))
}

// render writes a template whole, or an error when it fails.
func (s *Server) render(w http.ResponseWriter, name string, data any) {
	var b bytes.Buffer
	if err := s.page.ExecuteTemplate(&b, name, data); err != nil {
		httpError(w, fmt.Errorf("render the page: %w", err))
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(b.Bytes())
}

// serveSessions writes agentlock show --json's records, one per line.
func (s *Server) serveSessions(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	snap, _, err := s.current(ctx)
	if err != nil {
		httpError(w, err)
		return
	}
	if snap.RegistryErr != nil {
		httpError(w, snap.RegistryErr)
		return
	}
	writeLines(w, snap.sessionRecords(s.ws.RegistryPath))
}

// serveLocks writes agentlock status --json's records, one per line; with
// ?all=1, free lock files too, as status --all.
func (s *Server) serveLocks(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	snap, _, err := s.current(ctx)
	if err != nil {
		httpError(w, err)
		return
	}
	all := r.URL.Query().Get("all")
	writeLines(w, snap.lockRecords(all == "1" || all == "true"))
}

// writeLines writes records as JSON lines.
func writeLines[T any](w http.ResponseWriter, records []T) {
	w.Header().Set("Content-Type", "application/x-ndjson")
	bw := bufio.NewWriterSize(w, 64<<10)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false)
	for _, rec := range records {
		if err := enc.Encode(rec); err != nil {
			return
		}
	}
	_ = bw.Flush()
}

// serveEvents streams Server-Sent Events: "lock" events (an Event record)
// for every change of a lock or session seen, "change" whenever what the
// page shows changed, "renew" when only renewals did (the new stamps), and
// "resync" in place of the frames a stream that fell behind by maxPending
// lost: a stream is never cut for being slow. A comment is sent every 15
// seconds to keep the connection open.
func (s *Server) serveEvents(w http.ResponseWriter, r *http.Request) {
	flusher, ok := w.(http.Flusher)
	if !ok {
		httpError(w, errors.New("streaming is not supported"))
		return
	}
	sub, stop := s.subscribe()
	defer stop()
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	_, _ = w.Write([]byte("retry: 1000\n: agentlock dashboard\n\n"))
	flusher.Flush()
	keepAlive := time.NewTicker(15 * time.Second)
	defer keepAlive.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-s.closing:
			return
		case <-keepAlive.C:
			_, _ = w.Write([]byte(": keep-alive\n\n"))
		case <-sub.wake:
			for _, frame := range s.nextFrames(sub) {
				if _, err := w.Write(frame); err != nil {
					return
				}
			}
		}
		flusher.Flush()
	}
}

// sseFrame encodes one Server-Sent Event. JSON has no raw newline, so the
// data is one line.
func sseFrame(event string, v any) []byte {
	data, err := json.Marshal(v)
	if err != nil {
		data = []byte(`{}`)
	}
	return fmt.Appendf(nil, "event: %s\ndata: %s\n\n", event, data)
}

// serveHandoff serves a session's handoff file as plain text, only when
// it is a regular file inside the project (see handoffFile).
func (s *Server) serveHandoff(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	snap, _, err := s.current(ctx)
	if err != nil {
		httpError(w, err)
		return
	}
	id := r.URL.Query().Get("session")
	for _, a := range snap.Sessions {
		if a.SessionID != id {
			continue
		}
		real := s.handoffFile(a.Handoff)
		if real == "" {
			break
		}
		data, truncated, err := readCapped(real, maxHandoff)
		if err != nil {
			httpError(w, report.Refusedf(http.StatusNotFound, "handoff file: %v", err))
			return
		}
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Content-Disposition", "inline")
		_, _ = w.Write(data)
		if truncated {
			fmt.Fprintf(w, "\n\n[agentlock: the handoff file is longer than %d KiB; the rest is not shown: open %s]\n", maxHandoff>>10, report.Escape(real))
		}
		return
	}
	httpError(w, report.Refusedf(http.StatusNotFound, "no handoff file inside the project for this session"))
}

// maxHandoff is the most of a handoff file the page shows: a note for the
// next session, not a data file held in memory whole.
const maxHandoff = 256 << 10

// readCapped reads at most limit bytes of a file, and whether more is
// left.
func readCapped(path string, limit int64) ([]byte, bool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, false, fmt.Errorf("read %s: %w", path, err)
	}
	if int64(len(data)) > limit {
		return data[:limit], true, nil
	}
	return data, false, nil
}

// releaseRequest names the lock the page showed.
type releaseRequest struct {
	Path      string `json:"path"`
	SessionID string `json:"session_id"`
	Stamp     string `json:"stamp"`
}

// refusal is a release the server refused because the lock is not the one
// shown any more, or not stale nor orphaned.
type refusal struct{ reason string }

func (e *refusal) Error() string { return e.reason }

// serveRelease releases a stale or orphaned lock as agentlock release
// --force does — the same record and the same audit line — on condition,
// judged inside the lock's critical section, that it is still the lock
// the page showed (same owner, same stamp) and still stale, or held by a
// session the registry does not list as working.
func (s *Server) serveRelease(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	if s.opts.ReadOnly {
		httpError(w, report.Refusedf(http.StatusForbidden, "the dashboard is read-only (--read-only)"))
		return
	}
	if err := s.sameOrigin(r); err != nil {
		httpError(w, report.Refusedf(http.StatusForbidden, "%v", err))
		return
	}
	var req releaseRequest
	if err := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<10)).Decode(&req); err != nil {
		httpError(w, report.Usagef(0, "release: the body is not a release request: %v", err))
		return
	}
	stamp, err := parseStamp(req.Stamp)
	if err != nil || req.Path == "" || req.SessionID == "" {
		httpError(w, report.Usagef(0, "release: path, session_id and stamp are required"))
		return
	}
	// The lock must be one of this workspace's lock folder, named by the
	// real path its record holds: the page cannot reach any other file.
	snap, err := s.take(ctx)
	if err != nil {
		httpError(w, err)
		return
	}
	found := false
	for _, l := range snap.Locks {
		if l.Path == req.Path {
			found = true
			break
		}
	}
	if !found {
		// Released since the page showed it (an empty record does not say
		// its path), or never one of this lock folder's.
		httpError(w, report.Refusedf(0, "not released: no lock on %s is held in %s now; look again", req.Path, s.ws.LockDir))
		return
	}
	// The one release by force (session.Service.ForceRelease), guarded:
	// "orphaned" is judged on the registry as the snapshot read it, before
	// the lock's critical section, everything else on the record itself.
	owners := snap.owners()
	got, err := s.svc.ForceRelease(ctx, session.ForceRequest{Path: req.Path, Who: "dashboard (" + audit.Person() + ")", Action: audit.ActionPageRelease,
		Owners: &owners, If: func(now core.State, owners workspace.Owners) error {
			switch {
			case now.Owner != req.SessionID || !now.Stamp.Equal(stamp):
				return &refusal{fmt.Sprintf("not released: the lock on %s changed since the page showed it (now %s); look again", now.Name(), describe(now))}
			case owners.Releasable(now):
				return nil
			default:
				return &refusal{fmt.Sprintf("not released: %s is held by %s, whose session is not finished, and was renewed %s ago, within the project's timeout of %s: its owner is still renewing it", now.Name(), now.Owner, report.Human(now.Age), report.Human(s.locker.Timeout()))}
			}
		}})
	var refused *refusal
	switch {
	case errors.As(err, &refused):
		httpError(w, report.Refusedf(0, "%s", refused.reason))
		return
	case err != nil:
		httpError(w, err)
		return
	}
	rec, line := report.ForceReleased(got.Previous)
	fmt.Fprintln(s.opts.Audit, line)
	if got.AuditErr != nil {
		fmt.Fprintf(s.opts.Audit, "agentlock: warning: %v\n", got.AuditErr)
	}
	// The change is pushed to every page now, not when the file system
	// says so.
	go s.refreshIfWatching(ctx)
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(rec)
}

// refreshIfWatching reads the workspace again when Run keeps it current.
func (s *Server) refreshIfWatching(ctx context.Context) {
	s.mu.Lock()
	watching := s.watching
	s.mu.Unlock()
	if watching {
		s.refresh(ctx)
	}
}

// describe says who holds a lock now, for a refusal.
func describe(st core.State) string {
	switch {
	case st.Owner == "":
		return "free"
	case st.Stale:
		return fmt.Sprintf("held by %s, stale", st.Owner)
	default:
		return fmt.Sprintf("held by %s, renewed %s ago", st.Owner, report.Human(st.Age))
	}
}

// httpError answers err with the error record of the command line's
// --json output; its status and exit code derive from err's class (see
// report.ExitCode and report.HTTPStatus), as the command line's would.
func httpError(w http.ResponseWriter, err error) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(report.HTTPStatus(err))
	_ = json.NewEncoder(w).Encode(report.ErrorOf(err))
}
