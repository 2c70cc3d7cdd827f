package doctor

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/agentlock/agentlock/workspace"
)

// mcpTimeout bounds the MCP server check: start, initialize, list tools.
const mcpTimeout = 15 * time.Second

// mcpServer starts "agentlock mcp" (this very program, in the project) as
// an agent CLI would, over stdio, and lists its tools. agentlock links no
// MCP code: agentlock mcp runs agentlock-mcp (opts.MCPServer, found beside
// agentlock, else on PATH), which this check reports, and whose list-tools
// is the client.
func (d *run) mcpServer(ctx context.Context) Check {
	const name = "mcp-server"
	if d.opts.Self == "" {
		return Check{Name: name, Status: Warn, Detail: "cannot tell which program runs this doctor, so agentlock mcp was not started", Fix: "run agentlock mcp by hand"}
	}
	bin := d.opts.MCPServer
	if bin == "" {
		return Check{Name: name, Status: Problem,
			Detail: fmt.Sprintf("agentlock mcp runs %s, which is neither beside %s nor on PATH: the agents' MCP server (agentlock init registers it) cannot start",
				workspace.MCPProgram, d.opts.Self),
			Fix: workspace.MCPInstall(d.opts.Writer.Version)}
	}
	ctx, cancel := context.WithTimeout(ctx, mcpTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "list-tools", d.opts.Self, "mcp")
	cmd.Dir, cmd.Env, cmd.WaitDelay = d.opts.Dir, d.opts.Environ, time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	tools := strings.Fields(string(out))
	if err != nil || len(tools) == 0 {
		said := strings.Join(strings.Fields(stderr.String()), " ")
		if said == "" && err != nil {
			said = err.Error()
		}
		return Check{Name: name, Status: Problem, Detail: fmt.Sprintf("agentlock mcp did not answer as an MCP server: %s", said),
			Fix: "run agentlock mcp in the project and look at what it prints on stderr"}
	}
	return Check{Name: name, Status: OK, Detail: fmt.Sprintf("agentlock mcp starts (%s) and serves %d tools: %s", bin, len(tools), strings.Join(tools, ", "))}
}
