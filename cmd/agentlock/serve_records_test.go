package main_test

import (
	"encoding/json"
	"io"
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

// withoutClock drops the fields of lock records that the clock moves
// between two readings (age, expires_in): the rest must be equal.
func withoutClock(recs []map[string]any) []map[string]any {
	for _, r := range recs {
		delete(r, "age")
		delete(r, "expires_in")
	}
	return recs
}

// getLines reads an endpoint's JSON lines.
func getLines(t *testing.T, url string) []map[string]any {
	t.Helper()
	resp, err := http.Get(url)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", data)
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec), line)
		out = append(out, rec)
	}
	return out
}

// /api/locks serves the records of agentlock status --json (docs/dashboard.md),
// every field alike: the orphaned locks and the other worktrees' changes
// marked as status marks them, and with ?all=1 those of status --all.
func TestAPILocksAreStatusRecords(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a server")
	}
	w := newWorktrees(t, "")
	repo := w.dirs[0]
	requireExit(t, 0, w.run(0, "register", "--session", "s1", "--working-on", "records"))
	requireExit(t, 0, w.run(0, "acquire", "--session", "s1", "src/x.py", "shared.txt", "free.txt"))
	requireExit(t, 0, w.run(0, "release", "--session", "s1", "free.txt"))
	// Another worktree changes a held file: a merge conflict ahead.
	require.NoError(t, os.WriteFile(filepath.Join(w.dirs[1], "src", "x.py"), []byte("x = 2\n"), 0o644))
	// A lock of a session nobody registered, unrenewed for an hour:
	// orphaned.
	gone := filepath.Join(repo, "gone.txt")
	require.NoError(t, os.WriteFile(filepath.Join(repo, ".agent-registry", "locks", lockName(gone)), []byte(record("gone", time.Hour, gone)), 0o644))

	status := w.run(0, "status", "--json")
	requireExit(t, 0, status)
	all := w.run(0, "status", "--all", "--json")
	requireExit(t, 0, all)
	want, wantAll := withoutClock(jsonLines(t, status)), withoutClock(jsonLines(t, all))
	// The comparison means something: status marks what /api/locks must.
	require.Contains(t, status.Stdout, `"also_changed_in":["../wt-b (feat-b)"]`)
	require.Contains(t, status.Stdout, `"orphaned":true`)
	require.Contains(t, all.Stdout, `"state":"free"`)

	serve := proctest.Start(t, harness(t).Bin, w.cmd(0, "serve", "--addr", "127.0.0.1:0", "--read-only"))
	serve.WaitStderr(t, "serving the dashboard", 10*time.Second)
	link := regexp.MustCompile(`http://127\.0\.0\.1:\d+/`).FindString(serve.Stderr())
	require.NotEmpty(t, link)
	assert.Equal(t, want, withoutClock(getLines(t, link+"api/locks")), "/api/locks is status --json")
	assert.Equal(t, wantAll, withoutClock(getLines(t, link+"api/locks?all=1")), "/api/locks?all=1 is status --all --json")
	require.NoError(t, serve.Signal(syscall.SIGTERM))
	requireExit(t, 0, serve.Wait(t))
}
