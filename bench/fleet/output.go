package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"strings"
)

// Report is a whole benchmark: where it ran, with which knobs, and what
// each run measured. It is what -json prints.
type Report struct {
	Machine  string `json:"machine"`
	Revision string `json:"revision,omitempty"`
	Command  string `json:"command"`
	Knobs    Knobs  `json:"knobs"`
	// Also are the -also runs' knob flags, each over Knobs.
	Also    []string `json:"also,omitempty"`
	Modes   []Mode   `json:"modes"`
	Results []Result `json:"results"`
}

// machine describes where the benchmark runs: OS, cores, load.
func machine() string {
	s := fmt.Sprintf("%s/%s, %d cores, %s", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())
	if data, err := os.ReadFile("/proc/loadavg"); err == nil {
		if f := strings.Fields(string(data)); len(f) >= 3 {
			s += ", load average " + strings.Join(f[:3], " ") + " at the start"
		}
	}
	return s
}

// writeJSON prints the report as one indented JSON document.
func writeJSON(w io.Writer, rep Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(rep)
}

// table renders results as a Markdown table, readable as text too.
func table(results []Result) string {
	var b bytes.Buffer
	b.WriteString("| mode | fleet | agents | accepted | lost | surviving/s | × none | refusals (per write) | redone | abandoned | wait p50/p99 ms | hold p50/p99 ms | hook p50/p99 ms (n) | conflicts at merge (predicted files) |\n")
	b.WriteString("|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range results {
		rel := "–"
		if r.Relative > 0 {
			rel = fmt.Sprintf("%.2f×", r.Relative)
		}
		hold, hook, conflicts := "–", "–", "–"
		if r.Holds > 0 {
			hold = fmt.Sprintf("%.0f / %.0f", r.HoldP50, r.HoldP99)
		}
		if r.Hooks > 0 {
			hook = fmt.Sprintf("%.0f / %.0f (%d)", r.HookP50, r.HookP99, r.Hooks)
		}
		if r.Mode == "worktrees" || r.Conflicts > 0 {
			conflicts = fmt.Sprintf("%d in %d files (%d)", r.Conflicts, r.ConflictFiles, r.PredictedFiles)
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d (%.0f%%) | %.2f | %s | %d (%.2f) | %d | %d | %.0f / %.0f | %s | %s | %s |\n",
			r.Mode, r.Fleet, r.Agents, r.Accepted, r.Lost, 100*r.LostShare, r.Throughput, rel,
			r.Refusals, r.RefusalsPerWrite, r.Redone, r.Abandoned, r.WaitP50, r.WaitP99, hold, hook, conflicts)
	}
	return b.String()
}

// knobLine names every knob of a run as the flags that repeat it.
func knobLine(k Knobs) string {
	parts := []string{
		fmt.Sprintf("-agents %d", k.Agents), "-clis " + strings.Join(k.CLIs, ","),
		fmt.Sprintf("-files %d", k.Files), fmt.Sprintf("-hot %d", k.Hot), fmt.Sprintf("-hot-share %g", k.HotShare),
		fmt.Sprintf("-bytes %d", k.Bytes), fmt.Sprintf("-sessions %d", k.Sessions), fmt.Sprintf("-turns %d", k.Turns),
		fmt.Sprintf("-edits %d", k.Edits), "-think " + k.Think.String(), "-step " + k.Step.String(),
		fmt.Sprintf("-jitter %g", k.Jitter), fmt.Sprintf("-wait-share %g", k.WaitShare), "-wait-cap " + k.WaitCap.String(), "-hook-idle " + k.HookIdle.String(), "-hook-wait " + k.HookWait.String(),
		fmt.Sprintf("-max-tries %d", k.MaxTries), fmt.Sprintf("-reread=%t", k.Reread), fmt.Sprintf("-cli-guard=%t", k.CLIGuard),
		fmt.Sprintf("-seed %d", k.Seed), "-sample " + k.Sample.String(), "-deadline " + k.Deadline.String(),
	}
	if k.Rendezvous {
		parts = append(parts, "-rendezvous")
	}
	if k.InjectOverwrite > 0 {
		parts = append(parts, fmt.Sprintf("-inject-overwrite %d", k.InjectOverwrite))
	}
	return strings.Join(parts, " ")
}
