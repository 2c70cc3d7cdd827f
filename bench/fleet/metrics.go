package main

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"time"
)

// Result is what one run measured. Times are in milliseconds, or seconds
// where the name says so.
type Result struct {
	Mode   string `json:"mode"`
	Fleet  string `json:"fleet"` // the CLIs, and sub-agents: "claude", "mixed (claude,gemini,codex)", "claude, 2 sub-agents each"
	Agents int    `json:"agents"`
	// Work is what the agents do (Knobs.Work): the uncoordinated run of
	// the same work is what Relative compares with.
	Work string `json:"work"`
	// Accepted are the writes the CLI carried out; Lost those of them
	// whose line is missing at the end; Surviving the rest.
	Accepted  int     `json:"accepted"`
	Lost      int     `json:"lost"`
	Surviving int     `json:"surviving"`
	LostShare float64 `json:"lost_share"`
	// Seconds is the fleet's working time, start to the last agent's
	// exit, plus the merge in the worktrees mode (MergeSeconds: git's time
	// plus one Think per conflicted file, its resolution).
	Seconds      float64 `json:"seconds"`
	MergeSeconds float64 `json:"merge_seconds,omitempty"`
	// Throughput is surviving writes per second; Relative the same over
	// the uncoordinated fleet's doing the same work (0 when it was not
	// run).
	Throughput float64 `json:"throughput"`
	Relative   float64 `json:"relative,omitempty"`
	// Refusals are refused write attempts (by a hook, or by the CLI's own
	// check with -cli-guard), per accepted write in RefusalsPerWrite.
	Refusals         int     `json:"refusals"`
	RefusalsPerWrite float64 `json:"refusals_per_write"`
	StaleRefusals    int     `json:"stale_refusals"`
	// Redone are changes made again on a file's new content: after a
	// stale refusal (Redos), or to resolve a merge conflict (Conflicts).
	Redone    int `json:"redone"`
	Redos     int `json:"redos"`
	Told      int `json:"told,omitempty"` // times a hook's note made the model read a file again
	Abandoned int `json:"abandoned"`
	Waits     int `json:"waits"` // `agentlock acquire --wait` commands run
	// WaitP50/P99: per accepted write, the time from its first refusal
	// to its acceptance (0 for a write never refused).
	WaitP50 float64 `json:"wait_p50_ms"`
	WaitP99 float64 `json:"wait_p99_ms"`
	// HoldP50/P99: how long a session held a lock, from `agentlock
	// status` samples (resolution: the sample interval). Holds is how
	// many holds were seen.
	Holds   int     `json:"holds"`
	HoldP50 float64 `json:"hold_p50_ms"`
	HoldP99 float64 `json:"hold_p99_ms"`
	// HookP50/P99: one hook process, the CLI's shell included, start to
	// exit; Hooks is how many ran.
	Hooks   int     `json:"hooks"`
	HookP50 float64 `json:"hook_p50_ms"`
	HookP99 float64 `json:"hook_p99_ms"`
	// Conflicts (worktrees): conflicted files summed over the merges,
	// ConflictFiles distinct; Predicted*: `agentlock conflicts --predict`
	// before the merge.
	Conflicts      int  `json:"conflicts,omitempty"`
	ConflictMerges int  `json:"conflict_merges,omitempty"`
	ConflictFiles  int  `json:"conflict_files,omitempty"`
	PredictedFiles int  `json:"predicted_files,omitempty"`
	PredictedPairs int  `json:"predicted_pairs,omitempty"`
	Lossless       bool `json:"lossless"`
	// Refusal is the first refusal the run saw, its scratch folder
	// written as <repo>: what the model read.
	Refusal string `json:"refusal,omitempty"`
}

