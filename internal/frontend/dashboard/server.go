// Package dashboard is agentlock's live page for people: who works on
// what, the locks each session holds, the lock folder's counts and the
// events seen while serving, updated without reload by Server-Sent Events
// pushed when the lock folder or the registry changes. It also serves the
// command line's JSON records (/api/sessions, /api/locks) and lets a person
// release a stale or orphaned lock.
//
// It is built on the workspace like every other front end: it reads the
// lock folder with core.Locker.List and the registry with
// core.Registry.Load, and releases with core.Locker.ForceReleaseIf, which
// judges in one critical section that the lock is still the one the page
// showed. Everything it shows from the lock files and the registry goes
// through html/template, and the page runs no inline script.
//
// See docs/dashboard.md for the endpoints and the security model.
package dashboard

import (
	"context"
	"crypto/rand"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/session"
	"github.com/agentlock/agentlock/templates"
	"github.com/agentlock/agentlock/workspace"
)

//go:embed assets
var assets embed.FS

// Options configure a Server.
type Options struct {
	// Workspace is the project served.
	Workspace *workspace.Workspace
	// ReadOnly removes the release buttons and refuses releases.
	ReadOnly bool
	// Token, when set, must come with every request: an
	// "Authorization: Bearer" or X-Agentlock-Token header, a token query
	// parameter (which also sets a cookie for the page's own requests),
	// or that cookie. Required to listen on an address that is not
	// loopback (see listenaddr.Check).
	Token string
	// Audit receives the line of every release made from the page, as
	// agentlock release --force prints it; nil discards them.
	Audit io.Writer
	// Poll is how often the workspace is read when its store's change
	// feed cannot start; zero means one second.
	Poll time.Duration
	// Now is the clock; nil means time.Now.
	Now func() time.Time
	// Idle, when set, is called once the workspace has been quiet for
	// idleAfter after a change: a long-running server returns the memory
	// of its last reading to the system there (debug.FreeOSMemory).
	Idle func()
}

// idleAfter is how long the workspace stays quiet before Options.Idle.
const idleAfter = 2 * time.Second

// Server serves the dashboard of one workspace.
type Server struct {
	opts   Options
	ws     *workspace.Workspace
	locker *core.Locker
	// svc runs the verbs the page asks for (its release by force) on ws.
	svc   *session.Service
	csrf  string
	page  *template.Template
	rules string

	// refreshing serialises refresh, so that snapshots are recorded in
	// the order they were read.
	refreshing sync.Mutex
	mu         sync.Mutex
	snap       *Snapshot // the last snapshot read; nil before the first
	watching   bool      // Run keeps snap current
	events     []Event   // the most recent events, oldest first
	subs       map[*subscriber]struct{}
	seq        int64 // the number of the last event recorded
	closing    chan struct{}
	closed     bool
	// ready is closed once Run follows the store's feed and has read the
	// workspace a first time (see Serve).
	ready     chan struct{}
	readyOnce sync.Once

	// regMu guards the last reading of the registry (see loadRegistry).
	regMu  sync.Mutex
	regKey registryKey
	regDoc *core.Document
}

// New returns a Server for opts.Workspace.
func New(opts Options) (*Server, error) {
	if opts.Workspace == nil {
		return nil, errors.New("dashboard: no workspace")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.Poll <= 0 {
		opts.Poll = time.Second
	}
	if opts.Audit == nil {
		opts.Audit = io.Discard
	}
	var nonce [32]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		return nil, fmt.Errorf("dashboard: CSRF token: %w", err)
	}
	page, err := template.New("page.html").Funcs(template.FuncMap{
		"eventTime": eventTime,
		"brk":       breakable,
		"rel":       func(p string) string { return report.Rel(opts.Workspace.Project, p) },
	}).
		ParseFS(assets, "assets/page.html", "assets/view.html")
	if err != nil {
		return nil, fmt.Errorf("dashboard: templates: %w", err)
	}
	rules, err := templates.Protocol(templates.ProtocolData{Bin: "agentlock"})
	if err != nil {
		return nil, fmt.Errorf("dashboard: %w", err)
	}
	return &Server{
		opts: opts, ws: opts.Workspace, locker: opts.Workspace.Locker(), svc: session.ForWorkspace(opts.Workspace), csrf: hex.EncodeToString(nonce[:]),
		page: page, rules: protocolText(rules), subs: map[*subscriber]struct{}{}, closing: make(chan struct{}), ready: make(chan struct{}),
	}, nil
}

