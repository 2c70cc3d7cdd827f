// Command agentlock-mcp is agentlock's MCP server and dashboard: agentlock
// mcp and agentlock serve run it in their place, with the same command
// line, so that agentlock itself, which every lock call and hook starts,
// links neither the MCP Go SDK nor an HTTP server. Install it
// with agentlock (go install ./cmd/... from the source tree; the release
// archives, npm and Homebrew ship both). See package mcpprogram and
// docs/mcp.md and docs/dashboard.md.
package main

import (
	"os"

	"github.com/agentlock/agentlock/internal/frontend/mcpprogram"
	"github.com/agentlock/agentlock/report"
)

// The release build stamps these with the linker, as agentlock's
// (.goreleaser.yaml): -X main.version=v1.2.3 -X main.commit=<sha>
// -X main.date=<RFC 3339>.
var (
	version string
	commit  string
	date    string
)

func main() {
	os.Exit(mcpprogram.Main(mcpprogram.FromOS(report.Built(version, commit, date))))
}
