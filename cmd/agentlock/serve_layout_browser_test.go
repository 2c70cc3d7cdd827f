package main_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// startBrowser starts a headless Chromium with a window of width x height
// and returns its tab; a test in CI fails when there is none.
func startBrowser(t *testing.T, width, height int) context.Context {
	t.Helper()
	browser := chromium()
	if browser == "" {
		skipLoudly(t, "no chromium on PATH (apt-get install -y chromium; .ci/run installs it)")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	alloc, cancelAlloc := chromedp.NewExecAllocator(ctx, append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.WindowSize(width, height),
		chromedp.UserDataDir(filepath.Join(realTempDir(t), "chromium")))...)
	t.Cleanup(cancelAlloc)
	tab, cancelTab := chromedp.NewContext(alloc)
	t.Cleanup(cancelTab)
	if err := chromedp.Do(tab, chromedp.EmulateViewport(int64(width), int64(height))); err != nil {
		skipLoudly(t, "chromium (%s) cannot start: %v", browser, err)
	}
	return tab
}

// startServe starts `agentlock serve` for p and returns the page's URL.
func startServe(t *testing.T, p *project, args ...string) (*proctest.Proc, string) {
	t.Helper()
	return startServeFor(t, p, 0, args...)
}

// startServeFor is startServe with a server that may run for limit
// (zero: proctest.Timeout).
func startServeFor(t *testing.T, p *project, limit time.Duration, args ...string) (*proctest.Proc, string) {
	t.Helper()
	serve := proctest.Start(t, harness(t).Bin, proctest.Cmd{Args: append([]string{"serve", "--addr", "127.0.0.1:0"}, args...), Env: p.env, Dir: p.dir, Limit: limit})
	serve.WaitStderr(t, "serving the dashboard", 10*time.Second)
	link := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`).FindString(serve.Stderr())
	require.NotEmpty(t, link, serve.Stderr())
	return serve, link
}

// midTokenBreaks lists the places where the layout broke a line inside a
// word of the session and lock tables: between two characters neither of
// which is a separator (space / - _ . : @), measured from the characters'
// boxes in the page.
const midTokenBreaks = `(() => {
  const seps = " /-_.:@·,;";
  const bad = [];
  const r = document.createRange();
  document.querySelectorAll("table.sessions td, table.locks td").forEach(td => {
    if (td.offsetParent === null) return;
    const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
    let prevTop = null, prevBottom = null, prevChar = " ", prevBlock = null;
    for (let n = walker.nextNode(); n; n = walker.nextNode()) {
      if (n.parentElement.closest("details:not([open]) > :not(summary)")) continue;
      // A new block (a list item, a details line) starts a line of its own.
      const block = n.parentElement.closest("li, div, details, summary, dd, dt, td, ul, p");
      if (block !== prevBlock) { prevTop = null; prevChar = " "; prevBlock = block; }
      for (let i = 0; i < n.data.length; i++) {
        const ch = n.data[i];
        if (/\s/.test(ch)) { prevChar = " "; continue; }
        r.setStart(n, i); r.setEnd(n, i + 1);
        const rects = r.getClientRects();
        if (!rects.length) continue;
        const top = rects[0].top;
        if (prevTop !== null && top >= prevBottom - 1 && !seps.includes(prevChar)) {
          bad.push(JSON.stringify(td.textContent.trim().slice(0, 80)) + " broken before " + JSON.stringify(n.data.slice(i, i + 12)));
        }
        prevTop = top; prevBottom = rects[0].bottom; prevChar = ch;
      }
    }
  });
  return bad;
})()`

// A seeded project for the layout tests: sessions with long ids, paths
// several folders deep, an area, a stale lock, a finished session.
func layoutProject(t *testing.T) *project {
	t.Helper()
	p := newProject(t)
	// A project as deep as a developer's checkout, whatever the temporary
	// folder: its path in the page's header must wrap on a phone too.
	p.dir = filepath.Join(p.dir, "src", "github.com", "example-organisation", "a-repository-with-a-long-name")
	require.NoError(t, os.MkdirAll(filepath.Join(p.dir, ".git"), 0o755))
	requireExit(t, 0, p.run("init"))
	sessions := []struct{ id, work string }{
		{"claude-code-7f3a9c2e-41b8-4d5e-9a7c-0b1e2d3f4a5b", "refactor the authentication middleware: split login() and session refresh"},
		{"codex-cli-20261201-2330-a9f8", "tests for the lock table"},
		{"gemini-cli-3", "docs: the dashboard's screenshots"},
		{"kimi-code-session-long-identifier-0042", "port the hooks to the new payloads"},
	}
	paths := [][]string{
		{"store/filestore/os_unix_linux_amd64.go", "cmd/agentlock/serve_layout_browser_test.go", "src/services/authentication/middleware/session_refresh_handler.ts"},
		{"dashboard/assets/static/app.js"},
		{"docs/"},
		{"hooks/testdata/payloads/claude-code-2.1.0-pre-tool-use-write.json"},
	}
	for i, s := range sessions {
		requireExit(t, 0, p.run("register", "--session", s.id, "--working-on", s.work))
		requireExit(t, 0, p.run(append([]string{"acquire", "--session", s.id}, paths[i]...)...))
	}
	requireExit(t, 0, p.run("update", "--session", sessions[0].id, "--todo-present", "session refresh, then the tests"))
	requireExit(t, 0, p.run("register", "--session", "copilot-cli-finished-1", "--working-on", "release notes"))
	requireExit(t, 0, p.run("finish", "--session", "copilot-cli-finished-1"))
	stale := filepath.Join(p.dir, "src", "legacy", "very_long_module_name_for_the_report_generator.py")
	locks := filepath.Join(p.dir, ".agent-registry", "locks")
	require.NoError(t, os.WriteFile(filepath.Join(locks, lockName(stale)), []byte(record("aider-session-9", time.Hour, stale)), 0o644))
	return p
}

// The page at a phone's 390x844 and a desktop's 1400x900: nothing wider
// than the screen, no id or path broken inside a word (checked from the
// boxes of the laid-out characters), dark mode when the system asks for
// it, and the Release button reached and pressed with the keyboard alone.
// Screenshots of both go to docs/ with -update.
func TestDashboardLayout(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a browser")
	}
	p := layoutProject(t)
	serve, link := startServe(t, p, "--read-only")
	defer func() {
		require.NoError(t, serve.Signal(syscall.SIGTERM))
		requireExit(t, 0, serve.Wait(t))
	}()
	for _, size := range [][2]int{{390, 844}, {1400, 900}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			ctx := startBrowser(t, size[0], size[1])
			require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(link), chromedp.WaitVisible(`#live[data-state="live"]`)))
			overflow, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`[document.documentElement.scrollWidth, window.innerWidth]`))
			require.NoError(t, err)
			assert.LessOrEqual(t, overflow[0], overflow[1], "the page is wider than the screen")
			wide, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`Array.from(document.querySelectorAll("#view *")).filter(e => e.getBoundingClientRect().right > window.innerWidth + 1).map(e => e.tagName + "." + e.className + ": " + e.textContent.slice(0, 40))`))
			require.NoError(t, err)
			assert.Empty(t, wide, "elements past the right edge")
			broken, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](midTokenBreaks))
			require.NoError(t, err)
			assert.Empty(t, broken, "words broken mid-token")
			rows, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("table.locks tr.lock").length`))
			require.NoError(t, err)
			assert.Equal(t, 7, rows, "every lock is listed")
			png := shot(t, ctx)
			require.NoError(t, os.WriteFile(filepath.Join(t.ArtifactDir(), "layout.png"), png, 0o644))
			if *update {
				require.NoError(t, os.WriteFile(filepath.Join("..", "..", "docs", fmt.Sprintf("dashboard-%d.png", size[0])), png, 0o644))
			}

			// Dark mode follows the system's setting.
			light, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.body).backgroundColor`))
			require.NoError(t, err)
			_, err = chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}})
			require.NoError(t, err)
			dark, err := chromedp.Run(ctx, chromedp.Evaluate[string](`getComputedStyle(document.body).backgroundColor`))
			require.NoError(t, err)
			assert.Equal(t, "rgb(255, 255, 255)", light)
			assert.NotEqual(t, light, dark, "dark mode from prefers-color-scheme")
			if *update && size[0] == 1400 {
				require.NoError(t, os.WriteFile(filepath.Join("..", "..", "docs", "dashboard-dark.png"), shot(t, ctx), 0o644))
			}
		})
	}
}

