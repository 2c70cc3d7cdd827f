package main_test

// Read versions (issue 34): a write based on a stale read is refused,
// naming who changed the file, in real hook processes as the CLIs run them
// — Claude Code's Read (PostToolUse: the renew hook records the version)
// and Write (PreToolUse: the gate judges it; PostToolUse: the session's
// own edit becomes its version).

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/sys/filedigest"
	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// claudeTool is a hook payload of Claude Code for one tool call on file:
// PreToolUse or PostToolUse of Read or Write.
func claudeTool(session, cwd, event, tool, file, content string) string {
	input := mustJSON(map[string]string{"file_path": file})
	if tool == "Write" {
		input = mustJSON(map[string]string{"file_path": file, "content": content})
	}
	extra := ""
	if event == "PostToolUse" {
		extra = `,"tool_response":{"type":"text"}`
	}
	return fmt.Sprintf(`{"session_id":%q,"transcript_path":"/home/u/.claude/projects/x/%s.jsonl","cwd":%q,
"permission_mode":"acceptEdits","hook_event_name":%q,"tool_name":%q,"tool_use_id":"toolu_01","tool_input":%s%s}`,
		session, session, cwd, event, tool, input, extra)
}

// claudeAgent plays one Claude Code session through agentlock's hooks, as
// the CLI runs them: each tool call is its pre- and post-tool hook
// processes around the tool's own work.
type claudeAgent struct {
	t  *testing.T
	p  *project
	id string // the harness's session id (agentlock's is "claude-" + id)
	// sub, when not "", makes the agent a sub-agent of session id (its
	// payloads carry agent_id): agentlock's child session
	// "claude-<id>/<sub>" (issue 35).
	sub string
}

func (a claudeAgent) session() string {
	if a.sub != "" {
		return "claude-" + a.id + "/" + a.sub
	}
	return "claude-" + a.id
}

// withSub adds a's sub-agent id to a hook payload of its session.
func (a claudeAgent) withSub(payload string) string {
	if a.sub == "" {
		return payload
	}
	return strings.Replace(payload, `"hook_event_name"`, fmt.Sprintf(`"agent_id":%q,"agent_type":"general-purpose","hook_event_name"`, a.sub), 1)
}

// hook runs one hook process of the agent's harness.
func (a claudeAgent) hook(event, tool, file, content string) proctest.Result {
	run := map[string]string{"PreToolUse": "pre-edit", "PostToolUse": "renew"}[event]
	return harness(a.t).Run(a.t, proctest.Cmd{Args: []string{"hook", "claude", run}, Env: a.p.env, Dir: a.p.dir,
		Stdin: a.withSub(claudeTool(a.id, a.p.dir, event, tool, file, content))})
}

// read reads rel with Claude's Read: the file, then the PostToolUse hook.
func (a claudeAgent) read(rel string) string {
	data, err := os.ReadFile(filepath.Join(a.p.dir, rel))
	if err != nil {
		a.t.Errorf("read %s: %v", rel, err)
	}
	r := a.hook("PostToolUse", "Read", filepath.Join(a.p.dir, rel), "")
	if r.Code != 0 || r.Stdout != "" && !isEarlyNotice(r.Stdout) {
		a.t.Errorf("the Read hook of %s answered: %s", a.id, r)
	}
	return string(data)
}

// isEarlyNotice reports whether a Claude Code PostToolUse hook's stdout is
// agentlock's early notice and nothing else: a file the session read was
// changed since (its additionalContext), never a decision.
func isEarlyNotice(stdout string) bool {
	var out map[string]map[string]string
	if json.Unmarshal([]byte(stdout), &out) != nil || len(out) != 1 {
		return false
	}
	c := out["hookSpecificOutput"]
	return len(c) == 2 && c["hookEventName"] == "PostToolUse" && strings.Contains(c["additionalContext"], "since you (")
}

// write writes content over rel with Claude's Write: the PreToolUse hook,
// the write when allowed, then the PostToolUse hook. It returns the
// denial's reason, "" when the write was made.
func (a claudeAgent) write(rel, content string) string {
	path := filepath.Join(a.p.dir, rel)
	if reason := deniedReason(a.t, "claude", a.hook("PreToolUse", "Write", path, content)); reason != "" {
		return reason
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		a.t.Errorf("write %s: %v", rel, err)
	}
	if r := a.hook("PostToolUse", "Write", path, content); r.Code != 0 {
		a.t.Errorf("the Write hook of %s failed: %s", a.id, r)
	}
	return ""
}

// The sequence: X reads; Y acquires the file, changes it and
// releases it; X's write from its read is refused, naming Y and saying to
// read again; X reads again and its write goes through, Y's change kept.
func TestHookStaleWriteRefusedNamingTheWriter(t *testing.T) {
	for _, how := range []string{"hook", "command"} {
		t.Run("Y changes it through its "+how, func(t *testing.T) {
			p := hookProject(t)
			p.write("src/auth.py", "C0\n")
			x, y := claudeAgent{t: t, p: p, id: "x"}, claudeAgent{t: t, p: p, id: "y"}
			base := x.read("src/auth.py")

			switch how {
			case "hook":
				require.Empty(t, y.write("src/auth.py", y.read("src/auth.py")+"C1\n"))
			default:
				// A lock taken by a command, the file changed by any means.
				requireExit(t, 0, p.run("acquire", "src/auth.py", "--session", y.session()))
				p.write("src/auth.py", "C0\nC1\n")
			}
			requireExit(t, 0, p.run("release", "src/auth.py", "--session", y.session()))

			reason := x.write("src/auth.py", base+"X\n")
			require.NotEmpty(t, reason, "the stale write went through")
			assert.Contains(t, reason, "src/auth.py")
			assert.Contains(t, reason, "changed since you ("+x.session()+") read it")
			assert.Contains(t, reason, "session "+y.session(), "who changed it")
			assert.Contains(t, reason, "read it again with Read, then redo your change on the current content")
			assert.Contains(t, reason, "reserved for you", "the refusal reserves the file")
			assert.NotContains(t, reason, "\n")
			assert.Equal(t, "C0\nC1\n", p.read("src/auth.py"), "Y's change is intact")
			assert.Equal(t, x.session(), p.owner("src/auth.py"), "the file is reserved for X: its lock is X's")

			// Claude's reads are seen: only a read clears it.
			assert.Contains(t, x.write("src/auth.py", base+"X\n"), "read it again", "refused again until X reads again")
			assert.Equal(t, "C0\nC1\n", p.read("src/auth.py"))
		})
	}
}

