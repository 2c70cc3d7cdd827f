package main_test

// Worktrees (issue 26): a repository with three git worktrees set up in
// repository scope shares one lock space; in either scope a file changed in
// another worktree draws a warning. Real agentlock processes in each
// worktree, real git.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/gittest"
	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// worktrees is a repository "repo" with linked worktrees "wt-b" and
// "wt-c" beside it, on branches feat-b and feat-c.
type worktrees struct {
	t    *testing.T
	root string
	dirs []string // repo, wt-b, wt-c (real paths)
	env  []string
}

// newWorktrees makes the repository (one commit holding src/x.py and
// shared.txt) and its worktrees; scope "repository" runs init with
// --scope repository in the first, "" runs plain init there and in each.
func newWorktrees(t *testing.T, scope string) *worktrees {
	t.Helper()
	gittest.Need(t)
	root := realTempDir(t)
	w := &worktrees{t: t, root: root}
	// No cache of the worktrees' changes: each step sees the last one's.
	w.env = hermeticEnv(t, root, "AGENTLOCK_CONFLICT_CACHE=0", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@t",
		"GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@t")
	repo := filepath.Join(root, "repo")
	require.NoError(t, os.MkdirAll(filepath.Join(repo, "src"), 0o755))
	w.dirs = []string{repo, filepath.Join(root, "wt-b"), filepath.Join(root, "wt-c")}
	w.git(repo, "init", "-q", "-b", "main")
	require.NoError(t, os.WriteFile(filepath.Join(repo, "src", "x.py"), []byte("x = 1\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(repo, "shared.txt"), []byte("one\ntwo\nthree\n"), 0o644))
	if scope != "" {
		requireExit(t, 0, w.run(0, "init", "--scope", scope))
	} else {
		requireExit(t, 0, w.run(0, "init"))
	}
	// What init changed (.gitignore's block, in the default scope) is
	// committed, as a user does, before the worktrees branch off.
	w.git(repo, "add", ".")
	w.git(repo, "commit", "-q", "-m", "init")
	w.git(repo, "worktree", "add", "-q", w.dirs[1], "-b", "feat-b")
	w.git(repo, "worktree", "add", "-q", w.dirs[2], "-b", "feat-c")
	if scope == "" {
		for i := 1; i < len(w.dirs); i++ {
			requireExit(t, 0, w.run(i, "init"))
		}
	}
	return w
}

// git runs git in dir.
func (w *worktrees) git(dir string, args ...string) string {
	w.t.Helper()
	return gittest.Run(w.t, w.env, dir, args...)
}

// cmd describes agentlock run in worktree i.
func (w *worktrees) cmd(i int, args ...string) proctest.Cmd {
	return proctest.Cmd{Args: args, Env: w.env, Dir: w.dirs[i]}
}

// run runs agentlock once in worktree i.
func (w *worktrees) run(i int, args ...string) proctest.Result {
	w.t.Helper()
	return harness(w.t).Run(w.t, w.cmd(i, args...))
}

// hook runs Claude Code's pre-edit hook in worktree i for an edit of rel
// by the harness session id.
func (w *worktrees) hook(i int, id, rel string) proctest.Result {
	w.t.Helper()
	payload, err := json.Marshal(map[string]any{"session_id": id, "cwd": w.dirs[i], "hook_event_name": "PreToolUse",
		"tool_name": "Edit", "tool_input": map[string]string{"file_path": filepath.Join(w.dirs[i], rel)}})
	require.NoError(w.t, err)
	c := w.cmd(i, "hook", "claude", "pre-edit")
	c.Stdin = string(payload)
	return harness(w.t).Run(w.t, c)
}

func TestWorktreeRaceOneWinnerAcrossWorktrees(t *testing.T) {
	w := newWorktrees(t, "repository")
	const procs = 16
	rounds := areaRaceRounds()
	for round := range rounds {
		cmds := make([]proctest.Cmd, procs)
		for i := range cmds {
			// The same relative path, spread over the three worktrees.
			cmds[i] = w.cmd(i%3, "acquire", "--json", "--session", fmt.Sprintf("s-%d", i), "src/x.py")
		}
		results := harness(t).Race(t, cmds)
		winner := oneWinner(t, round, results)
		for i, r := range results {
			if i == winner {
				continue
			}
			requireExit(t, 1, r)
			rec := oneJSON(t, r)
			require.Equal(t, fmt.Sprintf("s-%d", winner), rec["session_id"], "round %d: the loser is told the winner:\n%s", round, r)
			// Each loser sees the path in its own worktree.
			require.Equal(t, filepath.Join(w.dirs[i%3], "src", "x.py"), rec["path"], "round %d", round)
		}
		// One lock on disk for the three worktrees, in the common folder.
		status := w.run((winner+1)%3, "status", "--json")
		requireExit(t, 0, status)
		recs := jsonLines(t, status)
		require.Len(t, recs, 1, "round %d: one lock for every worktree:\n%s", round, status)
		require.Equal(t, fmt.Sprintf("s-%d", winner), recs[0]["session_id"])
		requireExit(t, 0, w.run(winner%3, "release", "--all", "--session", fmt.Sprintf("s-%d", winner)))
	}
	locks, err := os.ReadDir(filepath.Join(w.dirs[0], ".git", "agentlock", "locks"))
	require.NoError(t, err)
	n := 0
	for _, e := range locks {
		if strings.HasSuffix(e.Name(), ".lock") {
			n++
		}
	}
	require.Equal(t, 1, n, "one lock file for src/x.py of every worktree")
	for i := range w.dirs {
		_, err := os.Stat(filepath.Join(w.dirs[i], ".agent-registry"))
		require.True(t, os.IsNotExist(err), "no home of its own in %s", w.dirs[i])
	}
}

func TestWorktreeAreaCoversOtherWorktrees(t *testing.T) {
	w := newWorktrees(t, "repository")
	requireExit(t, 0, w.run(0, "acquire", "--session", "area-a", "src/"))
	for i := 1; i < 3; i++ {
		r := w.run(i, "acquire", "--json", "--session", "other", "src/x.py")
		requireExit(t, 1, r)
		rec := oneJSON(t, r)
		require.Equal(t, "area-a", rec["session_id"], "%s", r)
		require.Equal(t, filepath.Join(w.dirs[i], "src")+"/", rec["via"], "the area, in this worktree's terms: %s", r)
	}
	// An area of worktree C over a file held from B is refused too.
	requireExit(t, 0, w.run(0, "release", "--session", "area-a", "src/"))
	requireExit(t, 0, w.run(1, "acquire", "--session", "file-b", "src/x.py"))
	requireExit(t, 1, w.run(2, "acquire", "--session", "area-c", "src/"))
}

func TestWorktreeHookDeniesFileHeldFromOtherWorktree(t *testing.T) {
	w := newWorktrees(t, "repository")
	requireExit(t, 0, w.run(0, "register", "--session", "holder-a", "--working-on", "x"))
	requireExit(t, 0, w.run(0, "acquire", "--session", "holder-a", "src/x.py"))
	r := w.hook(1, "bbb", "src/x.py")
	requireExit(t, 0, r)
	require.Contains(t, r.Stdout, `"permissionDecision":"deny"`, "%s", r)
	require.Contains(t, r.Stdout, "locked by session holder-a (worktree ../repo, branch main)", "%s", r)
	// The registry, one for all, names each session's worktree and branch.
	reg, err := os.ReadFile(filepath.Join(w.dirs[0], ".git", "agentlock", "registry.md"))
	require.NoError(t, err)
	require.Contains(t, string(reg), `worktree: "`+w.dirs[0]+`"`)
	require.Contains(t, string(reg), `branch: "main"`)
	// show, in another worktree, says where each session works.
	r = w.run(2, "show", "--json")
	requireExit(t, 0, r)
	require.NoError(t, validateRecords(r.Stdout, []string{"session"}))
	require.Equal(t, w.dirs[0], oneJSON(t, r)["worktree"], "%s", r)
	r = w.run(2, "show")
	require.Regexp(t, `worktree\s+`+regexp.QuoteMeta(w.dirs[0])+`\s+\(branch main\)`, r.Stdout)
	// The holder's finish in its worktree frees the file for B's hook.
	requireExit(t, 0, w.run(0, "finish", "--session", "holder-a"))
	r = w.hook(1, "bbb", "src/x.py")
	requireExit(t, 0, r)
	require.NotContains(t, r.Stdout, "deny", "%s", r)
}

// testWarnings checks the warnings about src/x.py, modified in worktree B
// and not committed, as worktree A sees them.
func testWarnings(t *testing.T, scope string) {
	w := newWorktrees(t, scope)
	require.NoError(t, os.WriteFile(filepath.Join(w.dirs[1], "src", "x.py"), []byte("x = 2\n"), 0o644))
	want := "src/x.py is also changed in ../wt-b (branch feat-b"
	// The hook gives the model the warning, and the edit goes on.
	r := w.hook(0, "aaa", "src/x.py")
	requireExit(t, 0, r)
	require.Contains(t, r.Stdout, `"additionalContext"`, "%s", r)
	require.Contains(t, r.Stdout, want, "%s", r)
	require.NotContains(t, r.Stdout, "deny", "%s", r)
	requireExit(t, 0, w.run(0, "release", "--session", "claude-aaa", "src/x.py"))
	// acquire: on stderr, the lock taken.
	r = w.run(0, "acquire", "--session", "s-a", "src/x.py")
	requireExit(t, 0, r)
	require.Contains(t, r.Stderr, want, "%s", r)
	require.Contains(t, r.Stderr, "coordinate before editing", "%s", r)
	// status: a column.
	r = w.run(0, "status")
	requireExit(t, 0, r)
	require.Contains(t, r.Stdout, "ALSO CHANGED IN", "%s", r)
	require.Contains(t, r.Stdout, "../wt-b (feat-b)", "%s", r)
	r = w.run(0, "status", "--json")
	require.Contains(t, r.Stdout, `"also_changed_in":["../wt-b (feat-b)"]`, "%s", r)
	require.NoError(t, validateRecords(r.Stdout, []string{"lock"}))
	// conflicts: needs the file changed in two worktrees.
	r = w.run(0, "conflicts")
	requireExit(t, 0, r)
	require.Contains(t, r.Stdout, "no file is changed in more than one worktree", "%s", r)
	require.NoError(t, os.WriteFile(filepath.Join(w.dirs[0], "src", "x.py"), []byte("x = 3\n"), 0o644))
	r = w.run(0, "conflicts")
	requireExit(t, 1, r)
	require.Contains(t, r.Stdout, "src/x.py: changed in . (main) uncommitted, ../wt-b (feat-b) uncommitted", "%s", r)
	// A file nobody else changed draws nothing.
	r = w.run(0, "acquire", "--session", "s-a", "shared.txt")
	requireExit(t, 0, r)
	require.NotContains(t, r.Stderr, "also changed", "%s", r)
	// With the repository's deny-conflicts policy, the hook denies.
	requireExit(t, 0, w.run(0, "init", "--deny-conflicts"))
	requireExit(t, 0, w.run(0, "release", "--all", "--session", "s-a"))
	r = w.hook(0, "aaa", "src/x.py")
	requireExit(t, 0, r)
	require.Contains(t, r.Stdout, `"permissionDecision":"deny"`, "%s", r)
	require.Contains(t, r.Stdout, want, "%s", r)
}

func TestWorktreeWarningCheckoutScope(t *testing.T)   { testWarnings(t, "") }
func TestWorktreeWarningRepositoryScope(t *testing.T) { testWarnings(t, "repository") }

func TestWorktreeConflictsPredict(t *testing.T) {
	w := newWorktrees(t, "")
	write := func(i int, content string) {
		require.NoError(t, os.WriteFile(filepath.Join(w.dirs[i], "shared.txt"), []byte(content), 0o644))
		w.git(w.dirs[i], "commit", "-q", "-am", "change "+content[:3])
	}
	write(1, "ONE\ntwo\nthree\n") // feat-b
	write(2, "one\ntwo\nTHREE\n") // feat-c: merges cleanly with feat-b
	write(0, "uno\ntwo\nthree\n") // main: conflicts with feat-b
	r := w.run(0, "conflicts", "--predict", "--json")
	requireExit(t, 1, r)
	require.NoError(t, validateRecords(r.Stdout, []string{"conflict"}))
	recs := jsonLines(t, r)
	require.Len(t, recs, 1, "%s", r)
	require.Equal(t, "shared.txt", recs[0]["path"])
	// Changed on all three branches; a conflict predicted for main and
	// feat-b only (feat-c's change merges with both).
	require.Len(t, recs[0]["worktrees"], 3, "%s", r)
	require.Equal(t, []any{".+../wt-b"}, recs[0]["predicted_conflicts"], "%s", r)
	// Without --predict, no prediction.
	r = w.run(0, "conflicts", "--json")
	requireExit(t, 1, r)
	require.NotContains(t, r.Stdout, "predicted_conflicts", "%s", r)
	// The committed change of B draws acquire's warning in A.
	r = w.run(0, "acquire", "--session", "s-a", "shared.txt")
	requireExit(t, 0, r)
	require.Contains(t, r.Stderr, "shared.txt is also changed in ../wt-b (branch feat-b, committed)", "%s", r)
}

func TestWorktreeWaitAcrossWorktrees(t *testing.T) {
	if testing.Short() {
		t.Skip("waits on real time")
	}
	w := newWorktrees(t, "repository")
	requireExit(t, 0, w.run(0, "acquire", "--session", "s-a", "src/x.py"))
	waiter := proctest.Start(t, harness(t).Bin, w.cmd(1, "acquire", "--wait", "20s", "--session", "s-b", "src/x.py"))
	waiter.WaitStderr(t, "waiting up to", 10*time.Second)
	requireExit(t, 0, w.run(0, "release", "--session", "s-a", "src/x.py"))
	r := waiter.Wait(t)
	requireExit(t, 0, r)
	require.Contains(t, r.Stdout, filepath.Join(w.dirs[1], "src", "x.py"), "%s", r)
}

func TestWorktreeRemovedWithAgentRunningExpires(t *testing.T) {
	if testing.Short() {
		t.Skip("waits on real time")
	}
	w := newWorktrees(t, "repository")
	// The project's timeout (recorded in the shared home) is the floor of
	// every process's: 1 s here.
	timeoutFile := filepath.Join(w.dirs[0], ".git", "agentlock", "timeout")
	_, err := os.Stat(timeoutFile)
	require.NoError(t, err, "the shared home records the project's timeout")
	require.NoError(t, os.WriteFile(timeoutFile, []byte("1s\n"), 0o644))
	env := append(append([]string{}, w.env...), "AGENTLOCK_TIMEOUT=1")
	c := w.cmd(2, "acquire", "--session", "s-c", "src/x.py")
	c.Env = env
	requireExit(t, 0, harness(t).Run(t, c))
	// The worktree goes, its agent still running: nothing of its own can
	// renew the lock from there any more.
	// (Deleted with rm, not git worktree remove: git still lists it.)
	require.NoError(t, os.RemoveAll(w.dirs[2]))
	c = w.cmd(0, "acquire", "--json", "--session", "s-a", "src/x.py")
	c.Env = env
	r := harness(t).Run(t, c)
	requireExit(t, 1, r)
	require.Equal(t, "s-c", oneJSON(t, r)["session_id"], "held until the timeout: %s", r)
	deadline := time.Now().Add(10 * time.Second)
	for {
		r = harness(t).Run(t, c)
		if r.Code == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	requireExit(t, 0, r)
	require.Equal(t, "s-c", oneJSON(t, r)["stale_owner"], "taken over once stale: %s", r)
	// The registry and status in the remaining worktrees work on; doctor
	// names the worktree whose folder is gone.
	requireExit(t, 0, w.run(1, "status"))
	r = w.run(1, "doctor", "--json")
	requireExit(t, 0, r)
	require.Contains(t, r.Stdout, `"name":"worktrees","status":"warn"`, "%s", r)
	require.Contains(t, r.Stdout, "git worktree prune", "%s", r)
}

func TestWorktreeScopeChangeRefusedWhileInUse(t *testing.T) {
	w := newWorktrees(t, "")
	requireExit(t, 0, w.run(0, "acquire", "--session", "s-a", "src/x.py"))
	r := w.run(0, "init", "--scope", "repository")
	requireExit(t, 3, r)
	require.Contains(t, r.Stderr, "locks are held: "+filepath.Join(w.dirs[0], "src", "x.py")+" (s-a)", "%s", r)
	require.Contains(t, r.Stderr, "nothing was changed", "%s", r)
	_, err := os.Stat(filepath.Join(w.dirs[0], ".git", "agentlock", "store"))
	require.True(t, os.IsNotExist(err), "no scope recorded")
	requireExit(t, 0, w.run(0, "release", "--session", "s-a", "src/x.py"))
	requireExit(t, 0, w.run(0, "init", "--scope", "repository"))
	// And back, refused while the shared home is in use.
	requireExit(t, 0, w.run(1, "acquire", "--session", "s-b", "src/x.py"))
	r = w.run(2, "init", "--scope", "checkout")
	requireExit(t, 3, r)
	require.Contains(t, r.Stderr, "(s-b)", "%s", r)
	requireExit(t, 0, w.run(1, "release", "--all", "--session", "s-b"))
	requireExit(t, 0, w.run(2, "init", "--scope", "checkout"))
	r = w.run(1, "status")
	requireExit(t, 0, r)
	require.Contains(t, r.Stdout, filepath.Join(w.dirs[1], ".agent-registry"), "back to a home per checkout: %s", r)
}

// Every refusal of a path held from another worktree names the holder's
// worktree and branch (docs/worktrees.md; issue 37): the acquire command's
// (and so the MCP tool's, printed alike) and the hook's, for a registered
// session and for a
// holder with no registry row (a person's acquire --session), whose place
// the acquire recorded beside the lock (workspace.PlacesDir). The record
// follows the holder to the worktree it acquires from last, and goes when
// it finishes.
func TestWorktreeRefusalsNameTheHoldersWorktree(t *testing.T) {
	w := newWorktrees(t, "repository")
	// A person in worktree B, never registered.
	requireExit(t, 0, w.run(1, "acquire", "--session", "person-b", "src/x.py"))
	r := w.run(2, "acquire", "--session", "s-c", "src/x.py")
	requireExit(t, 1, r)
	assert.Contains(t, r.Stderr, "is locked by person-b (worktree ../wt-b, branch feat-b)", "%s", r)
	// --wait gives up naming it too.
	r = w.run(2, "acquire", "--wait", "1", "--session", "s-c", "src/x.py")
	requireExit(t, 1, r)
	assert.Contains(t, r.Stderr, "person-b (worktree ../wt-b, branch feat-b), still", "%s", r)
	r = w.hook(0, "ccc", "src/x.py")
	requireExit(t, 0, r)
	assert.Contains(t, r.Stdout, "locked by session person-b (worktree ../wt-b, branch feat-b)", "%s", r)
	// From the holder's own worktree it is "this worktree".
	r = w.run(1, "acquire", "--session", "s-b2", "src/x.py")
	requireExit(t, 1, r)
	assert.Contains(t, r.Stderr, "person-b (worktree this worktree, branch feat-b)", "%s", r)

	// The holder acquires from worktree C next: refusals name C.
	requireExit(t, 0, w.run(2, "acquire", "--session", "person-b", "shared.txt"))
	r = w.run(0, "acquire", "--session", "s-a", "src/x.py")
	requireExit(t, 1, r)
	assert.Contains(t, r.Stderr, "person-b (worktree ../wt-c, branch feat-c)", "%s", r)

	// A registered session: its row, or its last acquire, name it.
	requireExit(t, 0, w.run(0, "register", "--session", "holder-a", "--working-on", "x"))
	requireExit(t, 0, w.run(0, "acquire", "--session", "holder-a", "src/y.py"))
	r = w.run(1, "acquire", "--session", "s-b", "src/y.py")
	requireExit(t, 1, r)
	assert.Contains(t, r.Stderr, "is locked by holder-a (worktree ../repo, branch main)", "%s", r)

	// Finished, the person's record goes with its locks.
	places := filepath.Join(w.dirs[0], ".git", "agentlock", "places")
	before, err := os.ReadDir(places)
	require.NoError(t, err)
	// (finish of an id the registry does not know releases its locks and
	// exits 1: no such session.)
	requireExit(t, 1, w.run(1, "finish", "--session", "person-b"))
	after, err := os.ReadDir(places)
	require.NoError(t, err)
	assert.Len(t, after, len(before)-1, "the finished session's record is removed")
}
