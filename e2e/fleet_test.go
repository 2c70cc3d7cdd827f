//go:build linux

package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentlock/agentlock/e2e/mock"
	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// The real fleet (issue 36): two sessions each of two real CLIs, at the
// same time, in one repository, each scripted by a reacting mock model to
// read-modify-write the same two files several times, and to read a file
// again after any refusal of its write. Every write adds the session's
// token for that round, so the end counts lost updates exactly.
//
// Every session first reads fleet-a.txt, then waits at a barrier until
// every session has read it: all but the first writer of fleet-a.txt then
// write from a stale read, and must be refused (by agentlock: the file is
// locked, or changed since they read it; or by the CLI's own check).

// fleetCLIs are the CLIs of the fleet, two sessions each: the two the
// suite drives most reliably, with read tools agentlock records (read
// versions, issue 34).
var fleetCLIs = []string{"claude", "gemini"}

// fleetFiles are the shared files; a session's round r edits
// fleetFiles[r%2].
var fleetFiles = []string{"fleet-a.txt", "fleet-b.txt"}

// fleetRounds is how many writes each session makes.
const fleetRounds = 3

// fleetMaxTries bounds the refusals of one round before the model gives
// the round up (its token then counts as lost, and the test fails).
const fleetMaxTries = 25

// fleetLimit bounds each CLI's run: four Node CLIs share the machine's
// cores, and each waits at the barrier for the slowest to start.
const fleetLimit = 6 * time.Minute

// fleetToken matches one session's line in a shared file.
var fleetToken = regexp.MustCompile(`T:[a-z0-9-]+`)

// fleetHeader is the first line of a shared file, which tells a read of
// it from any other tool result.
func fleetHeader(file string) string { return "# shared file " + file }

// fleetModel is one session's scripted model.
type fleetModel struct {
	name    string // the session's name in its tokens: claude-1, …
	repo    string
	barrier string // command that waits until every session has read
	// tools are the CLI's read and whole-file write tools (its stale
	// case's).
	tools *staleCase
}

// fleetState is where a fleetModel stands after a conversation.
type fleetState struct {
	round, tries int
	phase        string            // "read", "barrier", "write", "pause"
	seen         map[string]string // the last read of each file that showed its content
	refusals     []string          // what each refused write was told
	gaveUp       bool
	// barrierFailed is what the barrier's command printed when it did
	// not pass (its exit status is not the model's to judge).
	barrierFailed string
}

// token is the line the session's round r adds.
func (m fleetModel) token(r int) string { return fmt.Sprintf("T:%s-%d", m.name, r) }

// replay reads the conversation: the calls the model made (each a
// function of the results before it) and what each was told.
func (m fleetModel) replay(results []string) fleetState {
	s := fleetState{phase: "read", seen: map[string]string{}}
	for _, told := range results {
		if s.round >= fleetRounds || s.gaveUp {
			break
		}
		file := fleetFiles[s.round%len(fleetFiles)]
		switch s.phase {
		case "read":
			// Claude Code answers a read of an unchanged file with a
			// stub: the earlier read stands.
			if strings.Contains(told, fleetHeader(file)) {
				s.seen[file] = told
			}
			s.phase = "write"
			if s.round == 0 && s.tries == 0 {
				s.phase = "barrier"
			}
		case "pause":
			s.phase = "read"
		case "barrier":
			if !strings.Contains(told, "barrier passed") {
				s.barrierFailed = told
			}
			s.phase = "write"
		case "write":
			if fleetRefused(told) {
				s.refusals = append(s.refusals, told)
				s.tries++
				s.gaveUp = s.tries >= fleetMaxTries
				// Read it again, then redo the change; told that another
				// session is editing it, first give that session a moment
				// (the refusal says the file frees at its turn's end or
				// once it leaves it unused a while).
				s.phase = "read"
				if strings.Contains(told, "is locked by") {
					s.phase = "pause"
				}
				continue
			}
			s.round, s.tries, s.phase = s.round+1, 0, "read"
		}
	}
	return s
}

// fleetRefused tells a refused write from a written one by what the model
// was told: agentlock's reason, the CLI's own refusal, or an error.
func fleetRefused(told string) bool {
	lower := strings.ToLower(told)
	return strings.Contains(told, "agentlock:") || strings.Contains(lower, "modified since") ||
		strings.Contains(lower, "not been read") || strings.Contains(lower, "error")
}

// next is the model's next call after results (mock.Script.Next).
func (m fleetModel) next(results []string) (mock.Step, bool) {
	s := m.replay(results)
	if s.round >= fleetRounds || s.gaveUp {
		return mock.Step{}, false
	}
	file := fleetFiles[s.round%len(fleetFiles)]
	path := filepath.Join(m.repo, file)
	switch s.phase {
	case "read":
		return m.tools.read(path), true
	case "barrier":
		return mock.Step{Shell: m.barrier}, true
	case "pause":
		// Each pause its own command: a CLI may stop a model that repeats
		// one call.
		return mock.Step{Shell: fmt.Sprintf("sleep 2; echo %s waited for %s, try %d", m.name, file, s.tries)}, true
	}
	// The whole file from what it read, plus its own line.
	lines := []string{fleetHeader(file)}
	for _, tok := range fleetToken.FindAllString(s.seen[file], -1) {
		if !slices.Contains(lines, tok) {
			lines = append(lines, tok)
		}
	}
	lines = append(lines, m.token(s.round))
	return m.tools.write(path, strings.Join(lines, "\n")+"\n"), true
}

