package main_test

// Which agentlock the hooks run: init and doctor compare the agentlock on
// PATH with the running one by their Go build information. Two real builds
// of this command, the second stamped by the linker (-ldflags -X, as a
// release stamps its version), are another version of each other; a copy
// of a build is the same version.

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/proctest"
)

// goBuild builds this command into dir/agentlock with extra build flags,
// with the developer's Go toolchain and environment: a build step, not a
// process under test.
func goBuild(t *testing.T, dir string, flags ...string) string {
	t.Helper()
	goBin := proctest.Need(t, "go", "the two-builds version check did not run")
	out := filepath.Join(dir, "agentlock")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	args := append(append([]string{"build", "-o", out}, flags...), ".")
	cmd := exec.CommandContext(ctx, goBin, args...)
	cmd.Stderr = os.Stderr
	require.NoError(t, cmd.Run(), "go build %v", args)
	return out
}

func TestInitAndDoctorTellAnotherBuildOnPath(t *testing.T) {
	root := realTempDir(t)
	mine := goBuild(t, filepath.Join(root, "mine"))
	other := goBuild(t, filepath.Join(root, "other"), "-ldflags=-X main.releaseStamp=v9.9.9")
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