// measure turns the agents' logs, the tokens found at the end, the lock
// samples and the merge into a Result.
func measure(mode Mode, k Knobs, logs [][]record, present map[string]string, samples []sample, took time.Duration, m merge, root string) (Result, error) {
	r := Result{Mode: mode.Name, Fleet: k.Fleet(), Agents: k.Agents, Work: k.Work(), Lossless: mode.Lossless,
		Conflicts: m.conflicts, ConflictMerges: m.merges, ConflictFiles: m.files, PredictedFiles: m.predictedFiles, PredictedPairs: m.predictedPairs}
	accepted := map[string]bool{}
	var waits, hooks []float64
	for _, log := range logs {
		for _, rec := range log {
			switch rec.Kind {
			case "write":
				if accepted[rec.Token] {
					return r, fmt.Errorf("token %q accepted twice", rec.Token)
				}
				accepted[rec.Token] = true
				waits = append(waits, ms(rec.Waited))
			case "refusal":
				r.Refusals++
				if rec.Class == "stale" {
					r.StaleRefusals++
				}
				if r.Refusal == "" {
					r.Refusal = strings.ReplaceAll(rec.Reason, root, "<tmp>")
				}
			case "redo":
				r.Redos++
			case "told":
				r.Told++
			case "abandon":
				r.Abandoned++
			case "wait":
				r.Waits++
			case "hook":
				hooks = append(hooks, ms(rec.Took))
			}
		}
	}
	for token := range present {
		if !accepted[token] {
			return r, fmt.Errorf("the files hold %q, which no accepted write added: the simulator miscounts", token)
		}
	}
	r.Accepted = len(accepted)
	for token := range accepted {
		if _, ok := present[token]; !ok {
			r.Lost++
		}
	}
	r.Surviving = r.Accepted - r.Lost
	r.Redone = r.Redos + r.Conflicts
	if r.Accepted > 0 {
		r.LostShare = float64(r.Lost) / float64(r.Accepted)
		r.RefusalsPerWrite = float64(r.Refusals) / float64(r.Accepted)
	}
	merged := m.took + time.Duration(m.conflicts)*k.Think
	r.MergeSeconds = merged.Seconds()
	r.Seconds = (took + merged).Seconds()
	if r.Seconds > 0 {
		r.Throughput = float64(r.Surviving) / r.Seconds
	}
	r.WaitP50, r.WaitP99 = percentile(waits, 50), percentile(waits, 99)
	r.Hooks, r.HookP50, r.HookP99 = len(hooks), percentile(hooks, 50), percentile(hooks, 99)
	holds := holdTimes(samples)
	r.Holds, r.HoldP50, r.HoldP99 = len(holds), percentile(holds, 50), percentile(holds, 99)
	return r, nil
}

// holdTimes are the lock holds the samples saw, in milliseconds: a hold
// lasts from the first sample that shows it to the first that no longer
// does (or the last sample).
func holdTimes(samples []sample) []float64 {
	var out []float64
	since := map[string]time.Time{}
	for _, s := range samples {
		for key, t := range since {
			if !s.held[key] {
				out = append(out, float64(s.at.Sub(t))/float64(time.Millisecond))
				delete(since, key)
			}
		}
		for key := range s.held {
			if _, ok := since[key]; !ok {
				since[key] = s.at
			}
		}
	}
	if len(samples) > 0 {
		last := samples[len(samples)-1].at
		for _, t := range since {
			out = append(out, float64(last.Sub(t))/float64(time.Millisecond))
		}
	}
	return out
}

// percentile is the nearest-rank percentile p of v (0 for none).
func percentile(v []float64, p float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64{}, v...)
	sort.Float64s(s)
	i := int(math.Ceil(p/100*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}

func ms(ns int64) float64 { return float64(ns) / float64(time.Millisecond) }

// relate sets each result's Relative against the uncoordinated run of the
// same work.
func relate(results []Result) {
	base := map[string]float64{}
	for _, r := range results {
		if r.Mode == "none" {
			base[r.Work] = r.Throughput
		}
	}
	for i := range results {
		if b := base[results[i].Work]; b > 0 {
			results[i].Relative = results[i].Throughput / b
		}
	}
}
