package main_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// hostileWorkingOn would run script if the page put it into HTML unescaped.
const hostileWorkingOn = `<img src=x onerror="window.__pwned=1">`

// chromium finds a Chromium or Chrome to drive, "" when there is none.
func chromium() string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	return ""
}

// skipLoudly skips a browser test with a line that shows without -v too.
func skipLoudly(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := "BROWSER TESTS SKIPPED: " + fmt.Sprintf(format, args...)
	fmt.Fprintln(os.Stderr, msg)
	proctest.Unavailable(t, "%s", msg)
}

// ownerAndStamp reads the record of a lock file of the project.
func (p *project) ownerAndStamp(real string) (owner, stamp string) {
	p.t.Helper()
	data, err := os.ReadFile(filepath.Join(p.dir, ".agent-registry", "locks", lockName(real)))
	require.NoError(p.t, err)
	parts := strings.SplitN(string(data), "|", 3)
	if len(parts) < 2 {
		return "", ""
	}
	return parts[0], parts[1]
}

// browserLog collects the page's console errors and uncaught exceptions.
type browserLog struct {
	mu     sync.Mutex
	errors []string
}

func (b *browserLog) add(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.errors = append(b.errors, s)
}

func (b *browserLog) all() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.errors...)
}

// The dashboard in a real browser (headless Chromium driven by chromedp),
// against a real `agentlock serve` process: the page loads with no console
// error; a lock taken by a separate `agentlock acquire` appears without
// reload within a second; a hostile working_on renders as text; releasing
// a stale lock from the page frees it on disk, with release --force's line;
// SIGTERM stops the server. Screenshots go to the test's artifact folder
// (go test -artifacts), and with -update to docs/dashboard.png.
func TestDashboardInBrowser(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a browser and waits in real time")
	}
	browser := chromium()
	if browser == "" {
		skipLoudly(t, "no chromium on PATH (apt-get install -y chromium; .ci/run installs it)")
	}
	p := newProject(t)
	requireExit(t, 0, p.run("init"))
	requireExit(t, 0, p.run("register", "--session", "claude-1", "--working-on", "refactor auth: split login()"))
	requireExit(t, 0, p.run("acquire", "--session", "claude-1", "src/auth/login.go", "src/auth/session.go"))
	requireExit(t, 0, p.run("register", "--session", "gemini-3", "--working-on", hostileWorkingOn))
	requireExit(t, 0, p.run("register", "--session", "kimi-2", "--working-on", "docs for the release"))
	requireExit(t, 0, p.run("finish", "--session", "kimi-2"))
	// A stale lock, left by a session that stopped renewing an hour ago.
	stale := filepath.Join(p.dir, "src", "stale.go")
	locks := filepath.Join(p.dir, ".agent-registry", "locks")
	require.NoError(t, os.WriteFile(filepath.Join(locks, lockName(stale)), []byte(record("codex-9", time.Hour, stale)), 0o644))

	serve := proctest.Start(t, harness(t).Bin, proctest.Cmd{Args: []string{"serve", "--addr", "127.0.0.1:0"}, Env: p.env, Dir: p.dir})
	serve.WaitStderr(t, "serving the dashboard", 10*time.Second)
	link := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`).FindString(serve.Stderr())
	require.NotEmpty(t, link, serve.Stderr())

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.WindowSize(1280, 900),
		chromedp.UserDataDir(filepath.Join(realTempDir(t), "chromium")))...)
	defer cancelAlloc()
	ctx, cancelTab := chromedp.NewContext(alloc)
	defer cancelTab()
	// The browser starts with the first action: an empty one.
	if err := chromedp.Do(ctx); err != nil {
		skipLoudly(t, "chromium (%s) cannot start: %v", browser, err)
	}
	console := &browserLog{}
	messages := chromedp.Console(ctx)
	go func() {
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				console.add(m.String() + " " + m.URL)
			}
		}
	}()

	// The page loads, connects its event stream, and shows the registry,
	// the hostile working_on as text.
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Navigate(link),
		chromedp.WaitVisible(`#live[data-state="live"]`),
	), "stderr of serve: %s", serve.Stderr())
	workingOn, err := chromedp.Run(ctx, chromedp.Text(`tr[data-session="gemini-3"] .working-on`))
	require.NoError(t, err)
	assert.Equal(t, hostileWorkingOn, workingOn, "the hostile working_on is shown as text")
	pwned, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__pwned === 1`))
	require.NoError(t, err)
	assert.False(t, pwned, "no script of the registry ran")
	images, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#view img").length`))
	require.NoError(t, err)
	assert.Zero(t, images, "no element came from the registry")
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__marker = true`))
	require.NoError(t, err)
	screenshot(t, ctx, "loaded.png")

	// A lock taken by a separate process appears without reload. How long
	// it took is logged: well within a second on an idle machine, any
	// figure on a loaded one, so the wait is bounded only by the test's
	// deadline.
	requireExit(t, 0, p.run("register", "--session", "codex-7", "--working-on", "tests for the lock table"))
	requireExit(t, 0, p.run("acquire", "--session", "codex-7", "src/new.go"))
	acquired := time.Now()
	err = chromedp.Do(ctx, chromedp.WaitVisible(fmt.Sprintf(`tr.lock[data-path=%q]`, filepath.Join(p.dir, "src", "new.go"))))
	require.NoError(t, err, "the lock taken by agentlock acquire did not appear")
	t.Logf("the lock appeared %s after agentlock acquire exited", time.Since(acquired).Round(time.Millisecond))
	marker, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`window.__marker === true`))
	require.NoError(t, err)
	assert.True(t, marker, "the page was not reloaded")
	screenshot(t, ctx, "live.png")
	if *update {
		// README's picture: sessions, a stale lock, live events.
		require.NoError(t, os.WriteFile(filepath.Join("..", "..", "docs", "dashboard.png"), shot(t, ctx), 0o644))
	}

	// Releasing the stale lock from the page, with confirmation, frees it
	// on disk.
	button := fmt.Sprintf(`button.release[data-path=%q]`, stale)
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(button), chromedp.WaitVisible(`#confirm-release`)))
	dialogOpen, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("confirm").open`))
	require.NoError(t, err)
	assert.True(t, dialogOpen, "a confirmation is asked first")
	owner, _ := p.ownerAndStamp(stale)
	assert.Equal(t, "codex-9", owner, "nothing is released before the confirmation")
	screenshot(t, ctx, "confirm.png")
	require.NoError(t, chromedp.Do(ctx,
		chromedp.Click(`#confirm-release`),
		chromedp.WaitVisible(`#notice[data-kind="ok"]`),
		chromedp.WaitNotPresent(button),
	))
	data, err := os.ReadFile(filepath.Join(locks, lockName(stale)))
	require.NoError(t, err)
	assert.Empty(t, data, "the stale lock file is emptied on disk")
	assert.Equal(t, "codex-7", p.owner("src/new.go"), "the other locks stay")
	screenshot(t, ctx, "released.png")
	assert.Empty(t, console.all(), "console errors")

	// SIGTERM stops the server gracefully, its audit line printed.
	cancelTab()
	require.NoError(t, serve.Signal(syscall.SIGTERM))
	r := serve.Wait(t)
	requireExit(t, 0, r)
	assert.Contains(t, r.Stdout, fmt.Sprintf("released %s by force (it was held by codex-9)", stale))
	assert.Contains(t, r.Stderr, "dashboard stopped")
}

// shot takes a screenshot of the whole page.
func shot(t *testing.T, ctx context.Context) []byte {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	require.NoError(t, err)
	return png
}

// screenshot saves a screenshot of the page as a test artifact.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	path := filepath.Join(t.ArtifactDir(), name)
	require.NoError(t, os.WriteFile(path, shot(t, ctx), 0o644))
	t.Logf("screenshot: %s", path)
}
