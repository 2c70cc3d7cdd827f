package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"time"
)

// Knobs are the fleet's settings: what every agent does and how the run is
// scaled. Every knob is a flag of the same name (see registerKnobs and
// docs/fleet.md); Defaults are the configuration, scaled to run
// in minutes on a 2-core machine.
type Knobs struct {
	// Agents is the number of agents, each a process of its own.
	Agents int `json:"agents"`
	// CLIs are the agent CLIs whose payloads and hooks the agents play,
	// given to the agents in turn (claude,gemini,codex: a mixed fleet).
	CLIs []string `json:"clis"`
	// Files is the number of files in the repository; Hot of them are the
	// hot set, which receives HotShare of the edits.
	Files    int     `json:"files"`
	Hot      int     `json:"hot"`
	HotShare float64 `json:"hot_share"`
	// Bytes is the size of each file at the start.
	Bytes int `json:"bytes"`
	// Sessions per agent, Turns per session, Edits per turn: an edit is a
	// read, think, then a whole-file write of what was read plus one line.
	Sessions int `json:"sessions"`
	Turns    int `json:"turns"`
	Edits    int `json:"edits"`
	// Subagents, when not 0, is how many sub-agents make each turn's edits
	// at the same time, Edits each, inside the agent's session: they share
	// its session id, as the CLIs give them (Claude Code adds agent_id to
	// their payloads).
	Subagents int `json:"subagents,omitempty"`
	// Think is the model's time between reading a file and writing it;
	// Step its time before any other tool call (a read, coming back to a
	// refused write, a shell command). Each is drawn uniformly within
	// ±Jitter of its mean.
	Think  time.Duration `json:"think"`
	Step   time.Duration `json:"step"`
	Jitter float64       `json:"jitter"`
	// WaitShare is the chance that a model refused with a `--wait` command
	// in the reason runs it (otherwise it works on another file and comes
	// back); WaitCap bounds the wait it asks for (the refusal suggests
	// 90 s, which the run's scale shrinks).
	WaitShare float64       `json:"wait_share"`
	WaitCap   time.Duration `json:"wait_cap"`
	// HookIdle is the idle bound of the locks hooks take
	// (AGENTLOCK_HOOK_IDLE) in every mode with hooks, and HookWait the
	// hook's wait for one about to be freed (AGENTLOCK_HOOK_WAIT) in the
	// mode turn-wait: agentlock's idle bound (60 s) and a wait of 10 s,
	// scaled as the think time is.
	HookIdle time.Duration `json:"hook_idle"`
	HookWait time.Duration `json:"hook_wait"`
	// MaxTries is how many refusals one edit takes before the model gives
	// it up (0: never).
	MaxTries int `json:"max_tries"`
	// Reread makes a model coming back to a refused write read the file
	// again first (off: it writes what it composed, as a model does when
	// nothing tells it the file changed).
	Reread bool `json:"reread"`
	// CLIGuard applies the CLIs' own stale-write checks (Claude Code
	// refuses a Write of a file changed since its Read, before any hook);
	// off, the figures measure agentlock alone.
	CLIGuard bool `json:"cli_guard"`
	// Seed makes the agents' choices (files, jitter, waits) repeatable;
	// their timing is the machine's.
	Seed int64 `json:"seed"`
	// Sample is how often `agentlock status --json` is read to measure
	// how long locks are held (0: not measured).
	Sample time.Duration `json:"sample"`
	// Deadline bounds one run; an agent still working then is killed and
	// the run fails.
	Deadline time.Duration `json:"deadline"`
	// Rendezvous makes every agent read its first file, then wait until
	// every agent has read its own before going on: the self-tests' way to
	// make stale reads certain rather than likely.
	Rendezvous bool `json:"rendezvous,omitempty"`
	// InjectOverwrite, a self-test, overwrites one file at the end, before
	// counting, with its content minus its last InjectOverwrite lines of
	// accepted writes: exactly that many more updates must count as lost.
	InjectOverwrite int `json:"inject_overwrite,omitempty"`
}