// breakable writes text (escaped for HTML) with a line-break opportunity
// after every separator of ids and paths (/ - _ . : @), so that a narrow
// screen breaks "src/auth/login.go" at a slash, never inside a word.
func breakable(text string) template.HTML {
	var b strings.Builder
	start := 0
	for i := 0; i < len(text); i++ {
		if strings.IndexByte("/-_.:@", text[i]) >= 0 {
			b.WriteString(template.HTMLEscapeString(text[start : i+1]))
			b.WriteString("<wbr>")
			start = i + 1
		}
	}
	b.WriteString(template.HTMLEscapeString(text[start:]))
	return template.HTML(b.String()) //nolint:gosec // every piece is escaped above
}

// protocolText is the protocol block without its HTML comments: the
// rules, as markdown text.
func protocolText(block string) string {
	if i := strings.Index(block, "-->"); i >= 0 {
		block = block[i+len("-->"):]
	}
	if i := strings.Index(block, "<!-- PROTOCOL:END"); i >= 0 {
		block = block[:i]
	}
	return strings.TrimSpace(block)
}

func (s *Server) now() time.Time { return s.opts.Now() }

// Serve serves the dashboard on ln until ctx is done, then shuts down
// gracefully: open event streams are ended and requests in flight get up
// to two seconds to finish.
func (s *Server) Serve(ctx context.Context, ln net.Listener) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	srv := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	srv.RegisterOnShutdown(s.close)
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		s.Run(ctx)
	}()
	// Pages and streams are served once Run follows the feed and has read
	// the workspace: a stream opened earlier could miss a change made
	// before that first reading (it is in the reading, so no event tells
	// of it). The listener is bound already; connections wait in its
	// backlog.
	select {
	case <-s.ready:
	case <-watched:
	}
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		cancel()
		<-watched
		return fmt.Errorf("dashboard: %w", err)
	case <-ctx.Done():
	}
	stop, stopCancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer stopCancel()
	err := srv.Shutdown(stop)
	<-watched
	if err != nil {
		return fmt.Errorf("dashboard: shut down: %w", err)
	}
	return nil
}

// close ends every event stream.
func (s *Server) close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.closed = true
		close(s.closing)
	}
}

// Run keeps the server's snapshot current until ctx is done: it reads the
// workspace whenever its store's change feed says so (workspace.Changes:
// etcd's watches, the lock files' folder notifications) and when the next
// held lock goes stale, and pushes the events it finds to the event
// streams.
func (s *Server) Run(ctx context.Context) {
	// The store's change feed tells of every change (on etcd, made on
	// any machine). A feed that cannot start (a cluster that does not
	// answer) is replaced by reading again every Options.Poll.
	changes, err := s.ws.Changes(ctx)
	if err != nil {
		changes = ticks(ctx, s.opts.Poll)
	}
	s.mu.Lock()
	s.watching = true
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.watching = false
		s.mu.Unlock()
	}()
	next := s.refresh(ctx)
	s.readyOnce.Do(func() { close(s.ready) })
	for s.wait(ctx, changes, next) {
		// Under a steady stream of writes (200 sessions renewing), changes
		// are coalesced: at most one reading per minGap. The first change
		// after a quiet spell is read at once (after settle).
		if gap := time.Until(s.lastRead().Add(minGap)); gap > 0 {
			select {
			case <-ctx.Done():
				return
			case <-time.After(gap):
			}
		}
		next = s.refresh(ctx)
	}
}

