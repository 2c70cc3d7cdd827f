// Command fleet simulates a fleet of coding agents working in one
// repository, and measures what each way of coordinating them loses and
// costs (issue 36).
//
// Every agent is a process of its own (this binary, re-executed with its
// spec in FLEET_AGENT_SPEC) that plays one agent CLI — Claude Code, Gemini
// CLI or Codex — against a scratch git repository: it runs sessions of
// turns of edits, each edit a read of a file, a think, and a write of the
// whole file from what it read with one unique line (its token) added.
// Where the mode has hooks, the agent runs exactly the hook command lines
// that `agentlock init --agent <cli>` wrote into the CLI's settings, as the
// CLI does: its shell, the JSON payload on stdin, its environment, one
// process per hook. So the mode "agentlock" measures whatever the hooks do
// at the time. A refused write is acted on as a model acts on the reason
// (read it again and redo; work on another file and come back; wait). At
// the end the tokens in the files count the lost updates exactly.
//
// Usage (bench/fleet.sh builds agentlock as installed and runs the whole
// benchmark, writing docs/fleet.md and docs/fleet.png):
//
//	go run ./bench/fleet -agentlock /path/to/agentlock [-modes none,agentlock,worktrees]
//	    [-sweep 2,4,8,16,32] [-also '-clis gemini; -clis codex; -subagents 2']
//	    [-json] [-png FILE] [-docs FILE] [knobs…]
//
// The knobs are listed by -help and in docs/fleet.md.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if spec := os.Getenv(agentSpecEnv); spec != "" {
		if err := agentMain(ctx, spec); err != nil {
			fmt.Fprintln(os.Stderr, "fleet agent:", err)
			stop()
			os.Exit(1)
		}
		return
	}
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "fleet:", err)
		stop()
		os.Exit(1)
	}
}

// agentMain is the agent mode: one agent on this process's stdin and
// stdout.
func agentMain(ctx context.Context, spec string) error {
	return runAgent(ctx, spec, os.Stdin, os.Stdout)
}

// options are the benchmark's own flags, beside the knobs.
type options struct {
	agentlock string
	modes     string
	sweep     string
	also      string
	json      bool
	png       string
	docs      string
	revision  string
	keep      bool
}

// run is the benchmark: every mode at every size of the sweep (or at
// -agents), then the -also runs in the modes with hooks; then the table
// (or JSON), the chart and the docs.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("fleet", flag.ContinueOnError)
	fs.SetOutput(stderr)
	k := Defaults()
	registerKnobs(fs, &k)
	var o options
	fs.StringVar(&o.agentlock, "agentlock", "", "the agentlock binary to measure (required; build it as installed: CGO_ENABLED=0)")
	fs.StringVar(&o.modes, "modes", "none,agentlock,worktrees", "modes to run, comma-separated")
	fs.StringVar(&o.sweep, "sweep", "", "agent counts to run each mode at, comma-separated (default: -agents only)")
	fs.StringVar(&o.also, "also", "", "more runs of the modes with hooks, separated by ';', each knob flags over the others (e.g. '-clis gemini; -subagents 2')")
	fs.BoolVar(&o.json, "json", false, "print the report as JSON instead of the table")
	fs.StringVar(&o.png, "png", "", "write the chart (useful throughput and lost updates against agents) to this PNG file")
	fs.StringVar(&o.docs, "docs", "", "replace the generated part of this Markdown file (docs/fleet.md) with the report")
	fs.StringVar(&o.revision, "revision", "", "the revision measured, for the docs")
	fs.BoolVar(&o.keep, "keep", false, "keep each run's scratch folder")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.agentlock == "" {
		return fmt.Errorf("-agentlock is required")
	}
	bin, err := filepath.Abs(o.agentlock)
	if err != nil {
		return err
	}
	if err := k.Validate(); err != nil {
		return err
	}
	modes, err := selectModes(o.modes)
	if err != nil {
		return err
	}
	sizes := []int{k.Agents}
	if o.sweep != "" {
		if sizes, err = parseSizes(o.sweep); err != nil {
			return err
		}
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	r := runner{agentlock: bin, self: self, keep: o.keep, progress: stderr}
	rep := Report{Machine: machine(), Revision: o.revision, Command: "fleet " + strings.Join(args, " "), Knobs: k, Modes: modes}
	for _, n := range sizes {
		kn := k
		kn.Agents = n
		for _, m := range modes {
			res, err := r.timed(ctx, m, kn)
			if err != nil {
				return err
			}
			rep.Results = append(rep.Results, res)
		}
	}
	for _, also := range strings.Split(o.also, ";") {
		if also = strings.TrimSpace(also); also == "" {
			continue
		}
		ka := k
		fa := flag.NewFlagSet("-also", flag.ContinueOnError)
		fa.SetOutput(stderr)
		registerKnobs(fa, &ka)
		if err := fa.Parse(strings.Fields(also)); err != nil {
			return fmt.Errorf("-also %q: %w", also, err)
		}
		if err := ka.Validate(); err != nil {
			return fmt.Errorf("-also %q: %w", also, err)
		}
		rep.Also = append(rep.Also, also)
		for _, m := range modes {
			// The hooks' modes, and the uncoordinated run of the same
			// work when there is none yet to compare with.
			if !m.Hooks && (m.Name != "none" || hasWork(rep.Results, "none", ka.Work())) {
				continue
			}
			res, err := r.timed(ctx, m, ka)
			if err != nil {
				return err
			}
			rep.Results = append(rep.Results, res)
		}
	}
	relate(rep.Results)
	if o.json {
		if err := writeJSON(stdout, rep); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(stdout, "fleet: %s\nknobs: %s\n\n%s", rep.Machine, knobLine(k), table(rep.Results))
	}
	if o.png != "" {
		if err := writeChart(o.png, rep.Results, k.Fleet()); err != nil {
			return err
		}
	}
	if o.docs != "" {
		if err := updateDocs(o.docs, rep, o.png); err != nil {
			return err
		}
	}
	return nil
}

// timed runs one fleet and says on stderr how long it took.
func (r runner) timed(ctx context.Context, m Mode, k Knobs) (Result, error) {
	start := time.Now()
	res, err := r.run(ctx, m, k)
	if err != nil {
		return res, fmt.Errorf("mode %s, %d agents (%s): %w", m.Name, k.Agents, k.Fleet(), err)
	}
	fmt.Fprintf(r.progress, "%-10s %2d agents %-28s %5.1fs: %d accepted, %d lost, %d refusals\n",
		m.Name, k.Agents, k.Fleet(), time.Since(start).Seconds(), res.Accepted, res.Lost, res.Refusals)
	return res, nil
}

// hasWork reports whether results hold a run of mode with the work work.
func hasWork(results []Result, mode, work string) bool {
	for _, r := range results {
		if r.Mode == mode && r.Work == work {
			return true
		}
	}
	return false
}

// parseSizes reads a comma-separated list of agent counts.
func parseSizes(v string) ([]int, error) {
	var out []int
	for _, s := range splitList(v) {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-sweep: %q is not an agent count", s)
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("-sweep names no agent count")
	}
	return out, nil
}