// The same, and X does what it is told: it reads again and redoes its
// change, which goes through with Y's kept.
func TestHookStaleWriteReReadThenWrite(t *testing.T) {
	p := hookProject(t)
	p.write("src/auth.py", "C0\n")
	x, y := claudeAgent{t: t, p: p, id: "x"}, claudeAgent{t: t, p: p, id: "y"}
	base := x.read("src/auth.py")
	require.Empty(t, y.write("src/auth.py", y.read("src/auth.py")+"C1\n"))
	requireExit(t, 0, p.run("release", "src/auth.py", "--session", y.session()))
	require.NotEmpty(t, x.write("src/auth.py", base+"X\n"))
	// Another session cannot change it meanwhile: it is X's.
	z := claudeAgent{t: t, p: p, id: "z"}
	assert.Contains(t, z.write("src/auth.py", z.read("src/auth.py")+"Z\n"), "locked by session "+x.session())
	require.Empty(t, x.write("src/auth.py", x.read("src/auth.py")+"X\n"))
	assert.Equal(t, "C0\nC1\nX\n", p.read("src/auth.py"))
	log := p.read(".agent-registry/audit.log")
	assert.Contains(t, log, `"action":"stale write"`, "the refusal is in the audit log")
	assert.Contains(t, log, `"previous_owner":"`+y.session()+`"`)
}

// A control: reads and writes with no interference are never refused, and
// a session's own consecutive edits never trip the check (its edit's
// content becomes its version).
func TestHookStaleCheckLetsFreshAndOwnWritesThrough(t *testing.T) {
	p := hookProject(t)
	p.write("src/a.go", "a\n")
	x := claudeAgent{t: t, p: p, id: "x"}
	content := x.read("src/a.go")
	for i := range 5 {
		content += fmt.Sprintf("edit %d\n", i)
		require.Empty(t, x.write("src/a.go", content), "consecutive edit %d of the session's own", i)
	}
	requireExit(t, 0, p.run("release", "src/a.go", "--session", x.session()))
	for i := range 3 {
		content = x.read("src/a.go") + fmt.Sprintf("again %d\n", i)
		require.Empty(t, x.write("src/a.go", content), "read then write, round %d", i)
		requireExit(t, 0, p.run("release", "src/a.go", "--session", x.session()))
	}
	// A file never read, written whole, that nobody else changed.
	require.Empty(t, x.write("src/new.go", "new\n"))
	assert.Equal(t, content, p.read("src/a.go"))
}

// A whole-file write of a file the session never read, which another
// session changed since this one began, is refused naming that session;
// one changed before it began is not.
func TestHookStaleOverwriteOfAnUnreadFile(t *testing.T) {
	p := hookProject(t)
	p.write("src/a.go", "a\n")
	p.write("src/b.go", "b\n")
	y := claudeAgent{t: t, p: p, id: "y"}
	require.Empty(t, y.write("src/a.go", y.read("src/a.go")+"Y1\n"))
	requireExit(t, 0, p.runEnv([]string{"AGENTLOCK_SESSION=" + y.session()}, "release", "--all"))

	x := claudeAgent{t: t, p: p, id: "x"}
	requireExit(t, 0, p.runEnv([]string{"AGENTLOCK_SESSION=" + x.session()}, "register", "--working-on", "a"))
	require.Empty(t, x.write("src/a.go", "x overwrote a change made before it began\n"), "changed before X began")

	require.Empty(t, y.write("src/b.go", y.read("src/b.go")+"Y2\n"))
	requireExit(t, 0, p.runEnv([]string{"AGENTLOCK_SESSION=" + y.session()}, "release", "--all"))
	reason := x.write("src/b.go", "x overwrites\n")
	assert.Contains(t, reason, "src/b.go was changed by session "+y.session())
	assert.Contains(t, reason, "after your session ("+x.session()+") began")
	assert.Equal(t, "b\nY2\n", p.read("src/b.go"))
	require.Empty(t, x.write("src/b.go", x.read("src/b.go")+"X\n"), "after a read")
	assert.Equal(t, "b\nY2\nX\n", p.read("src/b.go"))
}

// staleFleet runs sessions agents, each doing rounds read-modify-write
// rounds on files through the hooks, all started at once; each round adds
// one line, its token, and a session acts on a refusal as it is told:
// "read it again" re-reads and redoes, "locked by" waits and tries again.
// It returns the tokens of the accepted writes and the refusals met.
//
// A read's hook runs after the read: the settle window (see
// workspace.SettleWindow) is wide here, so that however slow the machine,
// a change between a read and its hook makes the read unsettled.
func staleFleet(t *testing.T, p *project, sessions, rounds int, files []string, staleFirst bool) (tokens []string, stale, held int64) {
	p.env = append(p.env, "AGENTLOCK_SETTLE_WINDOW=10m")
	var mu sync.Mutex
	var staleN, heldN atomic.Int64
	var ready sync.WaitGroup
	ready.Add(sessions)
	var wg sync.WaitGroup
	for s := range sessions {
		wg.Go(func() {
			a := claudeAgent{t: t, p: p, id: fmt.Sprintf("s%02d", s)}
			rng := rand.New(rand.NewPCG(uint64(s), 34))
			for r := range rounds {
				file := files[(s+r)%len(files)]
				token := fmt.Sprintf("token %s round %d\n", a.id, r)
				base := a.read(file)
				if staleFirst && r == 0 {
					// Every session has read before any writes.
					ready.Done()
					ready.Wait()
				}
				for try := 0; ; try++ {
					if t.Failed() || try > 500 {
						t.Errorf("%s gave up round %d of %s", a.id, r, file)
						return
					}
					reason := a.write(file, base+token)
					if reason == "" {
						mu.Lock()
						tokens = append(tokens, token)
						mu.Unlock()
						break
					}
					switch {
					case strings.Contains(reason, "read it again"):
						staleN.Add(1)
						base = a.read(file)
					case strings.Contains(reason, "locked by"):
						heldN.Add(1)
						// The model works on something else for a moment.
						time.Sleep(time.Duration(5+rng.IntN(20)) * time.Millisecond)
					default:
						t.Errorf("%s: unexpected refusal: %s", a.id, reason)
						return
					}
				}
				if r := p.run("release", file, "--session", a.session()); r.Code != 0 {
					t.Errorf("release: %s", r)
				}
			}
		})
	}
	wg.Wait()
	return tokens, staleN.Load(), heldN.Load()
}

