package compattest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Neither side is configured: 0.2 uses its default home,
// ~/Desktop/agent-registry, agentlock the project's .agent-registry. init
// says so; a lock command that finds the same file held in 0.2's home warns
// once; init --home joins the two homes, after which they exclude each
// other and read one registry; uninit leaves the shared home alone.
func TestOneHomeForAMixedFleet(t *testing.T) {
	needPython(t)
	s := newSandbox(t)
	legacy := filepath.Join(s.home, "Desktop", "agent-registry")
	requireExit(t, 0, s.py("register", "claude 1", "anthropic", "4.5", "0.2 agent"))
	requireExit(t, 0, s.py("acquire", "src/a.py", "claude 1"))
	requireExit(t, 0, s.py("acquire", "src/b.py", "claude 1"))

	r := s.al("init")
	requireExit(t, 0, r)
	assert.Contains(t, r.stdout, "note: agent-registry 0.2 keeps its registry and locks in "+legacy)
	assert.Contains(t, r.stdout, "agentlock init --home "+legacy)

	// Two homes: both "hold" src/a.py. agentlock says so, once per command.
	r = s.al("acquire", "--session", "go-1", "src/a.py", "src/b.py")
	requireExit(t, 0, r)
	assert.Equal(t, 1, strings.Count(r.stderr, "warning: agent-registry 0.2's home "+legacy), "%s", r)
	assert.Contains(t, r.stderr, filepath.Join(s.project, "src/a.py")+" (held by claude 1)")
	assert.Contains(t, r.stderr, filepath.Join(s.project, "src/b.py")+" (held by claude 1)")
	r = s.al("check", "src/a.py")
	assert.Equal(t, 1, strings.Count(r.stderr, "warning: agent-registry 0.2's home"), "%s", r)

	// The project's own home is in use: it cannot move yet.
	r = s.al("init", "--home", legacy)
	requireExit(t, 1, r)
	assert.Contains(t, r.stderr, "locks are held")
	requireExit(t, 0, s.al("release", "--session", "go-1", "src/a.py", "src/b.py"))

	r = s.al("init", "--home", "~/Desktop/agent-registry")
	requireExit(t, 0, r)
	assert.Contains(t, r.stdout, "home      "+legacy)
	assert.NotContains(t, r.stdout, "note: agent-registry 0.2")
	data, err := os.ReadFile(filepath.Join(s.project, ".agent-registry", "home"))
	require.NoError(t, err)
	assert.Equal(t, legacy+"\n", string(data))
	r = s.al("env")
	requireExit(t, 0, r)
	assert.Equal(t, "export AGENT_REGISTRY_PATH='"+legacy+"/registry.md'\nexport AGENT_REGISTRY_LOCK_DIR='"+legacy+"/locks'\n", r.stdout,
		"what the wrappers export: the names 0.2 reads")

	// One home: the locks exclude each other, without a warning.
	r = s.al("acquire", "--json", "src/a.py", "go-1")
	requireExit(t, 1, r)
	assert.Equal(t, "claude 1", oneJSON(t, r)["session_id"])
	assert.NotContains(t, r.stderr, "warning")
	requireExit(t, 0, s.al("acquire", "src/c.py", "go-1"))
	r = s.py("acquire", "src/c.py", "claude 1")
	requireExit(t, 1, r)
	assert.Equal(t, "go-1", oneJSON(t, r)["session_id"])

	// One registry.
	requireExit(t, 0, s.al("register", "go-1", "openai", "gpt", "agentlock agent"))
	assert.Contains(t, s.show(), "claude 1")
	s.dump().session(t, "go-1")

	// uninit keeps the record while the shared home holds the project's
	// locks, then removes only the record.
	r = s.al("uninit")
	requireExit(t, 0, r)
	assert.Contains(t, r.stdout, "kept      .agent-registry/home")
	requireExit(t, 0, s.al("finish", "claude 1"), "finish with 0.2's id releases its locks")
	requireExit(t, 0, s.al("finish", "go-1"))
	r = s.al("uninit")
	requireExit(t, 0, r)
	assert.Contains(t, r.stdout, "removed   .agent-registry/home (the shared home "+legacy+" is kept)")
	assert.NoDirExists(t, filepath.Join(s.project, ".agent-registry"))
	fm := s.dump()
	py, _ := fm.session(t, "claude 1")
	assert.Equal(t, "Finished", py["status"])
	assert.DirExists(t, filepath.Join(legacy, "locks"))
}

