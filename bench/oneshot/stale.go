//go:build unix

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"
)

// runStale prints the cost of read versions (issue 34): the pre-edit hook
// of a Write whose session read the file (the check digests it: a file of
// 1 MiB, the most that is hashed, and one of 4 KiB) against the same hook
// with the check off (AGENTLOCK_STALE_WRITES=off), and the after-tool hook
// of a Read (which records the version) against the same hook after a
// tool that reads nothing (the renewal alone). Every row runs in every
// round, interleaved; the ratios are the medians of the per-round ratios.
func runStale(bin string, n int) error {
	flockBin, err := exec.LookPath("flock")
	if err != nil {
		return fmt.Errorf("flock(1) is the baseline and is not on PATH: %w", err)
	}
	dir, err := os.MkdirTemp("", "agentlock-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	b := &bench{bin: bin, flock: flockBin, dir: dir}
	for _, v := range []string{"AGENTLOCK_SESSION", "AGENT_REGISTRY_HOME", "AGENTLOCK_STALE_WRITES", "AGENTLOCK_STORE"} {
		os.Unsetenv(v)
	}
	home := b.home("home")
	off := append(slices.Clone(home), "AGENTLOCK_STALE_WRITES=off")
	src := filepath.Join(dir, "src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return err
	}
	// One file per row, so that no row's lock or version is another's.
	file := func(name string, size int) (string, error) {
		p := filepath.Join(src, name)
		data := make([]byte, size)
		for i := range data {
			data[i] = byte('a' + i%26)
		}
		return p, os.WriteFile(p, data, 0o644)
	}
	payload := func(session, event, tool, path string) string {
		return fmt.Sprintf(`{"session_id":%q,"cwd":%q,"hook_event_name":%q,"tool_name":%q,"tool_input":{"file_path":%q,"content":"x"}}`,
			session, dir, event, tool, path)
	}
	type row struct {
		name, session string
		size          int
		env           []string
	}
	rows := []row{
		{"pre-edit, check off, 1 MiB", "off-1m", 1 << 20, off},
		{"pre-edit, check on, 1 MiB", "on-1m", 1 << 20, home},
		{"pre-edit, check off, 4 KiB", "off-4k", 4 << 10, off},
		{"pre-edit, check on, 4 KiB", "on-4k", 4 << 10, home},
	}
	var scenarios []scenario
	for _, r := range rows {
		p, err := file(r.session, r.size)
		if err != nil {
			return err
		}
		// Each round, untimed, frees the lock the last edit took (so that
		// every timed run takes the lock anew) and reads the file again
		// (its version fresh, so that the timed pre-edit hook also marks
		// the edit it lets through as the session's own: a write of the
		// session's versions, as in an agent's read-then-write).
		read := payload(r.session, "PostToolUse", "Read", p)
		if err := b.do(r.env, read, bin, "hook", "claude", "renew"); err != nil {
			return err
		}
		scenarios = append(scenarios, scenario{name: r.name, env: r.env,
			setup: [][]string{{bin, "release", "--all", "--session", "claude-" + r.session},
				{"sh", "-c", "printf '%s' \"$1\" | \"$2\" hook claude renew", "sh", read, bin}},
			cmd: []string{bin, "hook", "claude", "pre-edit"}, stdin: payload(r.session, "PreToolUse", "Write", p)})
	}
	read1m, err := file("read-1m", 1<<20)
	if err != nil {
		return err
	}
	scenarios = append(scenarios,
		scenario{name: "after-tool, Bash (renewal only)", env: home, cmd: []string{bin, "hook", "claude", "renew"},
			stdin: payload("reader", "PostToolUse", "Bash", "")},
		scenario{name: "after-tool, Read of 1 MiB", env: home, cmd: []string{bin, "hook", "claude", "renew"},
			stdin: payload("reader", "PostToolUse", "Read", read1m)})
	times, err := b.rounds(scenarios, n)
	if err != nil {
		return err
	}
	fmt.Printf("%-34s %9s %9s %9s\n", "process", "median", "p10", "p90")
	for i, sc := range scenarios {
		fmt.Printf("%-34s %9s %9s %9s\n", sc.name, ms(median(times[i])), ms(pct(times[i], 10)), ms(pct(times[i], 90)))
	}
	ratio := func(on, off int) (float64, float64) {
		rs := make([]time.Duration, n)
		for i := range n {
			rs[i] = time.Duration(float64(time.Millisecond) * float64(times[on][i]) / float64(times[off][i]))
		}
		return float64(median(rs)) / float64(time.Millisecond), float64(pct(rs, 90)) / float64(time.Millisecond)
	}
	for _, pair := range []struct {
		what    string
		on, off int
	}{{"pre-edit with the check / without, 1 MiB", 1, 0}, {"pre-edit with the check / without, 4 KiB", 3, 2}, {"after-tool Read / renewal alone", 5, 4}} {
		m, p90 := ratio(pair.on, pair.off)
		fmt.Printf("%-44s %.2fx (p90 of the paired ratios %.2fx)\n", pair.what, m, p90)
	}
	fmt.Printf("(%d interleaved rounds; goal: the pre-edit hook with the check within 1.2x of it without)\n", n)
	return nil
}