// lost counts the tokens missing from the files at the end.
func lost(p *project, files, tokens []string) int {
	var all strings.Builder
	for _, f := range files {
		all.WriteString(p.read(f))
	}
	n := 0
	for _, tok := range tokens {
		if !strings.Contains(all.String(), tok) {
			n++
		}
	}
	return n
}

// Sessions doing read-modify-write rounds on a few shared files through the
// hooks lose nothing: every accepted change is in the files at the end
// (16 sessions × 20 rounds on 4 files; fewer under -short).
func TestHookStaleFleetLosesNothing(t *testing.T) {
	sessions, rounds := 16, 20
	if testing.Short() {
		sessions, rounds = 6, 4
	}
	p := hookProject(t)
	files := []string{"src/a.go", "src/b.go", "src/c.go", "src/d.go"}
	for _, f := range files {
		p.write(f, "start\n")
	}
	tokens, stale, held := staleFleet(t, p, sessions, rounds, files, false)
	require.Len(t, tokens, sessions*rounds, "every round's change was made")
	n := lost(p, files, tokens)
	assert.Equal(t, 0, n, "lost updates")
	t.Logf("%d sessions × %d rounds on %d files: %d writes, %d lost, %d stale refusals, %d held refusals", sessions, rounds, len(files), len(tokens), n, stale, held)
}

// Sessions that all read one file before any writes it (every view but the
// first writer's stale) all finish their change, and none is lost: the
// refusal reserves the file for the refused session, so its re-read and
// redo cannot go stale again.
func TestHookStaleReadsAllFinish(t *testing.T) {
	p := hookProject(t)
	p.write("src/hot.go", "start\n")
	tokens, stale, _ := staleFleet(t, p, 8, 1, []string{"src/hot.go"}, true)
	require.Len(t, tokens, 8)
	assert.Equal(t, 0, lost(p, []string{"src/hot.go"}, tokens))
	assert.GreaterOrEqual(t, stale, int64(7), "every session but the first writer read a stale view")
}

// Bad inputs (issue 34, item 6): a file deleted, replaced by a folder or by
// a symbolic link to another file, a huge file changed in place, a binary
// file, a payload that names no file, a damaged version record: each a
// clear refusal or no check at all, never a crash and never a stale write
// let through.
func TestHookStaleBadInputs(t *testing.T) {
	p := hookProject(t)
	x, y := claudeAgent{t: t, p: p, id: "x"}, claudeAgent{t: t, p: p, id: "y"}
	// changeByY changes rel by a command of Y's, holding its lock.
	changeByY := func(rel string, change func(path string)) {
		requireExit(t, 0, p.run("acquire", rel, "--session", y.session()))
		change(filepath.Join(p.dir, rel))
		requireExit(t, 0, p.run("release", "--all", "--session", y.session()))
	}

	p.write("src/gone.go", "g\n")
	x.read("src/gone.go")
	changeByY("src/gone.go", func(path string) { require.NoError(t, os.Remove(path)) })
	assert.Contains(t, x.write("src/gone.go", "g\nX\n"), "src/gone.go was deleted since you")

	p.write("src/dir", "d\n")
	x.read("src/dir")
	changeByY("src/dir", func(path string) {
		require.NoError(t, os.Remove(path))
		require.NoError(t, os.Mkdir(path, 0o755))
	})
	assert.Contains(t, x.write("src/dir", "d\nX\n"), "was replaced by a folder since you")

	p.write("src/link.go", "l\n")
	p.write("src/target.go", "t\n")
	x.read("src/link.go")
	changeByY("src/link.go", func(path string) {
		require.NoError(t, os.Remove(path))
		require.NoError(t, os.Symlink("target.go", path))
	})
	reason := x.write("src/link.go", "l\nX\n")
	assert.Contains(t, reason, "was replaced by a symbolic link since you", "the file read became a link to another")
	assert.Equal(t, "t\n", p.read("src/target.go"))

	big := strings.Repeat("0123456789abcdef", 128<<10) // 2 MiB: named by its status
	p.write("src/big.bin", big)
	x.read("src/big.bin")
	changeByY("src/big.bin", func(path string) {
		require.NoError(t, os.WriteFile(path, []byte("Y"+big[1:]), 0o644)) // same size
	})
	assert.Contains(t, x.write("src/big.bin", big+"X"), "src/big.bin changed since you")
	require.Empty(t, x.write("src/big.bin", x.read("src/big.bin")+"X"), "read again (the file reserved for X): current")

	p.write("src/bin.dat", "\x00\x01\x02binary\xff")
	x.read("src/bin.dat")
	changeByY("src/bin.dat", func(path string) { require.NoError(t, os.WriteFile(path, []byte("\x00\x01\x03binary\xff"), 0o644)) })
	assert.Contains(t, x.write("src/bin.dat", "\x00"), "src/bin.dat changed since you")

	// X was not told of bin.dat yet: its next tool call is (once).
	r := harness(t).Run(t, proctest.Cmd{Args: []string{"hook", "claude", "renew"}, Env: p.env, Dir: p.dir,
		Stdin: fmt.Sprintf(`{"session_id":"x","cwd":%q,"hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"ls"}}`, p.dir)})
	requireExit(t, 0, r)
	assert.True(t, isEarlyNotice(r.Stdout), r.Stdout)
	assert.Contains(t, r.Stdout, "src/bin.dat changed since you")

	// A Read whose payload names no file records nothing, silently.
	r = harness(t).Run(t, proctest.Cmd{Args: []string{"hook", "claude", "renew"}, Env: p.env, Dir: p.dir,
		Stdin: fmt.Sprintf(`{"session_id":"x","cwd":%q,"hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{}}`, p.dir)})
	requireExit(t, 0, r)
	assert.Empty(t, r.Stdout)
	r = harness(t).Run(t, proctest.Cmd{Args: []string{"hook", "claude", "renew"}, Env: p.env, Dir: p.dir,
		Stdin: fmt.Sprintf(`{"session_id":"x","cwd":%q,"hook_event_name":"PostToolUse","tool_name":"Read","tool_input":{"file_path":7}}`, p.dir)})
	requireExit(t, 0, r)

	// A damaged record of the session's read: refused until it reads the
	// file again, which repairs the record.
	p.write("src/d.go", "d\n")
	requireExit(t, 0, p.run("release", "--all", "--session", x.session()))
	x.read("src/d.go")
	damageVersion(t, p, x.session(), "src/d.go")
	assert.Contains(t, x.write("src/d.go", "d\nX\n"), "record of that read is damaged")
	doctor := p.run("doctor")
	assert.Contains(t, doctor.Stdout, "damaged version record", "doctor reports it")
	require.Empty(t, x.write("src/d.go", x.read("src/d.go")+"X\n"), "repaired by the next read")
}