// Every action is reachable with the keyboard: Tab reaches a session's
// details and the Release button of the stale lock, Enter opens them, and
// Escape cancels the confirmation without releasing anything.
func TestDashboardKeyboard(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a browser")
	}
	p := layoutProject(t)
	serve, link := startServe(t, p)
	defer func() {
		require.NoError(t, serve.Signal(syscall.SIGTERM))
		requireExit(t, 0, serve.Wait(t))
	}()
	ctx := startBrowser(t, 1400, 900)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(link), chromedp.WaitVisible(`#live[data-state="live"]`)))
	reached := map[string]bool{}
	for range 120 {
		require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent("\t")))
		what, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(e => e.tagName + "." + (e.className || "") + (e.closest("details.more") ? ".more" : ""))(document.activeElement)`))
		require.NoError(t, err)
		reached[what] = true
		if what == "BUTTON.release" {
			break
		}
	}
	assert.True(t, reached["SUMMARY..more"], "a session's details are reachable: %v", reached)
	assert.True(t, reached["INPUT."], "the filter is reachable: %v", reached)
	require.True(t, reached["BUTTON.release"], "the Release button is reachable: %v", reached)
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent("\r"), chromedp.WaitVisible(`#confirm-release`)))
	open, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("confirm").open`))
	require.NoError(t, err)
	assert.True(t, open, "Enter on Release asks for confirmation")
	require.NoError(t, chromedp.Do(ctx, chromedp.KeyEvent("\x1b"), chromedp.Sleep(200*time.Millisecond)))
	open, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("confirm").open`))
	require.NoError(t, err)
	assert.False(t, open, "Escape closes it")
	stale := filepath.Join(p.dir, "src", "legacy", "very_long_module_name_for_the_report_generator.py")
	owner, _ := p.ownerAndStamp(stale)
	assert.Equal(t, "aider-session-9", owner, "nothing released without the confirmation")

	// The filters: typed text (a session or a path), a provider, a state.
	visible := func() []int {
		n, err := chromedp.Run(ctx, chromedp.Evaluate[[]int](`[document.querySelectorAll("table.locks tr.lock:not([hidden])").length, document.querySelectorAll("tr.session:not(.finished):not([hidden])").length]`))
		require.NoError(t, err)
		return n
	}
	assert.Equal(t, []int{7, 4}, visible())
	require.NoError(t, chromedp.Do(ctx, chromedp.Focus(`#filter-text`), chromedp.KeyEvent("gemini")))
	assert.Equal(t, []int{1, 1}, visible(), "the text filter keeps gemini-cli-3's rows")
	_, err = chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
	  document.getElementById("filter-text").value = "";
	  const state = document.getElementById("filter-state");
	  state.value = "stale";
	  return state.dispatchEvent(new Event("input"));
	})()`))
	require.NoError(t, err)
	assert.Equal(t, []int{1, 0}, visible(), "the state filter keeps the stale lock")
}

// 50 working sessions renew their locks (separate `agentlock heartbeat`
// processes, each session about every 5 s) for 60 s while a page is open
// with a session's details opened and focused: the page never fetches the
// view again (renewals move ages in place), the opened section stays open,
// the focus stays, the rows are the same elements, and the ages shown
// follow the renewals and tick between them.
func TestDashboardRenewalsKeepTheView(t *testing.T) {
	if testing.Short() {
		t.Skip("drives a browser for a minute")
	}
	run := 60 * time.Second
	if d, err := time.ParseDuration(os.Getenv("AGENTLOCK_TEST_RENEWAL_RUN")); err == nil && d > 0 {
		run = d // a shorter, otherwise equal run, for a quick look
	}
	p := newProject(t)
	requireExit(t, 0, p.run("init"))
	setUp := time.Now() // every lock below is stamped no earlier
	const sessions = 50
	for i := range sessions {
		id := fmt.Sprintf("agent-%02d", i)
		requireExit(t, 0, p.run("register", "--session", id, "--working-on", "task "+id))
		requireExit(t, 0, p.run("acquire", "--session", id, fmt.Sprintf("src/pkg%02d/file.go", i)))
	}
	serve, link := startServeFor(t, p, run+time.Minute, "--read-only")
	defer func() {
		require.NoError(t, serve.Signal(syscall.SIGTERM))
		requireExit(t, 0, serve.Wait(t))
	}()
	ctx := startBrowser(t, 1400, 900)
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(link), chromedp.WaitVisible(`#live[data-state="live"]`)))
	// Let the first fetch (on connecting) settle, then mark what must stay.
	require.NoError(t, chromedp.Do(ctx, chromedp.Sleep(500*time.Millisecond)))
	const details = `tr[data-session="agent-07"] details.more`
	require.NoError(t, chromedp.Do(ctx, chromedp.Click(details+` > summary`), chromedp.Focus(details+` > summary`)))
	before, err := chromedp.Run(ctx, chromedp.Evaluate[int](`(() => {
	  document.querySelector("table.locks").__mark = 1;
	  document.querySelectorAll("tr[data-key]").forEach(r => r.__mark = 1);
	  return window.agentlockStats.fetches;
	})()`))
	require.NoError(t, err)
	ageBefore, err := chromedp.Run(ctx, chromedp.Text(`tr[data-session="agent-07"] [data-age]`))
	require.NoError(t, err)

	// The renewals: each round renews ten sessions, one process each.
	// renewedAfter is when each session's last renewal started: its lock
	// is stamped no earlier (than taken, before the renewals, when none).
	deadline := time.Now().Add(run)
	renewals := 0
	renewedAfter := map[string]time.Time{}
	lastRenewal := func(session string) time.Time {
		if at, ok := renewedAfter[session]; ok {
			return at
		}
		return setUp
	}
	for round := 0; time.Now().Before(deadline); round++ {
		start := time.Now()
		for i := range 10 {
			id := fmt.Sprintf("agent-%02d", (round*10+i)%sessions)
			renewedAfter[id] = time.Now()
			requireExit(t, 0, p.run("heartbeat", "--all", "--session", id))
			renewals++
		}
		time.Sleep(max(time.Second-time.Since(start), 0))
	}
	require.NoError(t, chromedp.Do(ctx, chromedp.Sleep(500*time.Millisecond)))
	type state struct {
		Fetches, Renewals, Rows, Marked int
		Table, Open                     bool
		Focus                           string
	}
	after, err := chromedp.Run(ctx, chromedp.Evaluate[state](`(() => ({
	  Fetches: window.agentlockStats.fetches, Renewals: window.agentlockStats.renewals,
	  Rows: document.querySelectorAll("tr[data-key]").length,
	  Marked: Array.from(document.querySelectorAll("tr[data-key]")).filter(r => r.__mark === 1).length,
	  Table: document.querySelector("table.locks").__mark === 1,
	  Open: document.querySelector('`+details+`').open,
	  Focus: document.activeElement.closest("tr") ? document.activeElement.closest("tr").dataset.session : "",
	}))()`))
	require.NoError(t, err)
	t.Logf("%d renewals in %s: %+v", renewals, run, after)
	assert.Equal(t, before, after.Fetches, "renewals never refetch the view")
	assert.Positive(t, after.Renewals, "the renewals reached the page")
	assert.True(t, after.Table, "the lock table is the same element: no full redraw")
	assert.Equal(t, after.Rows, after.Marked, "every row is the same element")
	assert.Equal(t, 2*sessions, after.Rows, "50 sessions and 50 locks")
	assert.True(t, after.Open, "the opened section stays open")
	assert.Equal(t, "agent-07", after.Focus, "the focus stays")

	// Ages follow the renewals, and tick between them. An age shown is at
	// most the time since its lock's last renewal started (plus the
	// page's rounding to the second): bounds taken from the test's own
	// clock readings, which a slow machine moves on together with the
	// page's, not a figure. Without the renewals on the page, the ages
	// would be a whole run old.
	ageAfter, err := chromedp.Run(ctx, chromedp.Text(`tr[data-session="agent-07"] [data-age]`))
	require.NoError(t, err)
	t.Logf("agent-07's age: %s before, %s after", ageBefore, ageAfter)
	assertAgeAtMost(t, ageAfter, time.Since(lastRenewal("agent-07")))
	first, err := chromedp.Run(ctx, chromedp.Text(`table.locks tr.lock [data-age]`))
	require.NoError(t, err)
	// It ticks: polled until it changes (within the poll's 30 s), not read
	// again after a pause a busy browser may not keep.
	_, err = chromedp.Run(ctx, chromedp.Poll[bool](`document.querySelector("table.locks tr.lock [data-age]").textContent !== `+strconv.Quote(first),
		chromedp.WithPollingInterval(100*time.Millisecond)))
	require.NoError(t, err, "ages tick between changes: the first row's stayed %s", first)
	type row struct{ Session, Age string }
	second, err := chromedp.Run(ctx, chromedp.Evaluate[row](`(() => {
	  const r = document.querySelector("table.locks tr.lock");
	  return {Session: r.dataset.session, Age: r.querySelector("[data-age]").textContent};
	})()`))
	require.NoError(t, err)
	assertAgeAtMost(t, second.Age, time.Since(lastRenewal(second.Session)))
}

// assertAgeAtMost checks that an age the page shows is no more than limit,
// give or take the page's rounding to the second.
func assertAgeAtMost(t *testing.T, age string, limit time.Duration) {
	t.Helper()
	d, err := time.ParseDuration(strings.TrimSpace(age))
	require.NoError(t, err, age)
	assert.LessOrEqual(t, d, limit+time.Second, "the age shown follows the renewals: %s, renewed %s ago", age, limit.Round(time.Millisecond))
}
