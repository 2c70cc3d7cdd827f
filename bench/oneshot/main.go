// Command oneshot times whole one-shot processes side by side: agentlock
// commands against flock(1) running true, the cheapest process that takes a
// file lock. Runs are interleaved so that both see the same machine load, and
// the report gives medians and their ratio.
//
//	go run ./bench/oneshot -agentlock ./agentlock -n 300
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// scenario is one command timed per round. setup runs untimed before it.
type scenario struct {
	name  string
	setup []string
	cmd   []string
	stdin string // fed to cmd (a hook's payload)
}

func main() {
	bin := flag.String("agentlock", "agentlock", "agentlock binary to time")
	n := flag.Int("n", 300, "rounds")
	flag.Parse()
	if err := run(*bin, *n); err != nil {
		fmt.Fprintln(os.Stderr, "oneshot:", err)
		os.Exit(1)
	}
}

func run(bin string, n int) error {
	flockBin, err := exec.LookPath("flock")
	if err != nil {
		return fmt.Errorf("flock(1) is the baseline and is not on PATH: %w", err)
	}
	dir, err := os.MkdirTemp("", "agentlock-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	os.Setenv("AGENT_REGISTRY_LOCK_DIR", filepath.Join(dir, "locks"))
	os.Setenv("AGENT_REGISTRY_PATH", filepath.Join(dir, "registry.md"))
	target := filepath.Join(dir, "src", "file.go")
	edited := filepath.Join(dir, "src", "edited.go")
	// The registry scenarios run on a registry that holds 200 sessions.
	fmt.Fprintln(os.Stderr, "oneshot: registering 200 sessions...")
	for i := range 200 {
		id := fmt.Sprintf("session-%03d", i)
		if err := exec.Command(bin, "register", id, "vendor", "model-1", "working on "+id, "src/a,src/b", "task one,task two").Run(); err != nil {
			return fmt.Errorf("register %s: %w", id, err)
		}
	}
	scenarios := []scenario{
		{name: "flock(1) true", cmd: []string{flockBin, filepath.Join(dir, "baseline.lock"), "true"}},
		{name: "agentlock acquire", setup: []string{bin, "release", target, "bench"}, cmd: []string{bin, "acquire", target, "bench"}},
		{name: "agentlock release", setup: []string{bin, "acquire", target, "bench"}, cmd: []string{bin, "release", target, "bench"}},
		{name: "agentlock check", cmd: []string{bin, "check", target}},
		{name: "register (200 reg.)", cmd: []string{bin, "register", "session-000", "vendor", "model-2", "again"}},
		{name: "update (200 reg.)", cmd: []string{bin, "update", "session-001", "--todo-present", "task three"}},
		// What a Claude Code edit pays: the pre-edit hook, taking the lock.
		{name: "hook claude pre-edit", setup: []string{bin, "release", edited, "claude-bench"}, cmd: []string{bin, "hook", "claude", "pre-edit"},
			stdin: fmt.Sprintf(`{"session_id":"bench","cwd":%q,"hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":{"file_path":%q}}`, dir, edited)},
		// Floors, to read the ratios against: the same binary doing no
		// work, and one process making one durable copy of the registry
		// (write + fsync), which every registry write must do.
		{name: "floor: agentlock -h", cmd: []string{bin, "-h"}},
		{name: "floor: dd fsync", cmd: []string{"dd", "if=" + filepath.Join(dir, "registry.md"), "of=" + filepath.Join(dir, "copy.md"), "conv=fsync", "status=none"}},
	}
	times := make([][]time.Duration, len(scenarios))
	for round := range n {
		for i, sc := range scenarios {
			if sc.setup != nil {
				if err := exec.Command(sc.setup[0], sc.setup[1:]...).Run(); err != nil {
					return fmt.Errorf("%s: setup: %w", sc.name, err)
				}
			}
			c := exec.Command(sc.cmd[0], sc.cmd[1:]...)
			c.Stdin = strings.NewReader(sc.stdin)
			start := time.Now()
			err := c.Run()
			elapsed := time.Since(start)
			if err != nil && sc.name != "agentlock check" {
				return fmt.Errorf("%s (round %d): %w", sc.name, round, err)
			}
			times[i] = append(times[i], elapsed)
		}
	}
	base := median(times[0])
	fmt.Printf("%-20s %10s %10s %10s %8s\n", "process", "median", "p10", "p90", "ratio")
	for i, sc := range scenarios {
		m := median(times[i])
		fmt.Printf("%-20s %10s %10s %10s %7.2fx\n", sc.name, round(m), round(pct(times[i], 10)), round(pct(times[i], 90)),
			float64(m)/float64(base))
	}
	fmt.Printf("\nmedian one-shot acquire / flock(1): %.2fx (target 1.5x) over %d interleaved rounds\n",
		float64(median(times[1]))/float64(base), n)
	fmt.Printf("median register + update / 2 flock(1): %.2fx (target 2x)\n",
		float64(median(times[4])+median(times[5]))/float64(2*base))
	return nil
}

func median(d []time.Duration) time.Duration { return pct(d, 50) }

func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

func round(d time.Duration) time.Duration { return d.Round(10 * time.Microsecond) }