// A change made between a read and its after-tool hook (another session
// took the lock, wrote and released it in between) does not pass for what
// the model read: the hook finds it moments old, records the version as
// unsettled, and the write is refused once, the file reserved for the
// reader, whose read again is then settled.
func TestHookStaleChangeBetweenReadAndItsHook(t *testing.T) {
	p := hookProject(t)
	p.write("src/a.go", "C0\n")
	x, y := claudeAgent{t: t, p: p, id: "x"}, claudeAgent{t: t, p: p, id: "y"}
	base := p.read("src/a.go") // the Read tool reads...
	require.Empty(t, y.write("src/a.go", y.read("src/a.go")+"C1\n"))
	requireExit(t, 0, p.run("release", "src/a.go", "--session", y.session()))
	// ...then its hook runs. The window is wide here, so that the hook's
	// start, however slow on a loaded machine, falls within it.
	r := harness(t).Run(t, proctest.Cmd{Args: []string{"hook", "claude", "renew"}, Env: append(append([]string{}, p.env...), "AGENTLOCK_SETTLE_WINDOW=10m"), Dir: p.dir,
		Stdin: claudeTool(x.id, p.dir, "PostToolUse", "Read", filepath.Join(p.dir, "src/a.go"), "")})
	requireExit(t, 0, r)
	reason := x.write("src/a.go", base+"X\n")
	assert.Contains(t, reason, "may have changed since you ("+x.session()+") read it: session "+y.session())
	assert.Contains(t, reason, "read it again")
	assert.Equal(t, "C0\nC1\n", p.read("src/a.go"))
	require.Empty(t, x.write("src/a.go", x.read("src/a.go")+"X\n"))
	assert.Equal(t, "C0\nC1\nX\n", p.read("src/a.go"))
}

// damageVersionFile damages, in the lock files, session's version record
// of the project file rel (an edited digest: its checksum no longer
// matches).
func damageVersionFile(t *testing.T, p *project, session, rel string) {
	t.Helper()
	seen := filepath.Join(p.dir, ".agent-registry", "locks", "versions")
	entries, err := os.ReadDir(seen)
	require.NoError(t, err)
	damaged := 0
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), "session-") {
			continue
		}
		file := filepath.Join(seen, e.Name())
		data, err := os.ReadFile(file)
		require.NoError(t, err)
		if strings.Contains(string(data), rel) && strings.Contains(string(data), "xxh64:") {
			require.NoError(t, os.WriteFile(file, []byte(strings.ReplaceAll(string(data), "xxh64:", "xxh65:")), 0o644))
			damaged++
		}
	}
	require.Equal(t, 1, damaged, "%s's versions file", session)
}

// Sub-agents are sessions of their own (issue 35), and so are their
// versions: a sibling's change refuses a stale sibling's write, naming the
// sibling, as any other session's does; a read again lets it through.
func TestHookStaleSiblingSubAgents(t *testing.T) {
	p := hookProject(t)
	p.write("src/auth.py", "C0\n")
	a := claudeAgent{t: t, p: p, id: "parent", sub: "a"}
	b := claudeAgent{t: t, p: p, id: "parent", sub: "b"}
	subAgent := func(sub claudeAgent, event, run string) {
		payload := sub.withSub(fmt.Sprintf(`{"session_id":%q,"transcript_path":"/t.jsonl","cwd":%q,"hook_event_name":%q}`, sub.id, p.dir, event))
		requireExit(t, 0, harness(t).Run(t, proctest.Cmd{Args: []string{"hook", "claude", run}, Env: p.env, Dir: p.dir, Stdin: payload}))
	}
	subAgent(a, "SubagentStart", "session-start")
	subAgent(b, "SubagentStart", "session-start")

	base := a.read("src/auth.py")
	require.Empty(t, b.write("src/auth.py", b.read("src/auth.py")+"C1\n"), "b's write")
	subAgent(b, "SubagentStop", "session-end") // b's lock goes with it

	reason := a.write("src/auth.py", base+"A\n")
	require.NotEmpty(t, reason, "a's stale write went through")
	assert.Contains(t, reason, "changed since you (claude-parent/a) read it")
	assert.Contains(t, reason, "session claude-parent/b", "the sibling that changed it")
	assert.Equal(t, "C0\nC1\n", p.read("src/auth.py"), "b's change is intact")
	require.Empty(t, a.write("src/auth.py", a.read("src/auth.py")+"A\n"), "after a read again")
	assert.Equal(t, "C0\nC1\nA\n", p.read("src/auth.py"))
}

// readShape is how one CLI's hooks report a read and a whole-file write:
// the after-tool payload of its read tool and the pre-edit payload of its
// write tool, both of file, for the session id.
type readShape struct {
	agent   string
	session string // agentlock's session of id "x"
	read    func(cwd, file string) string
	write   func(cwd, file, content string) string
}

