// Command agentlock-mcp is agentlock's MCP server: agentlock mcp runs it in
// its place, with the same command line, so that agentlock itself, which
// every lock call and hook starts, does not link the MCP Go SDK. Install it
// with agentlock (go install ./cmd/... from the source tree; the release
// archives, npm and Homebrew ship both). See package mcpprogram and
// docs/mcp.md.
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