// Defaults are the knobs of the configuration: 8 agents, 12 files
// with a hot set of 3 taking half the edits, short sessions (4 per agent, one
// turn of 3 edits each), think time about 30 times a hook's cost on an
// idle machine, a refused write retried.
func Defaults() Knobs {
	return Knobs{
		Agents: 8, CLIs: []string{"claude"},
		Files: 12, Hot: 3, HotShare: 0.5, Bytes: 2048,
		Sessions: 4, Turns: 1, Edits: 3,
		Think: 600 * time.Millisecond, Step: 150 * time.Millisecond, Jitter: 0.5,
		WaitShare: 0, WaitCap: 3 * time.Second, MaxTries: 20,
		HookIdle: 1200 * time.Millisecond, HookWait: 200 * time.Millisecond,
		Seed: 1, Sample: 100 * time.Millisecond, Deadline: 5 * time.Minute,
	}
}

// registerKnobs makes every knob a flag of fs, with k's values as defaults.
func registerKnobs(fs *flag.FlagSet, k *Knobs) {
	fs.IntVar(&k.Agents, "agents", k.Agents, "agents, each a process of its own")
	fs.Func("clis", "agent CLIs the agents play, in turn, comma-separated (claude, gemini, codex) (default "+strings.Join(k.CLIs, ",")+")", func(v string) error {
		k.CLIs = splitList(v)
		return nil
	})
	fs.IntVar(&k.Files, "files", k.Files, "files in the repository")
	fs.IntVar(&k.Hot, "hot", k.Hot, "files in the hot set")
	fs.Float64Var(&k.HotShare, "hot-share", k.HotShare, "share of the edits that go to the hot set")
	fs.IntVar(&k.Bytes, "bytes", k.Bytes, "size of each file at the start")
	fs.IntVar(&k.Sessions, "sessions", k.Sessions, "sessions per agent")
	fs.IntVar(&k.Turns, "turns", k.Turns, "turns per session")
	fs.IntVar(&k.Edits, "edits", k.Edits, "edits per turn (read, think, write the whole file); per sub-agent with -subagents")
	fs.IntVar(&k.Subagents, "subagents", k.Subagents, "sub-agents that make each turn's edits at the same time in the agent's session (0: the agent itself)")
	fs.DurationVar(&k.Think, "think", k.Think, "model time between reading a file and writing it (mean)")
	fs.DurationVar(&k.Step, "step", k.Step, "model time before any other tool call (mean)")
	fs.Float64Var(&k.Jitter, "jitter", k.Jitter, "times are drawn uniformly within ±jitter of their mean")
	fs.Float64Var(&k.WaitShare, "wait-share", k.WaitShare, "chance that a refused model runs the refusal's `agentlock acquire --wait` command")
	fs.DurationVar(&k.WaitCap, "wait-cap", k.WaitCap, "longest wait a model asks agentlock for (the refusal suggests 90s)")
	fs.DurationVar(&k.HookIdle, "hook-idle", k.HookIdle, "idle bound of the locks hooks take, in modes with hooks (AGENTLOCK_HOOK_IDLE; under the turn lifetime)")
	fs.DurationVar(&k.HookWait, "hook-wait", k.HookWait, "how long a hook waits for a lock its idle bound frees within it, in the mode turn-wait (AGENTLOCK_HOOK_WAIT)")
	fs.IntVar(&k.MaxTries, "max-tries", k.MaxTries, "refusals one edit takes before the model gives it up (0: never)")
	fs.BoolVar(&k.Reread, "reread", k.Reread, "a model coming back to a refused write reads the file again first")
	fs.BoolVar(&k.CLIGuard, "cli-guard", k.CLIGuard, "apply the CLIs' own stale-write checks (Claude Code's read-before-write)")
	fs.Int64Var(&k.Seed, "seed", k.Seed, "seed of the agents' choices")
	fs.DurationVar(&k.Sample, "sample", k.Sample, "how often lock holders are sampled with `agentlock status --json` (0: off)")
	fs.DurationVar(&k.Deadline, "deadline", k.Deadline, "bound on one run")
	fs.BoolVar(&k.Rendezvous, "rendezvous", k.Rendezvous, "self-test: every agent reads its first file, then waits for every other to have read")
	fs.IntVar(&k.InjectOverwrite, "inject-overwrite", k.InjectOverwrite, "self-test: remove this many accepted lines from one file before counting")
}

