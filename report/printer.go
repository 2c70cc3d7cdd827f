package report

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/workspace"
)

// WriteJSON prints v as one line of JSON.
func WriteJSON(w io.Writer, v any) error {
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

// Printer prints results in the form an invocation asked for: with JSON
// (--json), one record per line on Out; else lines for people, escaped
// (see Escape), results on Out and diagnostics on ErrOut.
type Printer struct {
	Out    io.Writer // data: results, JSON lines
	ErrOut io.Writer // diagnostics: refusals, warnings, errors
	JSON   bool
}

// Emit prints a result: its record as a JSON line with JSON, else its
// line for people (escaped), on Out.
func (p Printer) Emit(rec any, line string) error {
	if p.JSON {
		return WriteJSON(p.Out, rec)
	}
	_, err := fmt.Fprintln(p.Out, EscapeLines(line))
	return err
}

// Diagnose prints a refusal: its record on Out with JSON, else its line
// for people (escaped) on ErrOut.
func (p Printer) Diagnose(rec any, line string) error {
	if p.JSON {
		return WriteJSON(p.Out, rec)
	}
	_, err := fmt.Fprintln(p.ErrOut, EscapeLines(line))
	return err
}

// Change prints one step of init or uninit: a Change record with JSON,
// else line. A line that cannot be written is not worth failing a set-up
// that was done: it is dropped.
func (p Printer) Change(action, path, detail, line string) {
	_ = p.Emit(Change{Action: action, Path: path, Detail: detail}, line)
}

// Text prints a line for people on Out, its arguments escaped (Linef);
// nothing with JSON, where the records say it.
func (p Printer) Text(format string, args ...any) {
	if !p.JSON {
		fmt.Fprintln(p.Out, Linef(format, args...))
	}
}

// Say prints a line for people on ErrOut, its arguments escaped (Linef),
// whatever the form: progress and notes beside the results.
func (p Printer) Say(format string, args ...any) {
	fmt.Fprintln(p.ErrOut, Linef(format, args...))
}

// Warnf prints a warning line for people on ErrOut, its arguments escaped
// (Linef).
func (p Printer) Warnf(format string, args ...any) {
	fmt.Fprintln(p.ErrOut, "agentlock: warning: "+Linef(format, args...))
}

// Warn prints a warning of the workspace: a lock operation that succeeded
// although the registry could not follow. Nothing when w is nil.
func (p Printer) Warn(w *workspace.MirrorError) {
	if w != nil {
		fmt.Fprintf(p.ErrOut, "agentlock: warning: %s\n", Escape(w.Error()))
	}
}

// WarnProblems prints a warning per invalid setting, for the commands that
// run anyway (with the default in its place).
func (p Printer) WarnProblems(problems []error) {
	for _, e := range problems {
		p.Warnf("%v; using the default here, but other commands refuse to run until it is fixed", e)
	}
}

// WarnLegacyHeld warns, on ErrOut, when agent-registry 0.2's default home
// holds live locks (held) on paths whose locks the workspace keeps
// elsewhere (see workspace.Workspace.LegacyHeld); nothing when held is
// empty.
func (p Printer) WarnLegacyHeld(home string, held []core.State) {
	if len(held) > 0 {
		fmt.Fprintln(p.ErrOut, "agentlock: warning: "+LegacyHeld(home, held))
	}
}
