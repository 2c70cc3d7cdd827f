package main_test

// The command-line behaviour, as txtar scripts: testdata/script/<command>/
// holds one script per behaviour, run by TestScripts/<command>. Each script
// runs agentlock as real processes (exec agentlock …) in a hermetic
// environment, with the custom commands of scriptcmds_test.go; see
// testdata/script/README.md.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
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
// AGENTLOCK_* or harness session variables): a HOME of its own inside $WORK,
// the C locale, and the race detector's setting for race-enabled children.
func scriptEnv(env *testscript.Env) error {
	home := filepath.Join(env.WorkDir, "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return err
	}
	env.Setenv("HOME", home)
	env.Setenv("LANG", "C")
	env.Setenv("GORACE", proctest.GORACE())
	if dir := proctest.CoverDir(); dir != "" {
		env.Setenv("GOCOVERDIR", dir) // where -cover children write (buildChild)
	}
	return nil
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