func TestE2EFleet(t *testing.T) {
	e2eOnly(t)
	progs := map[string]string{}
	byName := map[string]agent{}
	for _, name := range fleetCLIs {
		i := slices.IndexFunc(agents, func(a agent) bool { return a.cli.name == name })
		if i < 0 || agents[i].stale == nil {
			t.Fatalf("no agent %s with read and whole-file write tools in the suite", name)
		}
		byName[name], progs[name] = agents[i], agents[i].cli.install(t)
	}
	// Every CLI of the fleet runs offline: the mock servers and the CLIs
	// are started from this goroutine, in its network namespace.
	offline(t)

	root := caseRoot(t)
	repo, ready := filepath.Join(root, "repo"), filepath.Join(root, "ready")
	base := &e2eRun{home: filepath.Join(root, "home"), tmp: filepath.Join(root, "tmp"), repo: repo, bin: agentlockDir}
	for _, d := range []string{base.home, base.tmp, repo, ready} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "-C", repo, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v: %s", err, out)
	}
	for _, name := range fleetCLIs {
		base.agentlock(t, "init", "--agent", name)
	}
	// Locks that live as long as the work, with an idle bound short
	// enough for a run of minutes: a session's lock on one file frees
	// while it works on the other.
	base.write(t, filepath.Join(repo, ".agent-registry", "hook-locks"), "lifetime=turn\nidle=3s\n")
	for _, f := range fleetFiles {
		base.write(t, filepath.Join(repo, f), fleetHeader(f)+"\n")
	}

	wait := filepath.Join(root, "barrier.sh")
	base.write(t, wait, fmt.Sprintf(`touch %[1]s/"$1"
for i in $(seq 900); do
  if [ "$(ls %[1]s | wc -l)" -ge %[2]d ]; then echo barrier passed; exit 0; fi
  sleep 0.2
done
echo the other sessions did not come
exit 1
`, ready, len(fleetCLIs)*2))

	type member struct {
		run   *e2eRun
		model fleetModel
		a     agent
		proc  *proctest.Proc
	}
	var fleet []*member
	sessions := len(fleetCLIs) * 2
	for _, name := range fleetCLIs {
		for i := 1; i <= 2; i++ {
			id := fmt.Sprintf("%s-%d", name, i)
			r := &e2eRun{home: filepath.Join(root, "home-"+id), tmp: filepath.Join(root, "tmp-"+id), repo: repo, bin: agentlockDir}
			for _, d := range []string{r.home, r.tmp} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			// The barrier: a mark of this session, then up to 3 minutes
			// for every session's (a script: Gemini CLI refuses a command
			// substitution in its shell tool's command).
			barrier := "sh " + wait + " " + id
			m := fleetModel{name: id, repo: repo, barrier: barrier, tools: byName[name].stale}
			var err error
			if r.server, err = mock.Start(mock.Script{Next: m.next, Final: "Done."}); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.server.Close() })
			fleet = append(fleet, &member{run: r, model: m, a: byName[name]})
		}
	}
	for _, mb := range fleet {
		args, env := mb.a.configure(t, mb.run, "do the scripted work")
		env = append(env, "PATH="+mb.run.bin+":"+systemPath)
		mb.proc = proctest.Start(t, progs[mb.a.cli.name], proctest.Cmd{Args: args, Env: proctest.Env(mb.run.home, mb.run.tmp, env...), Dir: repo, Limit: fleetLimit})
	}

	refusals, byAgentlock := 0, 0
	for _, mb := range fleet {
		res := mb.proc.Wait(t)
		told := mb.run.server.ToolResults()
		s := mb.model.replay(told)
		t.Logf("%s: %d tool results, %d rounds done, %d refusals", mb.model.name, len(told), s.round, len(s.refusals))
		for _, r := range s.refusals {
			t.Logf("%s was refused: %.300q", mb.model.name, r)
			if strings.Contains(r, "agentlock:") {
				byAgentlock++
			}
		}
		refusals += len(s.refusals)
		if s.barrierFailed != "" {
			t.Errorf("%s: the barrier failed: %q", mb.model.name, s.barrierFailed)
		}
		if res.Code != 0 {
			t.Errorf("%s exited %d: %v", mb.model.name, res.Code, res)
		}
		if s.round < fleetRounds {
			t.Errorf("%s made %d of its %d writes (gave up: %t); it was told: %q\nits output ends: %s", mb.model.name, s.round, fleetRounds, s.gaveUp, told,
				res.Stdout[max(0, len(res.Stdout)-2000):])
		}
	}

	// Every session's every write is there, once: nothing lost.
	want := map[string]int{}
	for _, mb := range fleet {
		for r := range fleetRounds {
			want[mb.model.token(r)] = 0
		}
	}
	lost := 0
	for _, f := range fleetFiles {
		data, err := os.ReadFile(filepath.Join(repo, f))
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("%s at the end:\n%s", f, data)
		for _, tok := range fleetToken.FindAllString(string(data), -1) {
			want[tok]++
		}
	}
	for tok, n := range want {
		switch {
		case n == 0:
			lost++
			t.Errorf("%s's write is lost", tok)
		case n > 1:
			t.Errorf("%s is written %d times: a write the model was told was refused went through", tok, n)
		}
	}
	t.Logf("%d sessions × %d writes: %d lost, %d refusals (%d by agentlock), each followed by a read again", sessions, fleetRounds, lost, refusals, byAgentlock)
	// At the barrier every session read fleet-a.txt: every one but its
	// first writer then wrote from a stale read, and must have been
	// refused at least once.
	if refusals < sessions-1 {
		t.Errorf("%d refusals: every session but the first writer of %s wrote from a stale read, so at least %d", refusals, fleetFiles[0], sessions-1)
	}
	if byAgentlock == 0 {
		t.Error("agentlock refused no write: the fleet did not exercise it")
	}
}
