package main_test

// Scenarios of the registry (registry.md), run as separate processes.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/agentlock/agentlock/internal/proctest"
)

// registrySandbox is a sandbox whose registry is AGENT_REGISTRY_PATH.
func registrySandbox(t *testing.T) (*sandbox, string) {
	s := newSandbox(t)
	reg := filepath.Join(s.root, "state", "registry.md")
	s.env = append(s.env, "AGENT_REGISTRY_PATH="+reg)
	return s, reg
}

// frontmatter is the part of registry.md the tests read.
type frontmatter struct {
	Version string `yaml:"version"`
	Agents  []struct {
		SessionID  string   `yaml:"session_id"`
		Provider   string   `yaml:"provider"`
		WorkingOn  string   `yaml:"working_on"`
		Status     string   `yaml:"status"`
		StartedAt  string   `yaml:"started_at"`
		DoNotTouch []string `yaml:"do_not_touch"`
		Space      []string `yaml:"space"`
		Handoff    []string `yaml:"handoff"`
		Todo       struct {
			Past, Present, Future []string
		} `yaml:"todo"`
	} `yaml:"agents"`
}

// readRegistry parses registry.md as an independent reader would.
func readRegistry(t *testing.T, path string) (frontmatter, string) {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	text := string(data)
	require.True(t, strings.HasPrefix(text, "---\n"), "frontmatter first:\n%s", text)
	front, rest, ok := strings.Cut(text[4:], "\n---\n")
	require.True(t, ok, "frontmatter closed:\n%s", text)
	var fm frontmatter
	require.NoError(t, yaml.Unmarshal([]byte(front), &fm))
	return fm, rest
}

func register(s *sandbox, id string, extra ...string) proctest.Result {
	return s.run(append([]string{"register", id, "anthropic", "opus-4", "working on " + id}, extra...)...)
}

func TestRegisterCreatesRegistryWithProtocolBlock(t *testing.T) {
	s, reg := registrySandbox(t)
	requireExit(t, 0, register(s, "claude-1", "src/auth,tests", "split login(),write tests"))
	fm, rest := readRegistry(t, reg)
	assert.Equal(t, "1.0", fm.Version)
	require.Len(t, fm.Agents, 1)
	a := fm.Agents[0]
	assert.Equal(t, "OnWorking", a.Status)
	assert.Equal(t, []string{"src/auth", "tests"}, a.Space)
	assert.Equal(t, []string{"split login()", "write tests"}, a.Todo.Present)
	_, err := time.Parse(time.RFC3339, a.StartedAt)
	assert.NoError(t, err, "started_at is RFC 3339")
	assert.Equal(t, 1, strings.Count(rest, "<!-- PROTOCOL:START"))
	assert.Contains(t, rest, "advisory")
	assert.Contains(t, rest, "agentlock acquire")
	assert.Contains(t, rest, "| claude-1 |")
}

func TestRegisterReplacesExistingSession(t *testing.T) {
	s, reg := registrySandbox(t)
	requireExit(t, 0, register(s, "claude-1"))
	requireExit(t, 0, s.run("finish", "claude-1"))
	requireExit(t, 0, s.run("register", "claude-1", "anthropic", "opus-5", "second round"))
	fm, _ := readRegistry(t, reg)
	require.Len(t, fm.Agents, 1, "one entry per id")
	assert.Equal(t, "second round", fm.Agents[0].WorkingOn)
	assert.Equal(t, "OnWorking", fm.Agents[0].Status)
}

func TestConcurrentRegistrationsAreAllKept(t *testing.T) {
	s, reg := registrySandbox(t)
	const n = 16
	for round := range max(raceRounds()/10, 1) {
		cmds := make([]proctest.Cmd, n)
		for i := range cmds {
			cmds[i] = s.cmd("register", fmt.Sprintf("r%d-agent-%d", round, i), "openai", "gpt", "task")
		}
		for _, r := range harness(t).Race(t, cmds) {
			requireExit(t, 0, r)
		}
		fm, _ := readRegistry(t, reg)
		ids := map[string]bool{}
		for _, a := range fm.Agents {
			ids[a.SessionID] = true
		}
		for i := range n {
			require.True(t, ids[fmt.Sprintf("r%d-agent-%d", round, i)], "round %d: agent-%d lost", round, i)
		}
	}
}

func TestConcurrentUpdatesOfDistinctSessionsAllSurvive(t *testing.T) {
	s, reg := registrySandbox(t)
	const n = 16
	for i := range n {
		requireExit(t, 0, register(s, fmt.Sprintf("agent-%d", i)))
	}
	cmds := make([]proctest.Cmd, n)
	for i := range cmds {
		cmds[i] = s.cmd("update", fmt.Sprintf("agent-%d", i), fmt.Sprintf("updated %d", i), "--todo-future", fmt.Sprintf("next %d", i))
	}
	for _, r := range harness(t).Race(t, cmds) {
		requireExit(t, 0, r)
	}
	fm, _ := readRegistry(t, reg)
	require.Len(t, fm.Agents, n)
	for _, a := range fm.Agents {
		var i int
		_, err := fmt.Sscanf(a.SessionID, "agent-%d", &i)
		require.NoError(t, err)
		assert.Equal(t, fmt.Sprintf("updated %d", i), a.WorkingOn)
		assert.Equal(t, []string{fmt.Sprintf("next %d", i)}, a.Todo.Future)
	}
}

