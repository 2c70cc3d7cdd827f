package main_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// uninit removes a project's home only when no lock is held, and decides
// that while no lock can be taken there: a lock that an agent acquired
// while uninit ran is never deleted under it. Agents and uninit are separate
// processes started together behind one barrier.
func TestUninitNeverDeletesALockTakenMeanwhile(t *testing.T) {
	rounds, agents := 20, 8
	if testing.Short() {
		rounds = 5
	}
	h := harness(t)
	removed, kept := 0, 0
	for round := range rounds {
		root := realTempDir(t)
		project := filepath.Join(root, "project")
		require.NoError(t, os.MkdirAll(filepath.Join(project, ".git"), 0o755))
		env := hermeticEnv(t, root)
		init := h.Run(t, proctest.Cmd{Args: []string{"init"}, Env: env, Dir: project})
		require.Equal(t, 0, init.Code, "%s", init)

		// Agents first run a few read-only commands, more in later rounds,
		// so that over the rounds the acquires land before, during and
		// after the time uninit takes to decide.
		var cmds []proctest.Cmd
		for i := range agents {
			delay := round%5 + i%3
			script := strings.Repeat(`"$0" status >/dev/null; `, delay) + fmt.Sprintf(`exec "$0" acquire f%d.go s-%d`, i, i)
			cmds = append(cmds, proctest.Cmd{Program: "/bin/sh", Args: []string{"-c", script, h.Bin}, Env: env, Dir: project})
		}
		cmds = append(cmds, proctest.Cmd{Program: "/bin/sh", Args: []string{"-c", `exec "$0" uninit`, h.Bin}, Env: env, Dir: project})
		results := h.Race(t, cmds)

		uninit := results[agents]
		require.Equal(t, 0, uninit.Code, "round %d: %s", round, uninit)
		switch {
		case strings.Contains(uninit.Stdout, "removed   .agent-registry/"):
			removed++
		case strings.Contains(uninit.Stdout, "kept      .agent-registry/"):
			kept++
		default:
			t.Fatalf("round %d: uninit neither removed nor kept the home: %s", round, uninit)
		}
		for i, r := range results[:agents] {
			require.Equal(t, 0, r.Code, "round %d: %s", round, r)
			sum := sha256.Sum256([]byte(filepath.Join(project, fmt.Sprintf("f%d.go", i))))
			file := filepath.Join(project, ".agent-registry", "locks", hex.EncodeToString(sum[:8])+".lock")
			data, err := os.ReadFile(file)
			require.NoError(t, err, "round %d: the lock that s-%d acquired was deleted (uninit: %s)", round, i, uninit.Stdout)
			require.True(t, strings.HasPrefix(string(data), fmt.Sprintf("s-%d|", i)), "round %d: lock of f%d.go holds %q", round, i, data)
		}
	}
	t.Logf("%d rounds: home removed in %d, kept in %d", rounds, removed, kept)
}