// Validate reports the first knob out of its range.
func (k Knobs) Validate() error {
	switch {
	case k.Agents < 1:
		return errors.New("-agents must be at least 1")
	case len(k.CLIs) == 0:
		return errors.New("-clis names no CLI")
	case k.Files < 1:
		return errors.New("-files must be at least 1")
	case k.Hot < 0 || k.Hot > k.Files:
		return fmt.Errorf("-hot must be between 0 and -files (%d)", k.Files)
	case k.HotShare < 0 || k.HotShare > 1:
		return errors.New("-hot-share must be between 0 and 1")
	case k.Sessions < 1 || k.Turns < 1 || k.Edits < 1:
		return errors.New("-sessions, -turns and -edits must be at least 1")
	case k.Think < 0 || k.Step < 0 || k.WaitCap < time.Second:
		return errors.New("-think and -step must not be negative, -wait-cap at least 1s (agentlock waits in whole seconds)")
	case k.Jitter < 0 || k.Jitter > 1:
		return errors.New("-jitter must be between 0 and 1")
	case k.WaitShare < 0 || k.WaitShare > 1:
		return errors.New("-wait-share must be between 0 and 1")
	case k.MaxTries < 0 || k.InjectOverwrite < 0 || k.Sample < 0 || k.Subagents < 0:
		return errors.New("-max-tries, -inject-overwrite, -sample and -subagents must not be negative")
	case k.HookIdle < 0 || k.HookWait < 0:
		return errors.New("-hook-idle and -hook-wait must not be negative")
	case k.Deadline <= 0:
		return errors.New("-deadline must be positive")
	}
	known := clis()
	for _, c := range k.CLIs {
		if known[c] == nil {
			return fmt.Errorf("-clis: unknown CLI %q (known: %s)", c, strings.Join(cliNames(), ", "))
		}
	}
	return nil
}

// Fleet names the fleet of a run: its CLI, or "mixed (a,b)", then what
// its agents do unlike the default ones (sub-agents, the CLIs' own
// checks, waiting, reading again).
func (k Knobs) Fleet() string {
	parts := []string{k.CLIs[0]}
	if len(k.CLIs) > 1 {
		parts[0] = "mixed (" + strings.Join(k.CLIs, ",") + ")"
	}
	if k.Subagents > 0 {
		parts = append(parts, fmt.Sprintf("%d sub-agents each", k.Subagents))
	}
	if k.CLIGuard {
		parts = append(parts, "the CLI's own stale-write check")
	}
	if k.WaitShare > 0 {
		parts = append(parts, fmt.Sprintf("waits %g", k.WaitShare))
	}
	if k.Reread {
		parts = append(parts, "re-reads")
	}
	return strings.Join(parts, ", ")
}

// Work names the work a run's agents do, whatever their CLIs: runs of the
// same work compare.
func (k Knobs) Work() string {
	return fmt.Sprintf("%d agents × %d sessions × %d turns × %d edits × %d threads, %d files (%d hot, %g)",
		k.Agents, k.Sessions, k.Turns, k.Edits, max(1, k.Subagents), k.Files, k.Hot, k.HotShare)
}

// splitList splits a comma-separated flag value, dropping empty items.
func splitList(v string) []string {
	var out []string
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}
