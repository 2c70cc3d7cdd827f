package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/workspace"
)

// writeJSON prints v as one line of JSON.
func writeJSON(w io.Writer, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("encode output: %w", err)
	}
	data = append(data, '\n')
	if _, err := w.Write(data); err != nil {
		return fmt.Errorf("write output: %w", err)
	}
	return nil
}

// printer prints results in the form the invocation asked for.
type printer struct {
	io   *IOStreams
	json bool // --json: one JSON record per line on stdout
}

func newPrinter(io *IOStreams, c *config) printer { return printer{io: io, json: c.JSON} }

// emit prints a result: its record as a JSON line with --json, else its
// line for people (escaped: see report.Escape), on stdout.
func (p printer) emit(rec any, line string) error {
	if p.json {
		return writeJSON(p.io.Out, rec)
	}
	_, err := fmt.Fprintln(p.io.Out, report.EscapeLines(line))
	return err
}

// diagnose prints a refusal: its record on stdout with --json, else its
// line for people (escaped) on stderr.
func (p printer) diagnose(rec any, line string) error {
	if p.json {
		return writeJSON(p.io.Out, rec)
	}
	_, err := fmt.Fprintln(p.io.ErrOut, report.EscapeLines(line))
	return err
}

// change prints one step of init or uninit: a change record with --json,
// else line. A line that cannot be written is not worth failing a set-up
// that was done: it is dropped.
func (p printer) change(action, path, detail, line string) {
	_ = p.emit(report.Change{Action: action, Path: path, Detail: detail}, line)
}

// warn prints a warning of the workspace: a lock operation that succeeded
// although the registry could not follow.
func warn(io *IOStreams, w *workspace.MirrorError) {
	if w != nil {
		fmt.Fprintf(io.ErrOut, "agentlock: warning: %s\n", report.Escape(w.Error()))
	}
}

// warnf prints a warning line for people on stderr, its arguments escaped
// (report.Linef).
func warnf(io *IOStreams, format string, args ...any) {
	fmt.Fprintln(io.ErrOut, "agentlock: warning: "+report.Linef(format, args...))
}

// warnLegacy warns once, on stderr, when agent-registry 0.2's default home
// holds live locks on some of paths while the workspace keeps their locks
// elsewhere (see workspace.Workspace.LegacyHeld).
func warnLegacy(ctx context.Context, io *IOStreams, ws *workspace.Workspace, paths []string) {
	if home, held := ws.LegacyHeld(ctx, paths); len(held) > 0 {
		fmt.Fprintln(io.ErrOut, "agentlock: warning: "+report.LegacyHeld(home, held))
	}
}