// The wrapper script exports the project's shared home under the names 0.2
// reads, so a 0.2 script that the wrapped agent runs — whose own default
// home is elsewhere — locks in the same folder as agentlock.
func TestWrapperGivesAgentsOfBothKindsOneHome(t *testing.T) {
	needPython(t)
	s := newSandbox(t)
	shared := filepath.Join(s.root, "shared-home")
	bin := filepath.Join(s.root, "bin")
	require.NoError(t, os.MkdirAll(bin, 0o755))
	require.NoError(t, os.Symlink(harness.Bin, filepath.Join(bin, "agentlock")))
	// The fake agent runs a 0.2 script and an agentlock command, as a
	// model following both tools' instructions would.
	agent := "#!/bin/sh\n" +
		"set -e\n" +
		strings.Join(append([]string{python}, pyArgs("acquire", "src/by-0.2.py", "py-agent")...), " ") + " >/dev/null\n" +
		"agentlock acquire src/by-agentlock.py >/dev/null\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, "codex"), []byte(agent), 0o755))
	s.env = append(s.env, "PATH="+bin+":/usr/bin:/bin")

	requireExit(t, 0, s.al("init", "--agent", "codex", "--home", shared))
	requireExit(t, 0, s.run("wrapper", filepath.Join(s.project, "scripts", "agentlock-codex")))

	// Both locks are in the shared home: agentlock sees 0.2's, and 0.2,
	// pointed at it, sees that the wrapper's finish released agentlock's.
	r := s.al("check", "--json", "src/by-0.2.py")
	requireExit(t, 1, r)
	assert.Equal(t, "py-agent", oneJSON(t, r)["owner"])
	assert.NoDirExists(t, filepath.Join(s.home, "Desktop", "agent-registry"), "0.2's default home was not used")
	s.env = append(s.env, "AGENT_REGISTRY_LOCK_DIR="+filepath.Join(shared, "locks"))
	r = s.py("check", "src/by-0.2.py")
	assert.Equal(t, "py-agent", oneJSON(t, r)["owner"])
	// The session indexes (*.held) beside them are agentlock's own.
	entries, err := filepath.Glob(filepath.Join(shared, "locks", "*.lock"))
	require.NoError(t, err)
	assert.Len(t, entries, 2, "the lock files of both")
}

// In a home shared with 0.2 the protocol block is rewritten by whichever
// tool writes last. agentlock's then gives each step in both forms (issue
// 37): its own command, and 0.2's python <skill>/scripts/... with the
// arguments 0.2's scripts take — which the fixture, following them, runs.
func TestProtocolBlockGivesBothFormsInASharedHome(t *testing.T) {
	needPython(t)
	s := newSandbox(t)
	registry, _ := s.sharedByEnv()
	block := func() string {
		data, err := os.ReadFile(registry)
		require.NoError(t, err)
		_, rest, ok := strings.Cut(string(data), "<!-- PROTOCOL:START")
		require.True(t, ok, "a protocol block: %s", data)
		inner, _, ok := strings.Cut(rest, "<!-- PROTOCOL:END -->")
		require.True(t, ok)
		return inner
	}
	requireExit(t, 0, s.py("register", "claude 1", "anthropic", "4.5", "0.2 agent"))
	assert.Contains(t, block(), "PROTOCOLLO OBBLIGATORIO", "0.2 wrote last: its block")

	requireExit(t, 0, s.al("register", "go-1", "openai", "gpt", "agentlock agent"))
	b := block()
	assert.Contains(t, b, "`agentlock acquire <path>`")
	assert.Contains(t, b, "agent-registry 0.2: `python <skill>/scripts/lock_manager.py acquire <path> <session_id>`")
	assert.Contains(t, b, "agent-registry 0.2: `python <skill>/scripts/registry_manager.py finish <session_id>`")

	// The 0.2 forms, with the fixture in place of <skill>'s scripts: the
	// arguments are the ones 0.2 takes.
	requireExit(t, 0, s.py("acquire", "src/x.py", "claude 1"))
	requireExit(t, 0, s.py("heartbeat", "src/x.py", "claude 1"))
	requireExit(t, 0, s.py("finish", "claude 1"))
	assert.Contains(t, block(), "PROTOCOLLO OBBLIGATORIO", "0.2 wrote last again")
	py, _ := s.dump().session(t, "claude 1")
	assert.Equal(t, "Finished", py["status"])
	requireExit(t, 0, s.al("finish", "go-1"))
	assert.Contains(t, block(), "lock_manager.py acquire <path> <session_id>")
}
