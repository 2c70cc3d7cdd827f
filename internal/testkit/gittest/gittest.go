// Package gittest runs the git binary for tests: with no system or user
// configuration, and a fixed author.
package gittest

import (
	"os"
	"os/exec"
	"testing"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// Env is the environment git runs in: the test's, without git's own
// variables (a GIT_DIR of the developer's) and without the system and
// user configuration, with a fixed author and committer
// (proctest.GitEnv).
func Env() []string {
	return append(proctest.WithoutGit(os.Environ()), proctest.GitEnv()...)
}

// Need skips the test when git is not on PATH, and fails it in CI
// (CI=true), where .ci/run provides git.
func Need(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("git is needed: %v", err)
		}
		t.Skipf("git is needed: %v", err)
	}
}

// Run runs git in dir with env (Env when nil) and fails the test when it
// fails; it returns the combined output.
func Run(t testing.TB, env []string, dir string, args ...string) string {
	t.Helper()
	if env == nil {
		env = Env()
	}
	cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v in %s: %v: %s", args, dir, err, out)
	}
	return string(out)
}

// Commit makes a repository in dir on branch with one commit of what dir
// holds.
func Commit(t testing.TB, dir, branch string) {
	t.Helper()
	Run(t, nil, dir, "init", "-q", "-b", branch)
	Run(t, nil, dir, "add", ".")
	Run(t, nil, dir, "commit", "-q", "-m", "init")
}
