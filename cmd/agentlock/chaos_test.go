package main_test

// The chaos suite: `go test ./... -run Chaos` (skipped under -short; about
// two minutes on two cores). Faults and hostile input against real
// processes:
//
//   - TestChaosKillStorm: kill -9 storms over mixed operations;
//   - TestChaosKillAtSyscall: kills at chosen system calls (strace);
//   - TestChaosStoppedHolderDoesNotHangAnyone (stopped_test.go): SIGSTOP
//     inside a critical section;
//   - TestChaosScripts (testdata/script/chaos): hostile lock folders and
//     registries;
//   - TestChaosHostileHookPayloads: hostile hook payloads.
//
// Related single-fault tests stay with their behaviour:
// lockfile_killed_mid_write and lockfile_torn_record_taken_over (a kill
// between write and truncate), heartbeat_all_survives_foreign_damage,
// hook_policy_fail_closed.

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// skipChaos skips a chaos test under -short.
func skipChaos(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("chaos suite: skipped under -short (run go test ./... -run Chaos)")
	}
}

// TestChaosScripts runs the scripts of testdata/script/chaos: hostile lock
// folders and registries.
func TestChaosScripts(t *testing.T) {
	skipChaos(t)
	runScripts(t, "chaos", nil)
}

// chaosTimeout is the staleness timeout of the storms, in seconds: short,
// so that locks left by killed processes expire within the test.
const chaosTimeout = 1

// chaosProject is a project set up by init whose children use the short
// timeout and a short bound on flock waits.
func chaosProject(t *testing.T) *project {
	t.Helper()
	p := hookProject(t)
	p.env = append(p.env, fmt.Sprintf("AGENTLOCK_TIMEOUT=%d", chaosTimeout), "AGENTLOCK_LOCK_WAIT=2s")
	// The project's timeout is every process's floor: this project was set
	// up for short locks.
	p.write(".agent-registry/timeout", fmt.Sprintf("%ds\n", chaosTimeout))
	return p
}

// claim is what the storm knows of a path's owner: the session whose
// acquire succeeded, and a lower bound of the stamp its record holds: the
// start of its last acquire or heartbeat that succeeded. (One that was
// killed may not have written: it cannot raise the bound. One that wrote
// only makes the stamp newer, which makes a takeover later, not earlier.)
type claim struct {
	session   string
	lastStamp time.Time
}