// ticks sends on the returned channel (buffered, so that ticks coalesce)
// every period until ctx is done.
func ticks(ctx context.Context, every time.Duration) <-chan struct{} {
	out := make(chan struct{}, 1)
	go func() {
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				select {
				case out <- struct{}{}:
				default:
				}
			}
		}
	}()
	return out
}

// minGap is the least time between two readings of the workspace while
// changes keep coming: what a heartbeat costs the server is one reading of
// the lock folder and the registry, and a fleet renews several times a
// second.
const minGap = 400 * time.Millisecond

// lastRead is when the snapshot shown was read.
func (s *Server) lastRead() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.snap == nil {
		return time.Time{}
	}
	return s.snap.Taken
}

// wait waits for a change, or for the next held lock to expire (next; zero
// when none is held), calling Options.Idle once the workspace has been
// quiet for idleAfter. It returns false when ctx is done.
func (s *Server) wait(ctx context.Context, changes <-chan struct{}, next time.Time) bool {
	var expiry, quiet <-chan time.Time
	if !next.IsZero() {
		timer := time.NewTimer(max(next.Sub(s.now())+10*time.Millisecond, 10*time.Millisecond))
		defer timer.Stop()
		expiry = timer.C
	}
	if s.opts.Idle != nil {
		timer := time.NewTimer(idleAfter)
		defer timer.Stop()
		quiet = timer.C
	}
	for {
		select {
		case <-ctx.Done():
			return false
		case <-changes:
			return true
		case <-expiry:
			return true
		case <-quiet:
			s.opts.Idle()
			quiet = nil
		}
	}
}

// refresh reads the workspace, records and pushes what changed, and
// returns when the next held lock expires.
func (s *Server) refresh(ctx context.Context) time.Time {
	s.refreshing.Lock()
	defer s.refreshing.Unlock()
	snap, err := s.take(ctx)
	if err != nil {
		// The lock folder cannot be listed (removed, unreadable): the
		// page keeps the last snapshot and says nothing new.
		return time.Time{}
	}
	s.mu.Lock()
	prev := s.snap
	s.snap = snap
	events := diff(prev, snap)
	var frames [][]byte
	for i := range events {
		s.seq++
		events[i].Seq = s.seq
		frames = append(frames, sseFrame("lock", events[i]))
	}
	switch {
	case same(prev, snap):
	case renewedOnly(prev, snap):
		// A heartbeat changes ages only: the page moves them in place.
		frames = append(frames, sseFrame("renew", renewals(prev, snap)))
	default:
		c := snap.counts()
		frames = append(frames, sseFrame("change", map[string]any{"kind": "change", "time": snap.Taken.UTC().Format(time.RFC3339Nano),
			"free": c.Free, "held": c.Held, "stale": c.Stale, "corrupt": c.Corrupt}))
	}
	s.events = append(s.events, events...)
	if n := len(s.events); n > maxEvents {
		s.events = append([]Event(nil), s.events[n-maxEvents:]...)
	}
	for sub := range s.subs {
		sub.push(frames)
	}
	s.mu.Unlock()
	return snap.nextExpiry()
}

// current returns the snapshot to show: the one Run keeps current, or a
// new reading when Run is not running.
func (s *Server) current(ctx context.Context) (*Snapshot, []Event, error) {
	s.mu.Lock()
	if s.watching && s.snap != nil {
		snap, events := s.snap, append([]Event(nil), s.events...)
		s.mu.Unlock()
		return snap, events, nil
	}
	s.mu.Unlock()
	snap, err := s.take(ctx)
	if err != nil {
		return nil, nil, err
	}
	s.mu.Lock()
	events := append([]Event(nil), s.events...)
	s.mu.Unlock()
	return snap, events, nil
}

// maxPending is how many frames an event stream may fall behind by. A
// stream further behind is not cut: its queue is replaced by one "resync"
// frame, after which the page reads everything again.
const maxPending = 4096