func TestUpdateChangesOnlyGivenFields(t *testing.T) {
	s, reg := registrySandbox(t)
	requireExit(t, 0, register(s, "claude-1", "src", "a,b"))
	requireExit(t, 0, s.run("update", "claude-1", "--todo-past", "a"))
	fm, _ := readRegistry(t, reg)
	a := fm.Agents[0]
	assert.Equal(t, []string{"a"}, a.Todo.Past)
	assert.Equal(t, []string{"a", "b"}, a.Todo.Present, "todo merges per list")
	assert.Equal(t, "working on claude-1", a.WorkingOn)
	assert.Equal(t, []string{"src"}, a.Space)
}

func TestUnknownSessionChangesNothing(t *testing.T) {
	s, reg := registrySandbox(t)
	requireExit(t, 0, register(s, "claude-1"))
	before, err := os.ReadFile(reg)
	require.NoError(t, err)
	for _, args := range [][]string{{"update", "ghost", "x"}, {"finish", "ghost"}, {"handoff", "ghost", "notes.md"}} {
		r := s.run(args...)
		requireExit(t, 1, r)
		assert.Contains(t, r.Stderr, "no such session")
	}
	after, err := os.ReadFile(reg)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after))
}

func TestReaderNeverSeesPartialRegistry(t *testing.T) {
	s, reg := registrySandbox(t)
	requireExit(t, 0, register(s, "seed"))
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var problems []string
	var mu sync.Mutex
	wg.Add(1)
	go func() { // an independent reader, polling while writers run
		defer wg.Done()
		for {
			select {
			case <-stop:
				return
			default:
			}
			data, err := os.ReadFile(reg)
			if err != nil {
				continue
			}
			text := string(data)
			front, rest, ok := strings.Cut(strings.TrimPrefix(text, "---\n"), "\n---\n")
			var fm frontmatter
			if !ok || yaml.Unmarshal([]byte(front), &fm) != nil || !strings.Contains(rest, "<!-- PROTOCOL:END -->") {
				mu.Lock()
				problems = append(problems, text)
				mu.Unlock()
			}
		}
	}()
	const n = 16
	for round := range 3 {
		cmds := make([]proctest.Cmd, n)
		for i := range cmds {
			cmds[i] = s.cmd("register", fmt.Sprintf("w%d-%d", round, i), "google", "gemini", strings.Repeat("long text ", 50))
		}
		for _, r := range harness(t).Race(t, cmds) {
			requireExit(t, 0, r)
		}
	}
	close(stop)
	wg.Wait()
	assert.Empty(t, problems, "every read parsed as a complete document")
	// The reader command sees every session too.
	assert.Len(t, jsonLines(t, s.run("show", "--json")), 3*n+1)
}

func TestProtocolBlockIsRestoredAndNeverDuplicated(t *testing.T) {
	s, reg := registrySandbox(t)
	requireExit(t, 0, register(s, "claude-1"))
	_, rest := readRegistry(t, reg)
	block := rest[strings.Index(rest, "<!-- PROTOCOL:START"):strings.Index(rest, "<!-- PROTOCOL:END -->")]

	// A person or an agent tampers with the block, then deletes it.
	data, err := os.ReadFile(reg)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(reg, []byte(strings.Replace(string(data), "advisory", "mandatory", 1)), 0o644))
	requireExit(t, 0, s.run("update", "claude-1", "step 2"))
	_, rest = readRegistry(t, reg)
	assert.Contains(t, rest, block, "tampered block restored")
	assert.NotContains(t, rest, "mandatory")

	data, err = os.ReadFile(reg)
	require.NoError(t, err)
	front, _, _ := strings.Cut(string(data), "\n---\n")
	require.NoError(t, os.WriteFile(reg, []byte(front+"\n---\n"), 0o644))
	requireExit(t, 0, s.run("handoff", "claude-1", "notes.md"))
	requireExit(t, 0, s.run("finish", "claude-1"))
	_, rest = readRegistry(t, reg)
	assert.Equal(t, 1, strings.Count(rest, "<!-- PROTOCOL:START"), "deleted block back, once")
	assert.Contains(t, rest, block)
}