// readShapes are the CLIs whose manifest declares read tools (each in its
// own folder, integrations/<agent>/), beside Claude Code and Gemini CLI.
func readShapes() []readShape {
	flat := func(tool, field string) func(cwd, file string) string {
		return func(cwd, file string) string {
			return mustJSON(map[string]any{"session_id": "x", "cwd": cwd, "hook_event_name": "PostToolUse", "tool_name": tool,
				"tool_input": map[string]string{field: file}})
		}
	}
	flatWrite := func(tool, field string) func(cwd, file, content string) string {
		return func(cwd, file, content string) string {
			return mustJSON(map[string]any{"session_id": "x", "cwd": cwd, "hook_event_name": "PreToolUse", "tool_name": tool,
				"tool_input": map[string]string{field: file, "content": content}})
		}
	}
	return []readShape{
		{agent: "qwen", session: "qwen-x", read: flat("read_file", "file_path"), write: flatWrite("write_file", "file_path")},
		{agent: "kimi", session: "kimi-x", read: flat("Read", "path"), write: flatWrite("Write", "path")},
		{agent: "opencode", session: "opencode-x", read: flat("read", "filePath"), write: flatWrite("write", "filePath")},
		{agent: "kilo", session: "kilo-x", read: flat("read", "filePath"), write: flatWrite("write", "filePath")},
		{agent: "pi", session: "pi-x", read: flat("read", "path"), write: flatWrite("write", "path")},
		{agent: "droid", session: "droid-x", read: flat("Read", "file_path"), write: flatWrite("Create", "file_path")},
		// Cline 3.0.65 gives PreToolUse tool_call {id, name, input} and
		// PostToolUse tool_result {id, name, input, output}.
		{agent: "cline", session: "cline-x",
			read: func(cwd, file string) string {
				return mustJSON(map[string]any{"taskId": "x", "hookName": "tool_result", "workspaceRoots": []string{cwd},
					"tool_result": map[string]any{"id": "c1", "name": "read_files", "input": map[string]any{"files": []any{map[string]string{"path": file}}},
						"output": []any{map[string]any{"query": file, "result": "1 | C0", "success": true}}}})
			},
			write: func(cwd, file, content string) string {
				return mustJSON(map[string]any{"taskId": "x", "hookName": "PreToolUse", "workspaceRoots": []string{cwd},
					"tool_call": map[string]any{"id": "c2", "name": "editor", "input": map[string]string{"command": "create", "path": file, "file_text": content}}})
			}},
		{agent: "copilot", session: "copilot-x",
			read: func(cwd, file string) string {
				return mustJSON(map[string]any{"sessionId": "x", "cwd": cwd, "hookEventName": "postToolUse", "toolName": "view",
					"toolArgs": map[string]string{"path": file}})
			},
			// GPT-5 model ids rewrite a file as Delete File + Add File.
			write: func(cwd, file, content string) string {
				patch := "*** Begin Patch\n*** Delete File: " + file + "\n*** Add File: " + file + "\n+" + strings.TrimSuffix(content, "\n") + "\n*** End Patch"
				return mustJSON(map[string]any{"sessionId": "x", "cwd": cwd, "hookEventName": "preToolUse", "toolName": "apply_patch", "toolArgs": patch})
			}},
	}
}

// Each CLI's read tool records what the session read: after another
// session changed and released the file, the CLI's whole-file write is
// refused naming that session, and goes through once it read it again. A
// read is never taken for the session's own edit: a session that began
// before it, and never read the file, may still write it whole.
func TestHookStaleReadToolsOfEachCLI(t *testing.T) {
	for _, s := range readShapes() {
		t.Run(s.agent, func(t *testing.T) {
			p := hookProject(t)
			p.write("src/a.go", "C0\n")
			p.write("src/b.go", "B0\n")
			file := filepath.Join(p.dir, "src/a.go")
			hook := func(run, payload string) proctest.Result {
				return harness(t).Run(t, proctest.Cmd{Args: []string{"hook", s.agent, run}, Env: p.env, Dir: p.dir, Stdin: payload})
			}
			write := func(content string) string {
				r := hook("pre-edit", s.write(p.dir, file, content))
				if s.agent == "opencode" || s.agent == "kilo" || s.agent == "pi" {
					if r.Code == 0 {
						return ""
					}
					requireExit(t, 2, r)
					return r.Stderr
				}
				if s.agent == "cline" {
					// {"cancel": true, "errorMessage": …} on stdout.
					requireExit(t, 0, r)
					var out struct {
						Cancel  bool   `json:"cancel"`
						Message string `json:"errorMessage"`
					}
					if strings.TrimSpace(r.Stdout) == "" {
						return ""
					}
					require.NoError(t, json.Unmarshal([]byte(r.Stdout), &out), r.Stdout)
					if !out.Cancel {
						return ""
					}
					return out.Message
				}
				return deniedReason(t, s.agent, r)
			}
			w := claudeAgent{t: t, p: p, id: "w"}
			requireExit(t, 0, p.runEnv([]string{"AGENTLOCK_SESSION=" + w.session()}, "register", "--working-on", "b"))

			requireExit(t, 0, hook("renew", s.read(p.dir, file)))
			requireExit(t, 0, hook("renew", s.read(p.dir, filepath.Join(p.dir, "src/b.go"))))
			require.Empty(t, w.write("src/b.go", "W\n"), "a read is not an edit: nobody changed b.go since w began")

			y := claudeAgent{t: t, p: p, id: "y"}
			require.Empty(t, y.write("src/a.go", y.read("src/a.go")+"C1\n"))
			requireExit(t, 0, p.run("release", "--all", "--session", y.session()))

			reason := write("C0\nX\n")
			assert.Contains(t, reason, "changed since you ("+s.session+") read it", "the stale write")
			assert.Contains(t, reason, "session "+y.session(), "who changed it")
			assert.Contains(t, reason, "reserved for you")
			assert.Equal(t, "C0\nC1\n", p.read("src/a.go"), "y's change is intact")

			requireExit(t, 0, hook("renew", s.read(p.dir, file)))
			assert.Empty(t, write("C0\nC1\nX\n"), "the write after a read again")
		})
	}
}

// A CLI that runs no after-tool hook for its own edit (Codex 0.171.0 runs
// none for apply_patch through its shell) never reports the new content:
// the pre-edit hook that let the edit through marks it the session's own,
// so its next edit passes; another session's change after it is still
// caught, naming that session.
func TestHookStaleOwnEditsWithoutAnAfterToolHook(t *testing.T) {
	p := hookProject(t)
	p.write("src/a.go", "C0\n")
	x := claudeAgent{t: t, p: p, id: "x"}
	// writeUnreported is Write with its PreToolUse hook alone.
	writeUnreported := func(content string) string {
		path := filepath.Join(p.dir, "src/a.go")
		if reason := deniedReason(t, "claude", x.hook("PreToolUse", "Write", path, content)); reason != "" {
			return reason
		}
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
		return ""
	}
	content := x.read("src/a.go")
	for i := range 3 {
		content += fmt.Sprintf("X%d\n", i)
		require.Empty(t, writeUnreported(content), "own edit %d, unreported", i)
	}
	requireExit(t, 0, p.run("release", "src/a.go", "--session", x.session()))

	y := claudeAgent{t: t, p: p, id: "y"}
	requireExit(t, 0, p.run("acquire", "src/a.go", "--session", y.session()))
	p.write("src/a.go", content+"Y\n")
	requireExit(t, 0, p.run("release", "src/a.go", "--session", y.session()))
	reason := writeUnreported(content + "X3\n")
	assert.Contains(t, reason, "changed since you ("+x.session()+") read it")
	assert.Contains(t, reason, "session "+y.session(), "who changed it")
	assert.Equal(t, content+"Y\n", p.read("src/a.go"), "y's change is intact")
}

