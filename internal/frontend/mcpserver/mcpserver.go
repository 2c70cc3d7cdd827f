// Package mcpserver serves agentlock's agent-facing commands as the tools
// of a Model Context Protocol server over stdio (agentlock mcp).
//
// The server holds no lock state: every tool call runs one agentlock
// command line with --json through a Runner — in agentlock, the very
// command code a shell call runs, in this process — so that a call is one
// transaction on the store, exactly as a one-shot command, with the same
// policy, the same session resolution and the same JSON records (see
// docs/schema). A refusal (exit 1) or a usage error (exit 2) is a tool
// error whose text names the holder and what to do.
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentlock/agentlock/internal/testkit/syncbuf"
	"github.com/agentlock/agentlock/report"
)

// Output is what one command line printed, and its exit code.
type Output struct {
	Stdout []byte // JSON lines (the command ran with --json)
	Stderr []byte // diagnostics for people
	Code   int    // the command's exit code (0 ok, 1 refused, 2 usage, ...)
}

// Runner runs one agentlock command line (its arguments, without the
// program name) and returns what it printed. stderr, when not nil,
// receives the command's diagnostics as they are written, so that a
// waiting acquire can be reported while it waits; Output.Stderr holds them
// all again at the end.
type Runner func(ctx context.Context, args []string, stderr io.Writer) Output

// Config is what a server needs from agentlock.
type Config struct {
	// Version is agentlock's version, reported to the client.
	Version string
	// Run runs one command line; see Runner.
	Run Runner
	// Progress is the interval of progress notifications while an acquire
	// waits (default one second).
	Progress time.Duration
}

// ServerName is the name the server reports, and the key init writes in
// the agents' MCP files: tools appear to a model as mcp__agentlock__acquire
// (Claude Code) or agentlock.acquire (Codex).
const ServerName = "agentlock"

// RegistryURI is the URI of the registry resource.
const RegistryURI = "agentlock://registry"

// New returns a server whose tools run their command lines through
// cfg.Run.
func New(cfg Config) *mcp.Server {
	if cfg.Progress <= 0 {
		cfg.Progress = time.Second
	}
	s := mcp.NewServer(&mcp.Implementation{Name: ServerName, Title: "agentlock: advisory path locks and the registry", Version: cfg.Version},
		&mcp.ServerOptions{Instructions: instructions})
	h := handlers{cfg: cfg}
	for _, t := range tools(h) {
		t.add(s)
	}
	s.AddResource(&mcp.Resource{
		URI: RegistryURI, Name: "registry", MIMEType: "application/json",
		Description: "Who works on what: every session of registry.md as agentlock show --json prints it (a JSON array of session records).",
	}, h.readRegistry)
	return s
}

// Serve runs a server on in and out until in ends (the client, the
// agent's harness, exited or closed the pipe) or ctx is done.
func Serve(ctx context.Context, cfg Config, in io.ReadCloser, out io.WriteCloser) error {
	err := New(cfg).Run(ctx, &mcp.IOTransport{Reader: in, Writer: out})
	if err != nil && (ctx.Err() != nil || isEOF(err)) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("mcp server: %w", err)
	}
	return nil
}

// isEOF reports whether err is the end of the client's input.
func isEOF(err error) bool {
	return err == io.EOF || strings.Contains(err.Error(), "EOF") || strings.Contains(err.Error(), "closed")
}

const instructions = `agentlock coordinates AI coding agents that share this repository. ` +
	`Before modifying a file, call acquire with its path; when acquire fails, another session holds it: ` +
	`do not modify it and do not work around the refusal (wait with wait_seconds, work on something else, or ask the holder). ` +
	`Release what you took when you are done with it; finish when your work ends. ` +
	`Your session is the agent's own, found by the server: tools take no session argument unless the server says it knows none.`

// handlers runs the tools.
type handlers struct{ cfg Config }

