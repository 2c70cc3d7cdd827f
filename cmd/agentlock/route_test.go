package main_test

// A path's project decides its store, wherever the command runs (issue 23,
// the silent fallback): a command or hook started outside a checkout whose
// store is etcd, on an absolute path inside it, must use that store, and a
// store that cannot be used is an error — never lock files nobody else
// reads.

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// closedPort returns a port on 127.0.0.1 that nothing listens on.
func closedPort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := l.Addr().(*net.TCPAddr).Port
	require.NoError(t, l.Close())
	return port
}

// storeCheckout makes a git checkout whose store file names url, and a
// folder outside it to run commands from.
func storeCheckout(t *testing.T, url string) (root, checkout, outside string) {
	t.Helper()
	root = realTempDir(t)
	checkout, outside = filepath.Join(root, "checkout"), filepath.Join(root, "elsewhere")
	for _, d := range []string{filepath.Join(checkout, ".git"), filepath.Join(checkout, "src"), filepath.Join(checkout, ".agent-registry"), outside} {
		require.NoError(t, os.MkdirAll(d, 0o755))
	}
	cfg := "[remote \"origin\"]\n\turl = https://example.com/org/route.git\n"
	require.NoError(t, os.WriteFile(filepath.Join(checkout, ".git", "config"), []byte(cfg), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(checkout, ".agent-registry", "store"), []byte("store="+url+"\n"), 0o600))
	return root, checkout, outside
}

func TestUnusableStoreOfAPathIsAnErrorFromOutsideItsCheckout(t *testing.T) {
	url := fmt.Sprintf("etcd://127.0.0.1:%d/route", closedPort(t))
	root, checkout, outside := storeCheckout(t, url+"\ndial-timeout=300ms")
	env := hermeticEnv(t, root)
	file := filepath.Join(checkout, "src", "f.py")
	run := func(args ...string) proctest.Result {
		return harness(t).Run(t, proctest.Cmd{Args: args, Env: env, Dir: outside})
	}
	for _, args := range [][]string{
		{"acquire", file, "--session", "bob"},
		{"check", file, "--session", "bob"},
		{"release", file, "--session", "bob"},
		{"heartbeat", file, "--session", "bob"},
	} {
		r := run(args...)
		requireExit(t, 3, r)
		require.Contains(t, r.Stderr, "127.0.0.1", "the error names the store: %s", r)
	}
	_, err := os.Stat(filepath.Join(checkout, ".agent-registry", "locks"))
	require.True(t, os.IsNotExist(err), "no lock file was written in the checkout")

	// The default build's pre-edit hook, run from outside, denies.
	payload := fmt.Sprintf(`{"session_id":"hooked","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Write","tool_input":{"file_path":%q,"content":"x"}}`,
		outside, file)
	c := proctest.Cmd{Args: []string{"hook", "claude", "pre-edit"}, Env: env, Dir: outside, Stdin: payload}
	r := harness(t).Run(t, c)
	requireExit(t, 0, r)
	require.Contains(t, r.Stdout, `"deny"`, "%s", r)
}
