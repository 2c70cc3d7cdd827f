package report

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

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
	// Records, when not nil, collects every record printed with JSON, in
	// order, as the values written: a front end that hands the records on
	// as they are (an MCP result's structured content) reads them there
	// instead of parsing Out.
	Records *[]any
}

// Record prints rec as a JSON line on Out, and collects it in Records.
func (p Printer) Record(rec any) error {
	if p.Records != nil {
		*p.Records = append(*p.Records, rec)
	}
	return WriteJSON(p.Out, rec)
}

// Emit prints a result: its record as a JSON line with JSON, else its
// line for people (escaped), on Out.
func (p Printer) Emit(rec any, line string) error {
	if p.JSON {
		return p.Record(rec)
	}
	_, err := fmt.Fprintln(p.Out, EscapeLines(line))
	return err
}

// Diagnose prints a refusal: its record on Out with JSON, else its line
// for people (escaped) on ErrOut.
func (p Printer) Diagnose(rec any, line string) error {
	if p.JSON {
		return p.Record(rec)
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

// Version prints what agentlock version prints about the build v, after
// a warning per invalid setting (the command runs whatever they are).
func (p Printer) Version(v Version, problems []error) error {
	p.WarnProblems(problems)
	return p.Emit(v, v.Line())
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

// Refusals prints who holds what when the acquisition of paths was
// refused with err (AcquireRefusals; waited: how long it waited; places:
// where each holder works), and
// returns ErrReported. All or none: with JSON the paths that were free are
// reported as not acquired too; for people, a line says that nothing was.
func (p Printer) Refusals(paths []string, err error, waited time.Duration, places map[string]string) error {
	refusals, err := AcquireRefusals(paths, err, waited, places)
	if err != nil {
		return err
	}
	for _, r := range refusals {
		var perr error
		switch {
		case r.Held:
			perr = p.Diagnose(r.Record, r.Line)
		case p.JSON: // free, but not taken: all or none
			perr = p.Record(r.Record)
		}
		if perr != nil {
			return perr
		}
	}
	if len(paths) > 1 && !p.JSON {
		fmt.Fprintln(p.ErrOut, "agentlock: nothing was acquired (several paths are taken all together or not at all).")
	}
	return ErrReported
}

// Renewals prints the renewals of session's locks on paths
// (workspace.Workspace.RenewPaths): every lock lost, and when verbose
// every lock renewed. lost reports whether a lock was lost.
func (p Printer) Renewals(renewals []workspace.Renewal, session string, verbose bool) (lost bool, err error) {
	for _, r := range renewals {
		switch {
		case r.Refused != nil:
			err = p.Diagnose(RenewRefused(r.Refused, session))
		case r.NoLock:
			err = p.Diagnose(RenewNoLock(r.Path))
		case verbose:
			err = p.Emit(Renewed(r.Lease.Path))
		}
		if err != nil {
			return lost, err
		}
		lost = lost || r.Lost()
	}
	return lost, nil
}

// SessionRenewed prints the renewal of every lock session holds
// (workspace.Workspace.RenewSession): the notices, as warnings, and when
// verbose each lock renewed, or for people that there was none.
func (p Printer) SessionRenewed(renewed []core.State, notices []error, session string, verbose bool) error {
	for _, n := range notices {
		fmt.Fprintf(p.ErrOut, "agentlock: warning: %s\n", Escape(n.Error()))
	}
	if !verbose {
		return nil
	}
	for _, st := range renewed {
		if err := p.Emit(Renewed(st.Name())); err != nil {
			return err
		}
	}
	if len(renewed) == 0 {
		p.Text("no lock of %s to renew", session)
	}
	return nil
}