// check tells a session whose view of a file is stale so, with who changed
// it, before it writes: stale_view and changed_by in --json, a clause for
// people; a session whose view is current, or that never read the file,
// is told nothing of the kind. check changes nothing and exits as before.
func TestCheckShowsAStaleView(t *testing.T) {
	p := hookProject(t)
	p.write("src/a.go", "C0\n")
	x, y := claudeAgent{t: t, p: p, id: "x"}, claudeAgent{t: t, p: p, id: "y"}
	x.read("src/a.go")
	y.read("src/a.go")
	requireExit(t, 0, p.run("acquire", "src/a.go", "--session", y.session()))
	p.write("src/a.go", "C0\nC1\n")
	requireExit(t, 0, p.run("release", "src/a.go", "--session", y.session()))
	y.read("src/a.go")

	r := p.run("check", "--json", "src/a.go", "--session", x.session())
	requireExit(t, 0, r)
	var rec map[string]any
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &rec), r.Stdout)
	assert.Equal(t, "changed", rec["stale_view"], r.Stdout)
	assert.Equal(t, y.session(), rec["changed_by"], r.Stdout)

	r = p.run("check", "src/a.go", "--session", x.session())
	requireExit(t, 0, r)
	assert.Contains(t, r.Stdout, "changed since you read it, by session "+y.session())
	assert.Contains(t, r.Stdout, "read it again before you change it")

	for _, who := range []string{y.session(), "claude-z"} {
		r = p.run("check", "--json", "src/a.go", "--session", who)
		requireExit(t, 0, r)
		assert.NotContains(t, r.Stdout, "stale_view", "%s's view is current, or it never read the file", who)
	}
	assert.Equal(t, "C0\nC1\n", p.read("src/a.go"))
	assert.Empty(t, p.owner("src/a.go"), "check reserved nothing")
	assert.Contains(t, x.write("src/a.go", "C0\nX\n"), "changed since you ("+x.session()+") read it", "check changed no version")
}

// The early notice (issue 34, item 4): after another session changed and
// released a file X read, X's next after-tool hook tells the model so, in
// its harness's after-tool context form — which file, who changed it, to
// read it again before it edits it — once: the hook after prints nothing,
// and the write is still refused until X reads the file again. A session
// that never read the file is told nothing; after a read again, a new
// change is told again. Claude Code's, Gemini CLI's and Qwen Code's
// payload shapes (additionalContext); OpenCode's, Kilo's and Pi's (the
// text itself on stdout, one line, which their plugin or extension adds
// to the tool's result); Cline's (its contextModification).
func TestHookTellsAStaleReadOnce(t *testing.T) {
	for _, c := range []struct {
		agent, event, read, other, field string
		// form is how the hook's stdout carries the notice:
		// "hook-specific", "text" or "cline".
		form string
	}{
		{agent: "claude", event: "PostToolUse", read: "Read", other: "Bash", field: "file_path", form: "hook-specific"},
		{agent: "gemini", event: "AfterTool", read: "read_file", other: "run_shell_command", field: "file_path", form: "hook-specific"},
		{agent: "qwen", event: "PostToolUse", read: "read_file", other: "run_shell_command", field: "file_path", form: "hook-specific"},
		{agent: "opencode", read: "read", other: "bash", field: "filePath", form: "text"},
		{agent: "kilo", read: "read", other: "bash", field: "filePath", form: "text"},
		{agent: "pi", event: "renew", read: "read", other: "bash", field: "path", form: "text"},
		{agent: "cline", read: "read_files", other: "execute_command", form: "cline"},
	} {
		t.Run(c.agent, func(t *testing.T) {
			p := hookProject(t)
			p.write("src/a.go", "C0\n")
			file := filepath.Join(p.dir, "src/a.go")
			after := func(id, tool string, input any) proctest.Result {
				// The payload as the harness, or agentlock's plugin or
				// extension, sends it.
				fields := map[string]any{"session_id": id, "cwd": p.dir, "tool_name": tool, "tool_input": input}
				switch {
				case c.form == "cline":
					fields = map[string]any{"taskId": id, "hookName": "tool_result", "workspaceRoots": []string{p.dir},
						"tool_result": map[string]any{"id": "c1", "name": tool, "input": input, "output": []any{}}}
				case c.form == "hook-specific":
					fields["tool_response"] = map[string]string{"output": "ok"}
					fallthrough
				case c.event != "":
					fields["hook_event_name"] = c.event
				}
				r := harness(t).Run(t, proctest.Cmd{Args: []string{"hook", c.agent, "renew"}, Env: p.env, Dir: p.dir, Stdin: mustJSON(fields)})
				requireExit(t, 0, r)
				return r
			}
			read := func(id string) proctest.Result {
				if c.form == "cline" {
					return after(id, c.read, map[string]any{"files": []any{map[string]string{"path": file}}})
				}
				return after(id, c.read, map[string]string{c.field: file})
			}
			other := func(id string) proctest.Result { return after(id, c.other, map[string]string{"command": "ls"}) }
			// told returns the notice of an after-tool hook's answer, ""
			// for none: the harness's additionalContext, the text itself,
			// or Cline's contextModification.
			told := func(r proctest.Result) string {
				t.Helper()
				if r.Stdout == "" {
					return ""
				}
				switch c.form {
				case "text":
					require.True(t, strings.HasSuffix(r.Stdout, "\n"), "one line: %q", r.Stdout)
					return strings.TrimSuffix(r.Stdout, "\n")
				case "cline":
					var out map[string]string
					require.NoError(t, json.Unmarshal([]byte(r.Stdout), &out), r.Stdout)
					assert.Len(t, out, 1, "only contextModification: %s", r.Stdout)
					return out["contextModification"]
				}
				var out struct {
					Specific map[string]string `json:"hookSpecificOutput"`
				}
				require.NoError(t, json.Unmarshal([]byte(r.Stdout), &out), r.Stdout)
				assert.Equal(t, c.event, out.Specific["hookEventName"], r.Stdout)
				assert.Len(t, out.Specific, 2, "only hookEventName and additionalContext: %s", r.Stdout)
				return out.Specific["additionalContext"]
			}
			x := c.agent + "-x"
			require.Empty(t, told(read("x")), "nothing to tell after a read")
			require.Empty(t, told(other("z")), "z never reads the file")

			y := claudeAgent{t: t, p: p, id: "y"}
			require.Empty(t, y.write("src/a.go", y.read("src/a.go")+"C1\n"))
			requireExit(t, 0, p.run("release", "--all", "--session", y.session()))

			r0 := other("x")
			notice := told(r0)
			require.NotEmpty(t, notice, "x's next tool call is told")
			assert.Contains(t, notice, file+" changed since you ("+x+") read it")
			assert.Contains(t, notice, "session "+y.session(), "who changed it")
			assert.Contains(t, notice, "read it again with "+c.read+" before you edit it")
			assert.NotContains(t, notice, "\n")
			assert.Empty(t, told(other("x")), "told once")
			assert.Empty(t, told(other("x")), "told once")
			assert.Empty(t, told(other("z")), "z never read the file: nothing to tell")

			// A read again makes a new version: a new change is told again.
			require.Empty(t, told(read("x")), "the read again is fresh")
			require.Empty(t, y.write("src/a.go", y.read("src/a.go")+"C2\n"))
			requireExit(t, 0, p.run("release", "--all", "--session", y.session()))
			notice = told(read("x"))
			assert.Empty(t, notice, "a read of the file itself is its fresh version: nothing to tell")
			require.Empty(t, y.write("src/a.go", y.read("src/a.go")+"C3\n"))
			requireExit(t, 0, p.run("release", "--all", "--session", y.session()))
			assert.Contains(t, told(other("x")), "session "+y.session())
			assert.Empty(t, told(other("x")), "told once")
			assert.Equal(t, "C0\nC1\nC2\nC3\n", p.read("src/a.go"))
			if c.agent == "claude" {
				reason := claudeAgent{t: t, p: p, id: "x"}.write("src/a.go", "C0\nX\n")
				assert.Contains(t, reason, "changed since you ("+x+") read it", "being told does not make the view fresh")
				assert.Equal(t, "C0\nC1\nC2\nC3\n", p.read("src/a.go"))
			}
		})
	}
}

