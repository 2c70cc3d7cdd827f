package main

import (
	"context"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// agentlock, which every lock call and hook starts, links no server and no
// library whose package initialisation every start would pay for nothing
// (docs/speed.md): not the MCP Go SDK nor the dashboard's HTTP server
// (agentlock mcp and agentlock serve hand over to agentlock-mcp), not
// viper (cliconfig resolves the settings), not the etcd client (the etcd
// build is agentlock-etcd).
func TestAgentlockLinksNoServer(t *testing.T) {
	goBin, err := exec.LookPath("go")
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), proctest.Timeout)
	defer cancel()
	goEnv, err := proctest.GoEnv(ctx, goBin)
	require.NoError(t, err)
	// The default build, as installed, whatever tags this test runs with.
	list := exec.CommandContext(ctx, goBin, "list", "-deps", "-f", "{{.ImportPath}}", ".")
	list.Env = append(append(proctest.WithoutGo(os.Environ()), goEnv...), "CGO_ENABLED=0")
	out, err := list.Output()
	require.NoError(t, err, "go list -deps")
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/agentlock/agentlock/session", "the list is agentlock's")
	packages := []string{"net/http", "html/template", "crypto/tls", "github.com/spf13/viper",
		"github.com/agentlock/agentlock/internal/frontend/dashboard",
		"github.com/agentlock/agentlock/internal/frontend/mcpserver",
		"github.com/agentlock/agentlock/internal/frontend/mcpprogram"}
	modules := []string{"github.com/modelcontextprotocol/", "github.com/spf13/viper/", "go.etcd.io/"}
	for _, dep := range deps {
		if slices.Contains(packages, dep) || slices.ContainsFunc(modules, func(m string) bool { return strings.HasPrefix(dep, m) }) {
			t.Errorf("agentlock links %s", dep)
		}
	}
}
