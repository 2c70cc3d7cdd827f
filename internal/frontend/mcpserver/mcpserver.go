// Package mcpserver serves agentlock's agent-facing verbs as the tools of
// a Model Context Protocol server over stdio (agentlock mcp).
//
// The server holds no lock state: every tool call is one command of the
// session service (package session) — a new Service, which opens the
// workspace once and resolves the session anew, since a session-start hook
// may have recorded the agent meanwhile — run with the call's context, so
// that a client that cancels a call ends it (a waiting acquire stops
// waiting). Its outcome is rendered by package report exactly as the
// command line's --json renders it: the same policy, the same session
// resolution, the same records (see docs/schema), handed on as the values
// printed, never parsed back. A refusal (exit 1) or a usage error (exit 2)
// is a tool error whose text names the holder and what to do.
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

	"github.com/agentlock/agentlock/internal/frontend/mcpcmd"
	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/session"
)

// Config is what a server needs from agentlock.
type Config struct {
	// Version is agentlock's version, reported to the client.
	Version string
	// Service returns the session service of one tool call, a new one
	// each call. typed, when not empty, is the session a model named
	// while the server knows none of its own: the call acts for it, as
	// --session does.
	Service func(typed string) *session.Service
	// Problems are the invalid settings of the server's configuration:
	// every tool but whoami is refused while there is one, as every
	// command but whoami is (whoami warns of them).
	Problems []error
	// Progress is the interval of progress notifications while an acquire
	// waits (default one second).
	Progress time.Duration
}

// ServerName is the name the server reports, and the key init writes in
// the agents' MCP files: tools appear to a model as mcp__agentlock__acquire
// (Claude Code) or agentlock.acquire (Codex).
const ServerName = "agentlock"

// RegistryURI is the URI of the registry resource (the command's help
// names it).
const RegistryURI = mcpcmd.RegistryURI

// New returns a server whose tools call cfg's session services.
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

// toolRun is one tool call: the command of the session service it runs, and
// what that command printed, as the command line prints it with --json.
type toolRun struct {
	svc *session.Service
	// out prints on stdout and stderr, and keeps the records printed.
	out            report.Printer
	stdout, stderr bytes.Buffer
	records        []any
	// wait is the progress of a waiting acquire; nil when it does not
	// report progress.
	wait *progress
}

// result is the outcome of a call: its records as text and as structured
// content; a refusal or error is a tool error (IsError) whose text says
// who holds what and what to do. refusalOK marks a tool whose exit 1 is a
// result, not a refusal (check).
func (c *toolRun) result(command string, code int, refusalOK bool) *mcp.CallToolResult {
	records := c.records
	if records == nil {
		records = []any{}
	}
	text := strings.TrimSpace(c.stdout.String())
	res := &mcp.CallToolResult{StructuredContent: map[string]any{"records": records, "exit_code": code}}
	switch {
	case code == report.ExitOK, code == report.ExitRefused && refusalOK:
		if text == "" {
			text = "done (no records)"
		}
		if extra := describe(records, code); extra != "" {
			text = extra + "\n" + text
		}
		if msg := strings.TrimSpace(c.stderr.String()); msg != "" {
			text += "\n" + msg
		}
		res.Content = []mcp.Content{&mcp.TextContent{Text: text}}
	default:
		// No structured content: clients show the model the structured
		// content in place of the text (Claude Code, Codex), and the text
		// is what says who holds what and what to do. The records follow
		// it.
		res.IsError, res.StructuredContent = true, nil
		msg := refusalText(command, records, c.stderr.String(), code)
		if text != "" {
			msg += "\n" + text
		}
		res.Content = []mcp.Content{&mcp.TextContent{Text: msg}}
	}
	return res
}

// run runs one tool call: the command do, on the session service of the
// call (see service), its error classified as the command line's exit
// code (report.ExitCode) and, unless already reported, added as the
// command line's --json error record.
func (h handlers) run(ctx context.Context, req *mcp.CallToolRequest, tool, command, typed string, wait time.Duration, refusalOK bool,
	do func(context.Context, *toolRun) error) (*mcp.CallToolResult, any, error) {
	svc, err := h.service(ctx, typed)
	if err != nil {
		return nil, nil, err
	}
	c := &toolRun{svc: svc}
	c.out = report.Printer{Out: &c.stdout, ErrOut: &c.stderr, JSON: true, Records: &c.records}
	if token := req.Params.GetProgressToken(); token != nil && wait > 0 {
		c.wait = &progress{}
		defer h.progress(ctx, req, token, c.wait, wait)()
	}
	if tool != "whoami" && len(h.cfg.Problems) > 0 {
		err = &report.UsageError{Err: h.cfg.Problems[0]}
	} else {
		err = do(ctx, c)
	}
	// The problems of the project settings the call met: warnings, as
	// every command gives them.
	for _, p := range svc.Problems() {
		fmt.Fprintf(&c.stderr, "agentlock: warning: %s\n", report.Escape(p.Error()))
	}
	code := report.ExitCode(err)
	if err != nil && !report.Reported(err) {
		fmt.Fprintf(&c.stderr, "agentlock: %s\n", report.EscapeLines(report.Explain(err)))
		_ = c.out.Record(report.Error{Error: report.Explain(err), ExitCode: code})
	}
	return c.result(command, code, refusalOK), nil, nil
}

// service returns the session service of a call for the session argument
// a model gave: the server's own when it gave none or gave the server's
// own; the one it gave when the server knows none. A session that is not
// the server's is refused.
func (h handlers) service(ctx context.Context, typed string) (*session.Service, error) {
	svc := h.cfg.Service("")
	if typed == "" {
		return svc, nil
	}
	own := svc.Identity(ctx)
	switch own.ID {
	case "":
		return h.cfg.Service(typed), nil
	case typed:
		return svc, nil
	}
	return nil, fmt.Errorf("this server acts for session %s (from %s), not %s: call the tool again without the session argument", own.ID, own.Source, typed)
}

// progress is what a waiting acquire is waiting for, once it waits.
type progress struct {
	mu   sync.Mutex
	line string
}

func (p *progress) set(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.line = line
}

func (p *progress) get() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.line
}

// progress sends a progress notification every interval while a waiting
// acquire runs, naming what it waits for; the returned func stops it.
func (h handlers) progress(ctx context.Context, req *mcp.CallToolRequest, token any, waiting *progress, total time.Duration) func() {
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
				if line := waiting.get(); line != "" {
					msg = line + " (" + msg + ")"
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
	if len(h.cfg.Problems) > 0 {
		return nil, fmt.Errorf("read the registry: %w", h.cfg.Problems[0])
	}
	shown, err := h.cfg.Service("").Show(ctx)
	if err != nil {
		return nil, fmt.Errorf("read the registry: %w", err)
	}
	var records []any
	out := report.Printer{Out: io.Discard, ErrOut: io.Discard, JSON: true, Records: &records}
	if err := out.Registry(shown); err != nil {
		return nil, fmt.Errorf("read the registry: %w", err)
	}
	if records == nil {
		records = []any{}
	}
	data, err := json.MarshalIndent(records, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("encode the registry: %w", err)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: RegistryURI, MIMEType: "application/json", Text: string(data)}}}, nil
}
