package main_test

// Which agentlock the hooks run: init and doctor compare the agentlock on
// PATH with the running one by their Go build information. Two real builds
// of this command, the second stamped by the linker (-ldflags -X, as
// .goreleaser.yaml stamps a release), are another version of each other; a copy
// of a build is the same version.

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// goBuild builds this command into dir/agentlock, and agentlock-mcp beside
// it as every install puts it (doctor starts agentlock mcp), with extra
// build flags, the same on every machine (proctest.GoBuildAll: no VCS
// stamp, nothing of the developer's go settings): a build step, not a
// process under test. It returns dir/agentlock.
func goBuild(t *testing.T, dir string, flags ...string) string {
	t.Helper()
	proctest.Need(t, "go", "the two-builds version check did not run")
	require.NoError(t, os.MkdirAll(dir, 0o755))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	require.NoError(t, proctest.GoBuildAll(ctx, dir, proctest.Programs(), flags...))
	return filepath.Join(dir, "agentlock")
}

func TestInitAndDoctorTellAnotherBuildOnPath(t *testing.T) {
	root := realTempDir(t)
	mine := goBuild(t, filepath.Join(root, "mine"))
	other := goBuild(t, filepath.Join(root, "other"), "-ldflags=-X main.version=v9.9.9")
	copyDir := filepath.Join(root, "copy")
	require.NoError(t, os.MkdirAll(copyDir, 0o755))
	data, err := os.ReadFile(mine)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(copyDir, "agentlock"), data, 0o755))

	p := newProject(t)
	run := func(pathDir string, args ...string) proctest.Result {
		env := append(append([]string{}, p.env...), "PATH="+pathDir)
		return proctest.Run(t, mine, proctest.Cmd{Args: args, Env: env, Dir: p.dir})
	}

	// Another build on PATH: init warns naming both, doctor warns.
	r := run(filepath.Dir(other), "init", "--agent", "claude")
	requireExit(t, 0, r)
	assert.Contains(t, r.Stderr, "agentlock: warning: the agentlock on PATH ("+other)
	assert.Contains(t, r.Stderr, "v9.9.9", "the other build's stamp is shown")
	assert.Contains(t, r.Stderr, "is not this one ("+mine)
	r = run(filepath.Dir(other), "init", "--agent", "claude", "--check")
	requireExit(t, 0, r)
	assert.Contains(t, r.Stdout, "warning: the agentlock on PATH (")
	r = run(filepath.Dir(other), "doctor", "--json")
	requireExit(t, 0, r)
	assert.Regexp(t, `"name":"agentlock-on-path","status":"warn"`, r.Stdout)

	// A copy of the same build: the same version, nothing to say.
	r = run(copyDir, "init", "--agent", "claude")
	requireExit(t, 0, r)
	assert.NotContains(t, r.Stderr, "warning")
	r = run(copyDir, "doctor", "--json")
	requireExit(t, 0, r)
	assert.Regexp(t, `"name":"agentlock-on-path","status":"ok","detail":"agentlock on PATH is `+regexp.QuoteMeta(filepath.Join(copyDir, "agentlock")), r.Stdout)
}

// The release build stamps version, commit and date with the linker, as
// .goreleaser.yaml's ldflags do; version and version --json report them.
func TestVersionIsStamped(t *testing.T) {
	dir := realTempDir(t)
	bin := goBuild(t, dir, "-ldflags=-X main.version=v1.2.3 -X main.commit=0123456789abcdef0123456789abcdef01234567 -X main.date=2026-12-01T22:00:00Z")
	env := []string{"HOME=" + dir, "PATH=" + dir}
	r := proctest.Run(t, bin, proctest.Cmd{Args: []string{"version"}, Env: env, Dir: dir})
	requireExit(t, 0, r)
	assert.Equal(t, "agentlock v1.2.3 (commit 0123456789ab, 2026-12-01T22:00:00Z)\n", r.Stdout)
	r = proctest.Run(t, bin, proctest.Cmd{Args: []string{"version", "--json"}, Env: env, Dir: dir})
	requireExit(t, 0, r)
	assert.JSONEq(t, `{"kind":"version","version":"v1.2.3","commit":"0123456789abcdef0123456789abcdef01234567","date":"2026-12-01T22:00:00Z"}`, r.Stdout)
	require.NoError(t, validateRecords(r.Stdout, []string{"version"}))
	r = proctest.Run(t, bin, proctest.Cmd{Args: []string{"--version"}, Env: env, Dir: dir})
	requireExit(t, 0, r)
	assert.Equal(t, "agentlock v1.2.3\n", r.Stdout)
}

