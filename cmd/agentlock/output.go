package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/agentlock/agentlock/workspace"
)

// seconds renders a duration as seconds with millisecond precision, the unit
// of the "age" fields of agent-registry 0.2.
func seconds(d time.Duration) float64 {
	return math.Round(d.Seconds()*1000) / 1000
}

// human renders a duration for people: "3.2s", "2m5s".
func human(d time.Duration) string {
	if d < 0 {
		d = 0
	}
	if d < time.Minute {
		return d.Round(100 * time.Millisecond).String()
	}
	return d.Round(time.Second).String()
}

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

// emit prints rec as JSON or the human line, per c.JSON.
func emit(io *IOStreams, c *config, rec any, human string) error {
	if c.JSON {
		return writeJSON(io.Out, rec)
	}
	_, err := fmt.Fprintln(io.Out, human)
	return err
}

// warn prints a warning of the workspace: a lock operation that succeeded
// although the registry could not follow.
func warn(io *IOStreams, w *workspace.MirrorError) {
	if w != nil {
		fmt.Fprintf(io.ErrOut, "agentlock: warning: %v\n", w)
	}
}

// warnf prints a warning.
func warnf(io *IOStreams, format string, args ...any) {
	fmt.Fprintf(io.ErrOut, "agentlock: warning: "+format+"\n", args...)
}

// errorRecord is the JSON line printed, with --json, when a command fails
// for a reason other than a refusal (usage, I/O, corrupt file).
type errorRecord struct {
	Error    string `json:"error"`
	ExitCode int    `json:"exit_code"`
}
