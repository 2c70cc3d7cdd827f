package main_test

// The command-line behaviour, as txtar scripts: testdata/script/<command>/
// holds one script per behaviour, run by TestScripts/<command>. Each script
// runs agentlock as real processes (exec agentlock …) in a hermetic
// environment, with the custom commands of scriptcmds_test.go; see
// testdata/script/README.md.

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// scriptDir holds one folder of scripts per command or concept.
const scriptDir = "testdata/script"

// scriptBudget bounds one folder of scripts: a command still running then
// is stopped, and its script fails naming it.
const scriptBudget = 3 * time.Minute

// TestScripts runs every folder of scripts but docs/, which TestCLIReference
// runs after regenerating docs/cli.md on request, and chaos/, which
// TestChaosScripts runs with the chaos suite.
func TestScripts(t *testing.T) {
	entries, err := os.ReadDir(scriptDir)
	require.NoError(t, err)
	for _, e := range entries {
		if !e.IsDir() || e.Name() == "docs" || e.Name() == "chaos" {
			continue
		}
		t.Run(e.Name(), func(t *testing.T) {
			t.Parallel()
			runScripts(t, e.Name(), nil)
		})
	}
}

// runScripts runs the scripts of one folder, each in its own $WORK;
// setup, when not nil, completes the environment.
func runScripts(t *testing.T, dir string, setup func(*testscript.Env) error) {
	deadline := time.Now().Add(scriptBudget)
	if d, ok := t.Deadline(); ok && d.Before(deadline) {
		deadline = d
	}
	testscript.Run(t, testscript.Params{
		Dir:                 filepath.Join(scriptDir, dir),
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		Deadline:            deadline,
		Cmds:                scriptCmds,
		// [etcd]: the test binary is the etcd build (-tags etcd).
		// [need:PROGRAM]: PROGRAM is on PATH; under CI=true a missing one
		// fails the script instead of skipping it (proctest.NeedCondition).
		Condition: func(cond string) (bool, error) {
			if cond == "etcd" {
				return etcdTestBuild, nil
			}
			if program, ok := strings.CutPrefix(cond, "need:"); ok {
				return proctest.NeedCondition(program)
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Setup: func(env *testscript.Env) error {
			if err := scriptEnv(env); err != nil {
				return err
			}
			if setup != nil {
				return setup(env)
			}
			return nil
		},
	})
}

// scriptEnv completes the environment testscript builds, which is all a
// script's processes get (nothing of the developer's AGENT_REGISTRY_*,
// AGENTLOCK_* or harness session variables; PATH is the test process's,
// isolated by TestMain): a HOME of its own inside $WORK, the C locale, no
// system git configuration, and the race detector's setting for
// race-enabled children.
func scriptEnv(env *testscript.Env) error {
	home := filepath.Join(env.WorkDir, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return err
	}
	env.Setenv("HOME", home)
	env.Setenv("LANG", "C")
	env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	env.Setenv("GORACE", proctest.GORACE())
	if dir := proctest.CoverDir(); dir != "" {
		env.Setenv("GOCOVERDIR", dir) // where -cover children write (buildChild)
	}
	return nil
}

// The tests, the scripts and every child see only the programs TestMain
// installed, the tools linked for them and the system's programs
// (proctest.Isolate): another agentlock or agentlock-etcd on the
// developer's PATH (docs/teams.md puts agentlock-etcd in $(go env
// GOPATH)/bin), or an agent CLI that doctor would ask, reaches none of
// them.
func TestThePathHoldsNothingOfTheDevelopers(t *testing.T) {
	system := filepath.SplitList(proctest.SystemPath)
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if slices.Contains(system, dir) {
			continue
		}
		rel, err := filepath.Rel(os.TempDir(), dir)
		assert.True(t, err == nil && rel != ".." && !strings.HasPrefix(rel, "../"),
			"%s on the tests' PATH is a folder of the developer's, not one TestMain made", dir)
	}
	if os.Getenv("AGENTLOCK_TEST_CHILD") == "test-binary" {
		return // agentlock is this test binary, in testscript's folder
	}
	bin, err := exec.LookPath("agentlock")
	require.NoError(t, err)
	assert.Equal(t, "agentlock-test-bin-", strings.TrimRight(filepath.Base(filepath.Dir(bin)), "0123456789"),
		"agentlock is the build of this tree (buildChild): %s", bin)
}

// A script skips for a missing program through [!need:PROGRAM], never
// testscript's [!exec:PROGRAM], which would skip in CI too, where .ci/run
// installs every program (proctest.NeedCondition).
func TestScriptsNeedProgramsThroughNeed(t *testing.T) {
	err := filepath.WalkDir(scriptDir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || filepath.Ext(path) != ".txtar" {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for i, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, "-- ") {
				break // the files of the archive
			}
			if strings.Contains(line, "[!exec:") {
				t.Errorf("%s:%d: %q: write [!need:...], which fails under CI=true instead of skipping", path, i+1, line)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