// TestChaosKillStorm runs one worker per session, each a sequence of real
// processes — acquire, heartbeat, release, check, register, finish, status
// — on three shared paths, and SIGKILLs about half of them at a random
// moment. Invariants: no process exits 2 (usage) or hangs; never two owners
// (an acquire by another session succeeds only once the owner's last stamp
// known to be written is older than the timeout, unless the owner started a
// release or finish since); afterwards, once the timeout has passed, every
// path can be acquired (nothing stuck), registry.md parses (show exits 0)
// and doctor finds the lock folder and registry sound.
func TestChaosKillStorm(t *testing.T) {
	skipChaos(t)
	p := chaosProject(t)
	bin := harness(t).Bin
	paths := []string{"src/a.go", "src/b.go", "src/c.go"}
	const workers, duration = 4, 25 * time.Second

	var mu sync.Mutex
	owners := map[string]*claim{}
	var ops, kills atomic.Int64
	var violations []string
	var history []string // every operation, for the report of a violation
	begin := time.Now()
	stop := begin.Add(duration)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			session := fmt.Sprintf("storm-%d", w)
			for time.Now().Before(stop) {
				path := paths[rng.IntN(len(paths))]
				var args []string
				switch rng.IntN(8) {
				case 0, 1:
					args = []string{"acquire", path, session}
				case 2:
					args = []string{"heartbeat", path, session}
				case 3:
					args = []string{"release", path, session}
				case 4:
					args = []string{"check", path, session}
				case 5:
					args = []string{"register", session, "anthropic", "opus", "storm"}
				case 6:
					args = []string{"finish", session}
				default:
					args = []string{"status"}
				}
				start := time.Now()
				mu.Lock()
				switch args[0] {
				case "release":
					if c := owners[path]; c != nil && c.session == session {
						delete(owners, path) // its outcome is unknown once started
					}
				case "finish":
					for p, c := range owners {
						if c.session == session {
							delete(owners, p)
						}
					}
				}
				mu.Unlock()
				proc := proctest.Start(t, bin, proctest.Cmd{Args: args, Env: p.env, Dir: p.dir})
				killed := rng.IntN(2) == 0
				if killed {
					time.Sleep(time.Duration(rng.IntN(30)) * time.Millisecond)
					_ = proc.Signal(syscall.SIGKILL)
				}
				r := proc.Wait(t)
				done := time.Now()
				ops.Add(1)
				if r.Code == -1 {
					kills.Add(1)
				}
				mu.Lock()
				history = append(history, fmt.Sprintf("%.3f-%.3f %s %v -> %d", start.Sub(begin).Seconds(), done.Sub(begin).Seconds(), session, args, r.Code))
				if r.Code == 2 {
					violations = append(violations, fmt.Sprintf("usage error: %s", r))
				}
				if args[0] == "heartbeat" && r.Code == 0 {
					if c := owners[path]; c != nil && c.session == session {
						c.lastStamp = start
					}
				}
				if args[0] == "acquire" && r.Code == 0 {
					if c := owners[path]; c != nil && c.session != session && done.Sub(c.lastStamp) <= chaosTimeout*time.Second {
						var recent []string
						for _, h := range history {
							if strings.Contains(h, path) || strings.Contains(h, "finish") {
								recent = append(recent, h)
							}
						}
						violations = append(violations, fmt.Sprintf("two owners of %s: %s took it %s after %s's last stamp; operations on it:\n%s",
							path, session, done.Sub(c.lastStamp), c.session, strings.Join(recent[max(0, len(recent)-25):], "\n")))
					}
					owners[path] = &claim{session: session, lastStamp: start}
				}
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	t.Logf("%d operations, %d killed with SIGKILL", ops.Load(), kills.Load())
	assert.Empty(t, violations)
	require.Positive(t, kills.Load())

	time.Sleep((chaosTimeout + 1) * time.Second)
	for _, path := range paths {
		requireExit(t, 0, p.run("acquire", path, "after-the-storm"))
	}
	requireExit(t, 0, p.run("show", "--json"))
	r := p.run("doctor", "--json")
	assert.Contains(t, r.Stdout, `"name":"lock-files","status":"ok"`, "%s", r)
	assert.Contains(t, r.Stdout, `"name":"registry","status":"ok"`, "%s", r)
	assert.Contains(t, r.Stdout, `"name":"clock","status":"ok"`, "%s", r)
}

// straceKill runs agentlock under strace, which kills it with SIGKILL at
// the when-th call of syscall. It reports whether the process was killed
// (a call that never happens lets it finish).
func straceKill(t *testing.T, p *project, syscallName string, when int, args ...string) bool {
	t.Helper()
	strace := proctest.Need(t, "strace", "the kill-at-a-syscall chaos tests did not run (.ci/run installs it)")
	sargs := append([]string{"-f", "-qq", "-o", "/dev/null", "-e", "trace=" + syscallName,
		"-e", fmt.Sprintf("inject=%s:signal=SIGKILL:when=%d", syscallName, when), harness(t).Bin}, args...)
	r := proctest.Run(t, strace, proctest.Cmd{Args: sargs, Env: p.env, Dir: p.dir})
	if strings.Contains(r.Stderr, "ptrace") && strings.Contains(r.Stderr, "Operation not permitted") {
		proctest.Unavailable(t, "strace cannot trace here: %s", r.Stderr)
	}
	return r.Code != 0
}

// TestChaosKillAtSyscall kills each state-changing command at each system
// call that changes state (strace's fault injection), at the first such
// call (and the second of open, write and truncate), and checks after every kill: registry.md still parses
// (it is only ever replaced whole), and the path's lock either reads or,
// once nobody has written it for the timeout, is taken over — never stuck.
func TestChaosKillAtSyscall(t *testing.T) {
	skipChaos(t)
	syscalls := []string{"openat", "flock", "write", "pwrite64", "ftruncate", "fsync", "rename", "renameat"}
	commands := map[string][]string{
		"acquire":   {"acquire", "src/a.go", "agent-b"},
		"heartbeat": {"heartbeat", "src/a.go", "agent-a"},
		"release":   {"release", "src/a.go", "agent-a"},
		"register":  {"register", "agent-a", "anthropic", "opus", "working"},
		"finish":    {"finish", "agent-a"},
	}
	p := chaosProject(t)
	target := filepath.Join(p.dir, "src/a.go")
	lock := filepath.Join(p.dir, ".agent-registry", "locks", lockName(target))
	kills := 0
	for _, name := range []string{"acquire", "heartbeat", "release", "register", "finish"} {
		for _, sc := range syscalls {
			for when := 1; when <= 2; when++ {
				if when == 2 && sc != "write" && sc != "ftruncate" && sc != "openat" {
					continue
				}
				requireExit(t, 0, p.run("release", "--force", "src/a.go"))
				requireExit(t, 0, p.run("register", "agent-a", "anthropic", "opus", "working"))
				if name == "acquire" {
					// A longer, stale record to overwrite: a kill between the
					// write and the truncate tears it.
					stale := fmt.Sprintf("agent-a-with-a-long-session-id|%d.000000|%s", time.Now().Add(-10*time.Minute).Unix(), target)
					require.NoError(t, os.WriteFile(lock, []byte(stale), 0o644))
				} else {
					requireExit(t, 0, p.run("acquire", "src/a.go", "agent-a"))
				}
				if !straceKill(t, p, sc, when, commands[name]...) {
					continue
				}
				kills++
				label := fmt.Sprintf("%s killed at %s #%d", name, sc, when)
				requireExit(t, 0, p.run("show", "--json"))
				if r := p.run("check", "--json", "src/a.go"); r.Code == 3 {
					time.Sleep((chaosTimeout*1000 + 200) * time.Millisecond)
				}
				r := p.run("acquire", "src/a.go", "agent-c")
				if r.Code == 1 { // a live owner: it expires like any lock
					time.Sleep((chaosTimeout*1000 + 200) * time.Millisecond)
					r = p.run("acquire", "src/a.go", "agent-c")
				}
				assert.Equal(t, 0, r.Code, "%s: the lock is stuck: %s", label, r)
			}
		}
	}
	t.Logf("%d kills at a system call", kills)
	require.Positive(t, kills, "strace killed nothing: the injection did not work")
}

// TestChaosHostileHookPayloads feeds every agent's pre-edit hook payloads
// cut short at every few bytes, with random bytes flipped, and hostile
// variants of a valid payload, while another session holds the file.
// Every run ends within its deadline, exits 0 or 2 (never a crash or a
// usage error), and a denial is one line; the variants that still name the
// held file — by the same bytes or the same path spelled otherwise — are
// denied.
func TestChaosHostileHookPayloads(t *testing.T) {
	skipChaos(t)
	p := hookProject(t)
	target := filepath.Join(p.dir, "src/a.go")
	requireExit(t, 0, p.run("acquire", "--session", "holder", "src/a.go"))
	hook := func(agent, payload string) proctest.Result {
		return harness(t).Run(t, proctest.Cmd{Args: []string{"hook", agent, "pre-edit"}, Env: p.env, Dir: p.dir, Stdin: payload})
	}
	// A sound answer: let the edit run, or deny it in the harness's form
	// (claude, codex, gemini: exit 0 and one JSON line on stdout).
	sound := func(label string, r proctest.Result) {
		t.Helper()
		assert.Contains(t, []int{0, 2}, r.Code, "%s: %s", label, r)
		assert.NotContains(t, r.Stderr, "panic", label)
		assert.NotContains(t, r.Stderr, "goroutine ", label)
		if r.Code == 2 {
			assert.Equal(t, 1, strings.Count(r.Stderr, "\n"), "%s: one line: %q", label, r.Stderr)
		}
		if r.Stdout != "" {
			assert.Equal(t, 1, strings.Count(r.Stdout, "\n"), "%s: one line: %q", label, r.Stdout)
			assert.True(t, json.Valid([]byte(r.Stdout)), "%s: a JSON denial: %q", label, r.Stdout)
		}
	}
	valid := map[string]string{
		"claude": claudeEdit("s1", p.dir, target),
		"codex":  codexPatch("s1", p.dir, "*** Begin Patch\n*** Update File: src/a.go\n@@\n-x\n+y\n*** End Patch\n"),
		"gemini": geminiWrite("s1", p.dir, target),
	}
	rng := rand.New(rand.NewPCG(7, 11))
	for agent, payload := range valid {
		requireDenied(t, agent, hook(agent, payload), "holder")
		for cut := 0; cut < len(payload); cut += 9 {
			sound(fmt.Sprintf("%s cut at %d", agent, cut), hook(agent, payload[:cut]))
		}
		for i := range 15 {
			b := []byte(payload)
			for range 3 {
				b[rng.IntN(len(b))] = byte(rng.IntN(256))
			}
			sound(fmt.Sprintf("%s flipped #%d", agent, i), hook(agent, string(b)))
		}
		for _, nest := range []string{strings.Repeat("[", 100000), `{"tool_input":` + strings.Repeat(`{"a":`, 5000)} {
			sound(agent+" deep nesting", hook(agent, nest))
		}
	}
	// Still naming the held file: denied.
	spelled := []string{
		claudeEdit("s1", p.dir, p.dir+"//src/./a.go"),
		claudeEdit("s1", p.dir, "src/../src/a.go"),
		strings.Replace(claudeEdit("s1", p.dir, target), `"tool_name":"Edit"`, `"tool_name":"Edit","extra":{"x":[1,2,{"y":null}]}`, 1),
		strings.Replace(claudeEdit("s1", p.dir, target), `"session_id":"s1"`, `"session_id":"s1","session_id":"s1"`, 1),
		strings.Replace(claudeEdit("s1", p.dir, target), "src/a.go", `src\u002fa.go`, 1),
	}
	for i, payload := range spelled {
		r := hook("claude", payload)
		sound(fmt.Sprintf("spelled #%d", i), r)
		assert.NotEmpty(t, deniedReason(t, "claude", r), "spelled #%d names the held file: %s", i, r)
	}
}