// Two files changed at once are told together, one sentence each on one
// line: no newline (a plugin passes its hook's output on as one line) and
// no literal "\n" (an escaped newline reached the model so).
func TestHookTellsTwoStaleFilesOnOneLine(t *testing.T) {
	p := hookProject(t)
	p.write("src/a.go", "A0\n")
	p.write("src/b.go", "B0\n")
	after := func(tool string, input map[string]string) string {
		payload := mustJSON(map[string]any{"session_id": "x", "cwd": p.dir, "hook_event_name": "PostToolUse",
			"tool_name": tool, "tool_input": input, "tool_response": map[string]string{"output": "ok"}})
		r := harness(t).Run(t, proctest.Cmd{Args: []string{"hook", "claude", "renew"}, Env: p.env, Dir: p.dir, Stdin: payload})
		requireExit(t, 0, r)
		if r.Stdout == "" {
			return ""
		}
		var out struct {
			Specific map[string]string `json:"hookSpecificOutput"`
		}
		require.NoError(t, json.Unmarshal([]byte(r.Stdout), &out), r.Stdout)
		return out.Specific["additionalContext"]
	}
	for _, f := range []string{"src/a.go", "src/b.go"} {
		require.Empty(t, after("Read", map[string]string{"file_path": filepath.Join(p.dir, f)}))
	}
	y := claudeAgent{t: t, p: p, id: "y"}
	require.Empty(t, y.write("src/a.go", "A0\nA1\n"))
	require.Empty(t, y.write("src/b.go", "B0\nB1\n"))
	requireExit(t, 0, p.run("release", "--all", "--session", y.session()))

	notice := after("Bash", map[string]string{"command": "ls"})
	for _, f := range []string{"src/a.go", "src/b.go"} {
		assert.Contains(t, notice, filepath.Join(p.dir, f)+" changed since you (claude-x) read it")
	}
	assert.Equal(t, 2, strings.Count(notice, "agentlock: "), "one sentence a file: %q", notice)
	assert.NotContains(t, notice, "\n")
	assert.NotContains(t, notice, `\n`, "no escaped newline between them")
	assert.Empty(t, after("Bash", map[string]string{"command": "ls"}), "told once")
}

// The agents whose harness passes no after-tool hook's text to the model
// (no after_tool_context: Kimi Code ignores a PostToolUse hook's output)
// keep the renew hook's stdout empty, a stale read or not.
func TestHookTellsNothingWithoutAfterToolContext(t *testing.T) {
	p := hookProject(t)
	p.write("src/a.go", "C0\n")
	file := filepath.Join(p.dir, "src/a.go")
	after := func(tool string, input map[string]string) proctest.Result {
		payload := mustJSON(map[string]any{"session_id": "x", "cwd": p.dir, "hook_event_name": "PostToolUse", "tool_name": tool, "tool_input": input})
		r := harness(t).Run(t, proctest.Cmd{Args: []string{"hook", "kimi", "renew"}, Env: p.env, Dir: p.dir, Stdin: payload})
		requireExit(t, 0, r)
		return r
	}
	assert.Empty(t, after("Read", map[string]string{"path": file}).Stdout)
	y := claudeAgent{t: t, p: p, id: "y"}
	require.Empty(t, y.write("src/a.go", y.read("src/a.go")+"C1\n"))
	requireExit(t, 0, p.run("release", "--all", "--session", y.session()))
	assert.Empty(t, after("Shell", map[string]string{"command": "ls"}).Stdout, "kimi's renew hook prints nothing")
	r := p.run("check", "--json", "src/a.go", "--session", "kimi-x")
	requireExit(t, 0, r)
	assert.Contains(t, r.Stdout, `"stale_view":"changed"`, "the view is stale all the same: %s", r.Stdout)
}

