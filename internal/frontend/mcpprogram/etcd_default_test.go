//go:build !etcd

package mcpprogram

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/workspace"
)

// etcdProject is a hermetic working folder whose project keeps its locks
// in an etcd store (one that is never reached).
func etcdProject(t *testing.T) string {
	t.Helper()
	dir := hermetic(t)
	for _, d := range []string{".git", workspace.HomeDirName} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, workspace.HomeDirName, workspace.StoreFile),
		[]byte("store=etcd://127.0.0.1:1/team\n"), 0o644))
	return dir
}

// An agentlock-mcp built without the etcd store (go install ./cmd/...)
// refuses to serve a project on etcd, naming the build that can: every
// tool call would fail, naming agentlock-etcd, which serves no MCP.
func TestEtcdProjectNeedsTheEtcdBuild(t *testing.T) {
	dir := etcdProject(t)
	opts, out, errOut := options(dir, "mcp")
	require.Equal(t, report.ExitEnv, Main(opts))
	require.Empty(t, out.String(), "nothing on the protocol's stream")
	require.Regexp(t, `^agentlock: the project keeps its locks in an etcd store, and this agentlock-mcp was built without it .*go build -tags etcd -o \S+ ./cmd/agentlock-mcp .*\n$`, errOut.String())

	// The project on lock files is served.
	require.NoError(t, os.Remove(filepath.Join(dir, workspace.HomeDirName, workspace.StoreFile)))
	opts, _, errOut = options(dir, "mcp")
	require.Equal(t, 0, Main(opts), errOut.String())
}

// The dashboard of a project on etcd needs the etcd build of this
// program too, and says so before it listens.
func TestEtcdProjectNeedsTheEtcdBuildToServeThePage(t *testing.T) {
	dir := etcdProject(t)
	opts, out, errOut := options(dir, "serve", "--addr", "127.0.0.1:0")
	require.Equal(t, report.ExitEnv, Main(opts))
	require.Empty(t, out.String())
	require.Regexp(t, `^agentlock: the project keeps its locks in an etcd store, and this agentlock-mcp was built without it .*go build -tags etcd -o \S+ ./cmd/agentlock-mcp .*\n$`, errOut.String())
	require.NotContains(t, errOut.String(), "serving the dashboard")
}
