package main_test

// Scenarios of the registry (registry.md) that a script cannot say:
// writers racing behind a barrier, a reader polling while they write, and
// Python's YAML reading what agentlock wrote. The others are the scripts
// in testdata/script/registry.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
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
		Handoff    string   `yaml:"handoff"`
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

// Python's YAML reads the registry, with every character class the
// frontmatter writer escapes or passes raw (control characters, which a
// script cannot pass as arguments, among them).
func TestPythonYAMLReadsTheRegistry(t *testing.T) {
	py := python3(t)
	s, reg := registrySandbox(t)
	if proctest.Run(t, py, proctest.Cmd{Args: []string{"-c", "import yaml"}, Env: s.env}).Code != 0 {
		proctest.Unavailable(t, "PyYAML is not installed (Debian: python3-yaml); the agent-registry reader check did not run")
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
assert a["handoff"] == "notes #1.md", a["handoff"]
assert a["working_on"] == sys.argv[2], repr(a["working_on"])
print("ok")
`
	r := proctest.Run(t, py, proctest.Cmd{Args: []string{"-c", script, reg, hard}, Env: s.env})
	requireExit(t, 0, r)
	assert.Equal(t, "ok\n", r.Stdout)
}

// The registry is written only when it changes: re-acquiring a path the
// session already lists, or renewing it, leaves registry.md as it was (the
// same file: a write replaces it by rename), while a new path is written.
func TestRegistryWrittenOnlyWhenItChanges(t *testing.T) {
	s, reg := registrySandbox(t)
	require.NoError(t, os.WriteFile(s.path("src/a.go"), nil, 0o644))
	require.NoError(t, os.WriteFile(s.path("src/b.go"), nil, 0o644))
	for _, args := range [][]string{
		{"register", "s1", "anthropic", "m", "work"},
		{"acquire", "src/a.go", "--session", "s1"},
	} {
		r := s.run(args...)
		require.Equal(t, 0, r.Code, "%s", r)
	}
	inode := func() uint64 {
		info, err := os.Stat(reg)
		require.NoError(t, err)
		return info.Sys().(*syscall.Stat_t).Ino
	}
	before := inode()
	for _, args := range [][]string{
		{"acquire", "src/a.go", "--session", "s1"},
		{"heartbeat", "src/a.go", "--session", "s1"},
		{"acquire", "src/a.go", "--session", "s1"},
	} {
		r := s.run(args...)
		require.Equal(t, 0, r.Code, "%s", r)
		assert.Equal(t, before, inode(), "%v rewrote an unchanged registry", args)
	}
	r := s.run("acquire", "src/b.go", "--session", "s1")
	require.Equal(t, 0, r.Code, "%s", r)
	assert.NotEqual(t, before, inode(), "a new path in do_not_touch is written")
	fm, _ := readRegistry(t, reg)
	require.Len(t, fm.Agents, 1)
	assert.Equal(t, []string{s.path("src/a.go"), s.path("src/b.go")}, fm.Agents[0].DoNotTouch)
}

// A registered session re-acquiring a path its do_not_touch lists does not
// even take the registry's lock: the registry it reads already says so.
// Here another process holds that lock; the re-acquisition goes through
// without waiting or warning, while a new path, which must be written,
// waits for the lock and says the registry could not follow.
func TestRegistryNotLockedWhenNothingChanges(t *testing.T) {
	s, reg := registrySandbox(t)
	s.env = append(s.env, "AGENTLOCK_LOCK_WAIT=300ms")
	for _, args := range [][]string{
		{"register", "s1", "anthropic", "m", "work"},
		{"acquire", "src/a.go", "--session", "s1"},
	} {
		requireExit(t, 0, s.run(args...))
	}
	f, err := os.OpenFile(reg+".lock", os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB))

	r := s.run("acquire", "src/a.go", "--session", "s1")
	requireExit(t, 0, r)
	assert.Empty(t, r.Stderr, "nothing to write: the registry's lock is not needed")
	r = s.run("acquire", "src/b.go", "--session", "s1")
	requireExit(t, 0, r)
	assert.Contains(t, r.Stderr, "registry was not updated")
}

// A session the registry does not have takes no registry lock either, even
// when its id appears in the registry's text (here in a path another
// session holds): the registry it reads says the session is not there.
func TestRegistryNotLockedForAnUnregisteredSession(t *testing.T) {
	s, reg := registrySandbox(t)
	s.env = append(s.env, "AGENTLOCK_LOCK_WAIT=300ms")
	requireExit(t, 0, s.run("register", "s1", "anthropic", "m", "work"))
	requireExit(t, 0, s.run("acquire", "src/by-tester.go", "--session", "s1"))
	f, err := os.OpenFile(reg+".lock", os.O_RDWR, 0)
	require.NoError(t, err)
	defer f.Close()
	require.NoError(t, syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB))

	for _, cmd := range []string{"acquire", "release"} {
		r := s.run(cmd, "src/other.go", "--session", "tester")
		requireExit(t, 0, r)
		assert.Empty(t, r.Stderr, "%s: not registered: the registry's lock is not needed", cmd)
	}
}
