package proctest

import (
	"context"
	"debug/buildinfo"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// program writes an executable shell script named name into dir.
func program(t *testing.T, dir, name string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(path, []byte("#!/bin/sh\necho "+name+"\n"), 0o755))
	return path
}

// A developer's PATH may hold another agentlock, an agentlock-etcd, an
// agent CLI: once isolated, neither the test nor a child finds them; the
// programs under test come first, then the tools asked for, wherever the
// developer keeps them, then the system's programs.
func TestIsolatePathKeepsOnlyTheTestsProgramsAndTools(t *testing.T) {
	developer := t.TempDir()
	for _, name := range []string{"agentlock", "agentlock-etcd", "codex", "mytool"} {
		program(t, developer, name)
	}
	t.Setenv("PATH", developer+string(os.PathListSeparator)+os.Getenv("PATH"))
	under := t.TempDir()
	mine := program(t, under, "agentlock")
	tools := filepath.Join(t.TempDir(), "tools")

	path, err := IsolatePath(tools, []string{"mytool", "sh", "no-such-tool-agentlock-test"}, under)
	require.NoError(t, err)
	assert.Equal(t, under+":"+tools+":"+SystemPath, path)
	assert.Equal(t, path, os.Getenv("PATH"))

	found, err := exec.LookPath("agentlock")
	require.NoError(t, err)
	assert.Equal(t, mine, found, "the program under test, not the developer's")
	for _, name := range []string{"agentlock-etcd", "codex"} {
		_, err := exec.LookPath(name)
		assert.Error(t, err, "%s of the developer's PATH is still found", name)
	}
	found, err = exec.LookPath("mytool")
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(tools, "mytool"), found)
	target, err := os.Readlink(found)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(developer, "mytool"), target, "a tool is the developer's own")
	entries, err := os.ReadDir(tools)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "sh is found in the system's folders; a missing tool is no link")

	r := Run(t, "sh", Cmd{Args: []string{"-c", "command -v agentlock-etcd codex; echo $PATH"}, Env: env(t)})
	assert.Equal(t, path+"\n", r.Stdout, "a child gets the isolated PATH: %s", r)
}

// Git variables of the developer's (a GIT_DIR set by a git hook that runs
// the tests) are gone, and git reads neither the developer's configuration
// nor the system's.
func TestIsolateGitLeavesNothingOfTheDevelopersGit(t *testing.T) {
	git := Need(t, "git", "the git isolation check did not run")
	config := filepath.Join(t.TempDir(), "gitconfig")
	require.NoError(t, os.WriteFile(config, []byte("[init]\n\tdefaultBranch = developers\n"), 0o644))
	t.Setenv("GIT_DIR", t.TempDir())
	t.Setenv("GIT_CONFIG_GLOBAL", config)
	for _, kv := range GitEnv() {
		name, _, _ := strings.Cut(kv, "=")
		t.Setenv(name, os.Getenv(name)) // restored after the test
	}
	out, err := exec.Command(git, "config", "--get", "init.defaultBranch").Output()
	require.NoError(t, err)
	require.Equal(t, "developers\n", string(out), "the developer's configuration is read before")

	require.NoError(t, IsolateGit())
	_, set := os.LookupEnv("GIT_DIR")
	assert.False(t, set)
	out, err = exec.Command(git, "config", "--get", "init.defaultBranch").Output()
	assert.Error(t, err, "no configuration is read: %s", out)
	assert.Equal(t, "/dev/null", os.Getenv("GIT_CONFIG_GLOBAL"))
	assert.Equal(t, "1", os.Getenv("GIT_CONFIG_NOSYSTEM"))
}

// What GoBuild builds depends on nothing of the developer's go settings:
// GOFLAGS in the environment or in the go env file (tags, VCS stamping), a
// toolchain named there, cgo turned on.
func TestGoBuildIgnoresTheDevelopersGoSettings(t *testing.T) {
	Need(t, "go", "the build check did not run")
	envFile := filepath.Join(t.TempDir(), "env")
	require.NoError(t, os.WriteFile(envFile, []byte("GOFLAGS=-tags=fromenvfile -buildvcs=true\nGOTOOLCHAIN=go1.99.0\n"), 0o644))
	t.Setenv("GOENV", envFile)
	t.Setenv("GOFLAGS", "-tags=fromvariable -buildvcs=true")
	t.Setenv("GOTOOLCHAIN", "go1.99.0")
	t.Setenv("CGO_ENABLED", "1")

	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	out := filepath.Join(t.TempDir(), "child")
	require.NoError(t, GoBuild(ctx, out, "github.com/agentlock/agentlock/internal/testkit/compattest/child"))
	info, err := buildinfo.ReadFile(out)
	require.NoError(t, err)
	settings := map[string]string{}
	for _, s := range info.Settings {
		settings[s.Key] = s.Value
	}
	assert.Equal(t, "0", settings["CGO_ENABLED"])
	assert.NotContains(t, settings, "-tags")
	for key := range settings {
		assert.False(t, strings.HasPrefix(key, "vcs"), "the checkout is stamped: %s=%s", key, settings[key])
	}
	assert.Equal(t, strings.TrimPrefix(info.GoVersion, "go"), strings.TrimPrefix(goVersion(t), "go"), "the running toolchain built it")

	env, err := GoEnv(ctx, "go")
	require.NoError(t, err)
	assert.True(t, slices.Contains(env, "GOENV=off"))
	assert.True(t, slices.Contains(env, "GOTOOLCHAIN=local"))
}

// goVersion is the version of the go command on PATH, as the running
// toolchain reports it.
func goVersion(t *testing.T) string {
	t.Helper()
	cmd := exec.Command("go", "env", "GOVERSION")
	cmd.Env = append(os.Environ(), "GOTOOLCHAIN=local", "GOENV=off")
	out, err := cmd.Output()
	require.NoError(t, err)
	return strings.TrimSpace(string(out))
}