// The after-tool hook digests only the files whose status changed since
// it last digested them (docs/read-versions.md#telling-the-model-early):
// a read older than filedigest.RacyMargin records a status that proves
// its content. Another session's change of the same size, the
// modification time set back to the one read (what a change in the same
// clock tick leaves), is still told, once, naming it; the file nobody
// changed is never told. Real time: the files must be older than the
// margin when read, so it skips under -short (its name keeps it out of
// .ci/run's strict race step, which runs the TestHook races under -short).
func TestSettledReadToldOfASameSizeChange(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for the files to be older than filedigest.RacyMargin")
	}
	p := hookProject(t)
	p.write("src/a.go", "C0\n")
	p.write("src/b.go", "K0\n")
	file := filepath.Join(p.dir, "src/a.go")
	info, err := os.Stat(file)
	require.NoError(t, err)
	time.Sleep(filedigest.RacyMargin + 100*time.Millisecond)
	x := claudeAgent{t: t, p: p, id: "x"}
	y := claudeAgent{t: t, p: p, id: "y"}
	x.read("src/a.go")
	x.read("src/b.go")
	bash := func() string {
		payload := mustJSON(map[string]any{"session_id": "x", "cwd": p.dir, "hook_event_name": "PostToolUse", "tool_name": "Bash",
			"tool_input": map[string]string{"command": "ls"}, "tool_response": map[string]string{"output": "ok"}})
		r := harness(t).Run(t, proctest.Cmd{Args: []string{"hook", "claude", "renew"}, Env: p.env, Dir: p.dir, Stdin: payload})
		requireExit(t, 0, r)
		return r.Stdout
	}
	require.Empty(t, bash(), "nothing changed")
	require.Empty(t, bash(), "nothing changed")

	require.Empty(t, y.write("src/a.go", "C1\n"))
	require.NoError(t, os.Chtimes(file, info.ModTime(), info.ModTime()))
	requireExit(t, 0, p.run("release", "--all", "--session", y.session()))
	now, err := os.Stat(file)
	require.NoError(t, err)
	require.True(t, now.Size() == info.Size() && now.ModTime().Equal(info.ModTime()), "same size, same modification time")

	notice := bash()
	require.True(t, isEarlyNotice(notice), "told: %s", notice)
	assert.Contains(t, notice, file+" changed since you (claude-x) read it")
	assert.Contains(t, notice, "session "+y.session())
	assert.NotContains(t, notice, "b.go", "b.go did not change")
	assert.Empty(t, bash(), "told once")
	assert.Empty(t, bash(), "told once")
	assert.Contains(t, x.write("src/a.go", "C0\nX\n"), "changed since you (claude-x) read it", "the pre-edit check refuses")
	assert.Equal(t, "C1\n", p.read("src/a.go"))
}

// status marks, for people and in --json, a held file whose holder's view
// is stale: X's stale write was refused and the file reserved for it, so
// X holds a file it must read again before it writes it; the marker names
// who changed it, and goes once X reads it again. A holder whose view is
// current, or who never read its file, is not marked.
func TestStatusShowsAStaleView(t *testing.T) {
	p := hookProject(t)
	p.write("src/a.go", "C0\n")
	x, y := claudeAgent{t: t, p: p, id: "x"}, claudeAgent{t: t, p: p, id: "y"}
	base := x.read("src/a.go")
	require.Empty(t, y.write("src/a.go", y.read("src/a.go")+"C1\n"))
	requireExit(t, 0, p.run("release", "--all", "--session", y.session()))
	require.NotEmpty(t, x.write("src/a.go", base+"X\n"), "the stale write is refused, the file reserved for x")
	require.Empty(t, y.write("src/b.go", y.read("src/b.go")+"Y\n"), "y holds b.go, its view current")
	requireExit(t, 0, p.run("acquire", "src/c.go", "--session", "claude-z"))

	records := func() map[string]map[string]any {
		r := p.run("status", "--json")
		requireExit(t, 0, r)
		out := map[string]map[string]any{}
		for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
			var rec map[string]any
			require.NoError(t, json.Unmarshal([]byte(line), &rec), line)
			out[filepath.Base(rec["path"].(string))] = rec
		}
		return out
	}
	recs := records()
	require.Contains(t, recs, "a.go")
	assert.Equal(t, x.session(), recs["a.go"]["session_id"])
	assert.Equal(t, "changed", recs["a.go"]["stale_view"])
	assert.Equal(t, y.session(), recs["a.go"]["changed_by"])
	for _, f := range []string{"b.go", "c.go"} {
		require.Contains(t, recs, f)
		assert.NotContains(t, recs[f], "stale_view", "%s: its holder's view is current, or it never read it", f)
		assert.NotContains(t, recs[f], "changed_by", f)
	}

	r := p.run("status")
	requireExit(t, 0, r)
	assert.Contains(t, r.Stdout, "STALE VIEW")
	assert.Regexp(t, `(?m)^src/a\.go .*changed by `+y.session()+`\s*$`, r.Stdout)
	assert.Regexp(t, `(?m)^src/b\.go .* -\s*$`, r.Stdout)

	x.read("src/a.go")
	recs = records()
	assert.NotContains(t, recs["a.go"], "stale_view", "x read it again")
	r = p.run("status")
	requireExit(t, 0, r)
	assert.NotContains(t, r.Stdout, "STALE VIEW", "no column when nobody's view is stale")
}

// show marks, for people and in --json, each working session's stale
// views: the files it read that another session changed since, with who
// changed them; they go once it reads the file again. A session whose
// views are current shows none.
func TestShowShowsStaleViews(t *testing.T) {
	p := hookProject(t)
	p.write("src/a.go", "C0\n")
	x, y := claudeAgent{t: t, p: p, id: "x"}, claudeAgent{t: t, p: p, id: "y"}
	for _, a := range []claudeAgent{x, y} {
		requireExit(t, 0, p.runEnv([]string{"AGENTLOCK_SESSION=" + a.session()}, "register", "--working-on", "a"))
	}
	x.read("src/a.go")
	x.read("src/b.go")
	require.Empty(t, y.write("src/a.go", y.read("src/a.go")+"C1\n"))
	requireExit(t, 0, p.run("release", "--all", "--session", y.session()))

	views := func() map[string]any {
		r := p.run("show", "--json")
		requireExit(t, 0, r)
		out := map[string]any{}
		for _, line := range strings.Split(strings.TrimSpace(r.Stdout), "\n") {
			var rec map[string]any
			require.NoError(t, json.Unmarshal([]byte(line), &rec), line)
			out[rec["session_id"].(string)] = rec["stale_views"]
		}
		return out
	}
	got := views()
	assert.Equal(t, []any{map[string]any{"path": filepath.Join(p.dir, "src/a.go"), "stale_view": "changed", "changed_by": y.session()}}, got[x.session()])
	assert.Nil(t, got[y.session()], "y's views are current")
	r := p.run("show")
	requireExit(t, 0, r)
	assert.Contains(t, r.Stdout, "stale views (read the file again before changing it):")
	assert.Regexp(t, `(?m)^  `+x.session()+`  src/a\.go  changed by `+y.session()+`$`, r.Stdout)
	assert.NotContains(t, r.Stdout, "src/b.go  changed")

	// Read again while x holds it: settled, whatever the timing (a read
	// within the settle window of y's change would show as unsettled).
	requireExit(t, 0, p.run("acquire", "src/a.go", "--session", x.session()))
	x.read("src/a.go")
	assert.Nil(t, views()[x.session()], "read again")
	r = p.run("show")
	requireExit(t, 0, r)
	assert.NotContains(t, r.Stdout, "stale views")
}