// subscriber is one event stream: the frames not yet written, and a wake
// signal. Its queue never blocks refresh.
type subscriber struct {
	wake    chan struct{} // buffered (1): frames are waiting
	pending [][]byte      // guarded by Server.mu
	resync  bool          // frames were dropped: send a resync marker
	dropped int           // how many
}

// push queues frames (called with Server.mu held).
func (sub *subscriber) push(frames [][]byte) {
	if len(frames) == 0 {
		return
	}
	if sub.resync || len(sub.pending)+len(frames) > maxPending {
		sub.dropped += len(sub.pending) + len(frames)
		sub.pending, sub.resync = nil, true
	} else {
		sub.pending = append(sub.pending, frames...)
	}
	select {
	case sub.wake <- struct{}{}:
	default:
	}
}

// nextFrames returns the frames waiting for sub, a resync marker first when
// frames were dropped.
func (s *Server) nextFrames(sub *subscriber) [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	frames := sub.pending
	if sub.resync {
		frames = [][]byte{sseFrame("resync", map[string]any{"kind": "resync", "dropped": sub.dropped,
			"reason": "this stream fell behind: read /view (or /api/locks and /api/sessions) again"})}
		sub.resync, sub.dropped = false, 0
	}
	sub.pending = nil
	return frames
}

// subscribe registers an event stream.
func (s *Server) subscribe() (*subscriber, func()) {
	sub := &subscriber{wake: make(chan struct{}, 1)}
	s.mu.Lock()
	s.subs[sub] = struct{}{}
	s.mu.Unlock()
	return sub, func() {
		s.mu.Lock()
		delete(s.subs, sub)
		s.mu.Unlock()
	}
}

// handoffFile returns the real path of a handoff file that the page may
// serve: a regular file inside the project, named in the registry as a
// session's handoff, outside the workspace's own state, with no dotfile or
// dot-folder on its way (.env, .git, .ssh) and no name that looks like a
// secret (see secretName). Any other returns "".
func (s *Server) handoffFile(handoff string) string {
	if s.ws.Project == "" || handoff == "" {
		return ""
	}
	p := handoff
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.ws.Project, p)
	}
	// The name as written and the file it resolves to are both checked:
	// a link named notes.md to .env is refused too.
	for _, cand := range []string{filepath.Clean(p), ""} {
		if cand == "" {
			real, err := filepath.EvalSymlinks(p)
			if err != nil {
				return ""
			}
			cand = real
		}
		rel, err := filepath.Rel(s.ws.Project, cand)
		if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
			return ""
		}
		for _, part := range strings.Split(rel, string(filepath.Separator)) {
			if strings.HasPrefix(part, ".") || secretName(part) {
				return ""
			}
		}
		// The workspace's own state is not a handoff.
		for _, state := range []string{s.ws.Home, s.ws.LockDir, s.ws.RegistryPath} {
			if inside(cand, state) {
				return ""
			}
		}
		p = cand
	}
	info, err := os.Stat(p)
	if err != nil || !info.Mode().IsRegular() {
		return ""
	}
	return p
}

// inside reports whether path is dir or below it.
func inside(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// secretPatterns are names of files that hold secrets, matched without
// regard to case against every part of a handoff's path.
var secretPatterns = []string{
	"*.env", "env", "*.pem", "*.key", "*.p12", "*.pfx", "*.keystore", "*.jks", "id_rsa*", "id_dsa*", "id_ecdsa*", "id_ed25519*",
	"*secret*", "*credential*", "*password*", "*passwd*", "*token*", "*.kdbx", "shadow", "*.tfstate", "*.tfvars",
}

// secretName reports whether a file or folder name looks like a secret's.
func secretName(name string) bool {
	name = strings.ToLower(name)
	for _, pat := range secretPatterns {
		if ok, _ := filepath.Match(pat, name); ok {
			return true
		}
	}
	return false
}

// staticFS is the embedded folder of the page's script and style.
func staticFS() fs.FS {
	sub, err := fs.Sub(assets, "assets/static")
	if err != nil {
		panic(err) // the folder is embedded: it exists
	}
	return sub
}