// call runs one command line and makes its output a tool result: the
// JSON records as text and as structured content; a refusal or error is a
// tool error (IsError) whose text says who holds what and what to do.
// refusalOK marks a tool whose exit 1 is a result, not a refusal (check).
func (h handlers) call(ctx context.Context, req *mcp.CallToolRequest, args []string, refusalOK bool) (*mcp.CallToolResult, any, error) {
	var live *syncbuf.Buffer
	var stderr io.Writer
	stop := func() {}
	if token := req.Params.GetProgressToken(); token != nil && hasWait(args) {
		live = &syncbuf.Buffer{}
		stderr = live
		stop = h.progress(ctx, req, token, live, waitOf(args))
	}
	out := h.cfg.Run(ctx, args, stderr)
	stop()
	records, err := parseRecords(out.Stdout)
	if err != nil {
		return nil, nil, fmt.Errorf("agentlock %s printed output that is not JSON lines: %w", args[0], err)
	}
	text := strings.TrimSpace(string(out.Stdout))
	res := &mcp.CallToolResult{StructuredContent: map[string]any{"records": records, "exit_code": out.Code}}
	switch {
	case out.Code == report.ExitOK, out.Code == report.ExitRefused && refusalOK:
		if text == "" {
			text = "done (no records)"
		}
		if extra := describe(records, out.Code); extra != "" {
			text = extra + "\n" + text
		}
		if msg := strings.TrimSpace(string(out.Stderr)); msg != "" {
			text += "\n" + msg
		}
		res.Content = []mcp.Content{&mcp.TextContent{Text: text}}
	default:
		// No structured content: clients show the model the structured
		// content in place of the text (Claude Code, Codex), and the text
		// is what says who holds what and what to do. The records follow
		// it.
		res.IsError, res.StructuredContent = true, nil
		msg := refusalText(args[0], records, out)
		if text != "" {
			msg += "\n" + text
		}
		res.Content = []mcp.Content{&mcp.TextContent{Text: msg}}
	}
	return res, nil, nil
}

// progress sends a progress notification every interval while a waiting
// acquire runs, naming what it waits for; the returned func stops it.
func (h handlers) progress(ctx context.Context, req *mcp.CallToolRequest, token any, stderr *syncbuf.Buffer, total time.Duration) func() {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		start := time.Now()
		tick := time.NewTicker(h.cfg.Progress)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case now := <-tick.C:
				waited := now.Sub(start).Round(time.Second)
				msg := fmt.Sprintf("waited %s of %s", waited, total)
				if line := firstLine(stderr.String()); line != "" {
					msg = strings.TrimPrefix(line, "agentlock: ") + " (" + msg + ")"
				}
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: token, Message: msg,
					Progress: waited.Seconds(), Total: total.Seconds(),
				})
			}
		}
	}()
	return func() { close(done); wg.Wait() }
}

// readRegistry serves the registry resource: show --json as a JSON array.
func (h handlers) readRegistry(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	out := h.cfg.Run(ctx, []string{"show", "--json"}, nil)
	if out.Code != report.ExitOK {
		return nil, fmt.Errorf("read the registry: %s", strings.TrimSpace(string(out.Stderr)+" "+string(out.Stdout)))
	}
	records, err := parseRecords(out.Stdout)
	if err != nil {
		return nil, fmt.Errorf("read the registry: %w", err)
	}
	data, err := json.MarshalIndent(records, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode the registry: %w", err)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: RegistryURI, MIMEType: "application/json", Text: string(data)}}}, nil
}

// parseRecords splits JSON lines into records; no lines are no records.
func parseRecords(stdout []byte) ([]map[string]any, error) {
	records := []map[string]any{}
	for _, line := range bytes.Split(stdout, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal(line, &rec); err != nil {
			return nil, fmt.Errorf("%q: %w", line, err)
		}
		records = append(records, rec)
	}
	return records, nil
}

// firstLine is the first line of s, trimmed.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(line)
}