// An upgrade keeps the gate: init records which build wrote each agent's
// files; the next version's init --check and doctor say so and whether it
// matters; the hooks, which run agentlock from PATH, run the new binary
// once it replaced the old one there; uninit drops the record.
func TestUpgradeKeepsTheGateAndSaysWhoWroteTheHooks(t *testing.T) {
	root := realTempDir(t)
	v1 := goBuild(t, filepath.Join(root, "v1"), "-ldflags=-X main.version=v1.0.0")
	v2 := goBuild(t, filepath.Join(root, "v2"), "-ldflags=-X main.version=v2.0.0")
	// The folder on PATH, as a package manager fills it: v1, then v2 in
	// its place.
	bin := filepath.Join(root, "bin")
	require.NoError(t, os.MkdirAll(bin, 0o755))
	install := func(build string) {
		for _, name := range []string{"agentlock", "agentlock-mcp"} {
			data, err := os.ReadFile(filepath.Join(filepath.Dir(build), name))
			require.NoError(t, err)
			tmp := filepath.Join(bin, "."+name+".tmp")
			require.NoError(t, os.WriteFile(tmp, data, 0o755))
			require.NoError(t, os.Rename(tmp, filepath.Join(bin, name)))
		}
	}
	p := newProject(t)
	path := "PATH=" + bin + ":/usr/bin:/bin"
	run := func(args ...string) proctest.Result {
		return proctest.Run(t, filepath.Join(bin, "agentlock"), proctest.Cmd{Args: args, Env: append(append([]string{}, p.env...), path), Dir: p.dir})
	}
	record := filepath.Join(p.dir, ".agent-registry", "written-by.json")

	install(v1)
	requireExit(t, 0, run("init", "--agent", "claude"))
	data, err := os.ReadFile(record)
	require.NoError(t, err)
	assert.JSONEq(t, `{"agents":{"claude":{"version":"v1.0.0"}}}`, string(data))
	r := run("init", "--agent", "claude", "--check")
	requireExit(t, 0, r)
	assert.NotContains(t, r.Stdout, "written by", "the same build wrote them: nothing to say")

	install(v2)
	r = run("init", "--agent", "claude", "--check")
	requireExit(t, 0, r)
	assert.Contains(t, r.Stdout, "note: Claude Code's files were written by agentlock v1.0.0; this is agentlock v2.0.0, which writes the same files: nothing to change")
	r = run("doctor", "--json")
	requireExit(t, 0, r)
	assert.Regexp(t, `"name":"integration-claude","status":"ok","detail":"[^"]*written by agentlock v1.0.0; this is agentlock v2.0.0, which writes the same files`, r.Stdout)

	// The hook the v1 init wrote runs v2, the agentlock on PATH now.
	command := p.hookCommand(".claude/settings.json", "PreToolUse")
	hook := func(session string) proctest.Result {
		return proctest.Run(t, "/bin/sh", proctest.Cmd{Args: []string{"-c", command}, Env: append(append([]string{}, p.env...), path), Dir: p.dir,
			Stdin: claudeEdit(session, p.dir, filepath.Join(p.dir, "a.go"))})
	}
	require.Empty(t, deniedReason(t, "claude", hook("s1")))
	requireDenied(t, "claude", hook("s2"), "claude-s1")
	r = run("status", "--json")
	requireExit(t, 0, r)
	assert.Contains(t, r.Stdout, `"session_id":"claude-s1"`)

	// A file v2 writes differently is named; init brings it up to date
	// and records v2.
	p.write(".claude/rules/agentlock.md", p.read(".claude/rules/agentlock.md")+"edited\n")
	r = run("doctor", "--json")
	assert.Regexp(t, `this is agentlock v2.0.0, which writes .claude/rules/agentlock.md differently: run agentlock init --agent claude`, r.Stdout)
	requireExit(t, 0, run("init", "--agent", "claude"))
	data, err = os.ReadFile(record)
	require.NoError(t, err)
	assert.JSONEq(t, `{"agents":{"claude":{"version":"v2.0.0"}}}`, string(data))

	// A record that does not read only informs: said so, and replaced.
	require.NoError(t, os.WriteFile(record, []byte("{not json"), 0o644))
	r = run("init", "--agent", "claude", "--check")
	requireExit(t, 0, r)
	assert.Contains(t, r.Stdout, "written-by.json: invalid character")
	r = run("doctor", "--json")
	assert.Regexp(t, `"name":"integration-claude","status":"ok","detail":"[^"]*written-by.json: invalid character`, r.Stdout)
	requireExit(t, 0, run("init", "--agent", "claude"))
	data, err = os.ReadFile(record)
	require.NoError(t, err)
	assert.JSONEq(t, `{"agents":{"claude":{"version":"v2.0.0"}}}`, string(data))

	requireExit(t, 0, run("release", "--all", "--session", "claude-s1"))
	requireExit(t, 0, run("uninit"))
	assert.NoFileExists(t, record)
	assert.NoDirExists(t, filepath.Join(p.dir, ".agent-registry"))
}