func TestFinishReleasesOnlyItsOwnLocks(t *testing.T) {
	s, reg := registrySandbox(t)
	requireExit(t, 0, register(s, "claude-1"))
	requireExit(t, 0, s.run("acquire", "--session", "claude-1", "src/a.py", "src/b.py"))
	requireExit(t, 0, s.run("acquire", "src/c.py", "codex-2"))
	fm, _ := readRegistry(t, reg)
	assert.Equal(t, []string{s.path("src/a.py"), s.path("src/b.py")}, fm.Agents[0].DoNotTouch, "acquire mirrors do_not_touch")
	// A lock the session took without the registry knowing (written by an
	// older tool) is found by owner too.
	hidden := s.path("src/hidden.py")
	s.plant(hidden, record("claude-1", time.Second, hidden))

	r := s.run("finish", "--json", "claude-1")
	requireExit(t, 0, r)
	var rec struct {
		Status   string   `json:"status"`
		Released []string `json:"released"`
	}
	require.NoError(t, json.Unmarshal([]byte(r.Stdout), &rec))
	assert.Equal(t, "Finished", rec.Status)
	assert.ElementsMatch(t, []string{s.path("src/a.py"), s.path("src/b.py"), hidden}, rec.Released)
	for _, p := range []string{"src/a.py", "src/b.py", "src/hidden.py"} {
		owner, _ := s.onDisk(s.path(p))
		assert.Empty(t, owner, p)
	}
	owner, _ := s.onDisk(s.path("src/c.py"))
	assert.Equal(t, "codex-2", owner, "another session's lock stays valid")
	fm, _ = readRegistry(t, reg)
	assert.Empty(t, fm.Agents[0].DoNotTouch)
}

func TestReleaseMirrorsDoNotTouch(t *testing.T) {
	s, reg := registrySandbox(t)
	requireExit(t, 0, register(s, "claude-1"))
	requireExit(t, 0, s.run("acquire", "--session", "claude-1", "src/a.py", "src/b.py"))
	requireExit(t, 0, s.run("release", "src/a.py", "claude-1"))
	fm, _ := readRegistry(t, reg)
	assert.Equal(t, []string{s.path("src/b.py")}, fm.Agents[0].DoNotTouch)
}

func TestCorruptRegistryIsNeverOverwritten(t *testing.T) {
	s, reg := registrySandbox(t)
	requireExit(t, 0, register(s, "claude-1"))
	broken := "---\nversion: \"1.0\"\nagents: [ {session_id: claude-1, oops\n---\n\nhand-written notes\n"
	require.NoError(t, os.WriteFile(reg, []byte(broken), 0o644))

	for _, args := range [][]string{
		{"register", "codex-2", "openai", "gpt", "x"},
		{"update", "claude-1", "x"},
		{"finish", "claude-1"},
		{"handoff", "claude-1", "n.md"},
		{"show"},
	} {
		r := s.run(args...)
		requireExit(t, 3, r)
		assert.Contains(t, r.Stderr, reg, "%v names the file", args)
		assert.Contains(t, r.Stderr, "corrupt registry", "%v", args)
	}
	// A lock operation still works; the registry problem is a warning.
	r := s.run("acquire", "src/a.py", "claude-1")
	requireExit(t, 0, r)
	assert.Contains(t, r.Stderr, "warning")
	data, err := os.ReadFile(reg)
	require.NoError(t, err)
	assert.Equal(t, broken, string(data), "byte for byte intact")
}

func TestShowMissingRegistryIsEmpty(t *testing.T) {
	s, reg := registrySandbox(t)
	r := s.run("show")
	requireExit(t, 0, r)
	assert.Contains(t, r.Stdout, "no sessions")
	assert.NoFileExists(t, reg, "show creates nothing")
}

func TestPythonYAMLReadsTheRegistry(t *testing.T) {
	py := python3(t)
	s, reg := registrySandbox(t)
	if proctest.Run(t, py, proctest.Cmd{Args: []string{"-c", "import yaml"}, Env: s.env}).Code != 0 {
		t.Skip("SKIPPED: PyYAML is not installed; the agent-registry reader check did not run")
	}
	requireExit(t, 0, register(s, "claude-1", "a|b,c", "task: with colon"))
	requireExit(t, 0, s.run("handoff", "claude-1", "notes #1.md"))
	hard := "say \"hi\" \\ # x: [y], {z} 'q'\ttab\nline\x7fdel\u0085nel\u2028ls ü 😀 \x01"
	requireExit(t, 0, s.run("update", "claude-1", "--working-on", hard))
	script := `
import sys, yaml
text = open(sys.argv[1]).read()
front = text.split("---\n")[1]
doc = yaml.safe_load(front)
keys = {"session_id", "provider", "ai_version", "started_at", "working_on", "todo", "space",
        "do_not_touch", "status", "issues", "handoff"}
a = doc["agents"][0]
assert doc["version"] == "1.0", doc["version"]
assert set(a) == keys, set(a) ^ keys
assert set(a["todo"]) == {"past", "present", "future"}
assert a["space"] == ["a|b", "c"], a["space"]
assert a["todo"]["present"] == ["task: with colon"], a["todo"]
assert a["handoff"] == ["notes #1.md"], a["handoff"]
assert a["working_on"] == sys.argv[2], repr(a["working_on"])
print("ok")
`
	r := proctest.Run(t, py, proctest.Cmd{Args: []string{"-c", script, reg, hard}, Env: s.env})
	requireExit(t, 0, r)
	assert.Equal(t, "ok\n", r.Stdout)
}
