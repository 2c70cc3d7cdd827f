package doctor

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// mcpTimeout bounds the MCP server check: start, initialize, list tools.
const mcpTimeout = 10 * time.Second

// mcpServer starts "agentlock mcp" (this very program, in the project) as
// an agent CLI would, over stdio, and lists its tools.
func (d *run) mcpServer() Check {
	const name = "mcp-server"
	if d.opts.Self == "" {
		return Check{Name: name, Status: Warn, Detail: "cannot tell which program runs this doctor, so agentlock mcp was not started", Fix: "run agentlock mcp by hand"}
	}
	ctx, cancel := context.WithTimeout(context.Background(), mcpTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, d.opts.Self, "mcp")
	cmd.Dir = d.opts.Dir
	tools, err := listMCPTools(ctx, cmd)
	if err != nil {
		return Check{Name: name, Status: Problem, Detail: fmt.Sprintf("agentlock mcp did not answer as an MCP server: %v", err),
			Fix: "run agentlock mcp in the project and look at what it prints on stderr"}
	}
	return Check{Name: name, Status: OK, Detail: fmt.Sprintf("agentlock mcp starts and serves %d tools: %s", len(tools), strings.Join(tools, ", "))}
}

// listMCPTools connects to the server cmd runs and returns its tools'
// names.
func listMCPTools(ctx context.Context, cmd *exec.Cmd) ([]string, error) {
	client := mcp.NewClient(&mcp.Implementation{Name: "agentlock-doctor", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: time.Second}, nil)
	if err != nil {
		return nil, fmt.Errorf("initialize: %w", err)
	}
	defer cs.Close()
	res, err := cs.ListTools(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("tools/list: %w", err)
	}
	var names []string
	for _, t := range res.Tools {
		names = append(names, t.Name)
	}
	return names, nil
}
