//go:build unix

package main

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/agentlock/agentlock/internal/sys/filedigest"
)

// build is one agentlock binary of a side-by-side run (-compare), with the
// project and the environment its commands run in.
type build struct {
	name, bin string
	proj      string   // a git checkout set up by this build's init --agent claude
	env       []string // the whole environment of its processes
}

// compareOp is one operation timed for every build, each run paired with
// one flock(1) run.
type compareOp struct {
	name string
	// floor marks a program that is no build's (a Go hello-world...): it
	// is timed once a round, in the first build's folder.
	floor bool
	setup func(b build) [][]string // untimed, before each run
	cmd   func(b build) []string
	stdin func(b build) string
}

// The session of the compared lock calls and the hook's Claude session.
const (
	compareSession = "solo-7f3a"
	claudeSession  = "7f3a9c2e-bench"
)

// parseBuilds reads -compare: name=binary pairs, comma-separated.
func parseBuilds(spec string) ([]build, error) {
	var builds []build
	for _, part := range strings.Split(spec, ",") {
		name, bin, ok := strings.Cut(part, "=")
		if !ok || name == "" || bin == "" {
			return nil, fmt.Errorf("-compare %q: want name=binary[,name=binary...]", spec)
		}
		abs, err := filepath.Abs(bin)
		if err != nil {
			return nil, err
		}
		builds = append(builds, build{name: name, bin: abs})
	}
	return builds, nil
}

// runCompare times the builds side by side: `agentlock version`, an
// acquire and a release of one file, the pre-edit hook that init --agent
// claude registers, run as Claude Code runs it (`agentlock hook claude
// pre-edit`, a payload on stdin), and the after-tool hook of a session
// that read 1, 50 and 200 files (readViews). Every timed run is paired with a
// flock(1) run next to it (which of the two goes first alternates by
// round), the pairs of a round run in a shuffled order, and each row gives
// the median and 90th percentile of the paired ratios: the ratio of a pair
// shares the machine's state of that moment, which the ratio of two
// medians does not. floors, comma-separated programs, are timed the same
// way once a round (bench/floor: a Go hello-world, one linking cobra and
// the YAML and TOML libraries). Then each build's size and its Go package
// initialisation (GODEBUG=inittrace=1, median of n runs).
func runCompare(spec, floors string, n int) error {
	builds, err := parseBuilds(spec)
	if err != nil {
		return err
	}
	flockBin, err := exec.LookPath("flock")
	if err != nil {
		return fmt.Errorf("flock(1) is the baseline and is not on PATH: %w", err)
	}
	dir, err := os.MkdirTemp("", "agentlock-compare-")
	if err != nil {
		return err
	}
	if os.Getenv("ONESHOT_KEEP") == "" {
		defer os.RemoveAll(dir)
	}
	for i := range builds {
		if err := builds[i].prepare(filepath.Join(dir, strconv.Itoa(i))); err != nil {
			return fmt.Errorf("%s: %w", builds[i].name, err)
		}
	}
	file := func(b build) string { return filepath.Join(b.proj, "src", "file.go") }
	edited := func(b build) string { return filepath.Join(b.proj, "src", "edited.go") }
	ops := []compareOp{
		{name: "agentlock version", cmd: func(b build) []string { return []string{b.bin, "version"} }},
		{name: "acquire",
			setup: func(b build) [][]string { return [][]string{{b.bin, "release", file(b), compareSession}} },
			cmd:   func(b build) []string { return []string{b.bin, "acquire", file(b), compareSession} }},
		{name: "release",
			setup: func(b build) [][]string { return [][]string{{b.bin, "acquire", file(b), compareSession}} },
			cmd:   func(b build) []string { return []string{b.bin, "release", file(b), compareSession} }},
		{name: "hook claude pre-edit",
			cmd:   func(b build) []string { return []string{b.bin, "hook", "claude", "pre-edit"} },
			stdin: func(b build) string { return claudePayload(b.proj, "PreToolUse", edited(b)) }},
	}
	// The after-tool hook of a session that read n files (issue 34's
	// notice looks at every one of them after every tool call).
	for _, n := range viewCounts {
		ops = append(ops, compareOp{name: fmt.Sprintf("after-tool, %d read", n),
			cmd:   func(b build) []string { return []string{b.bin, "hook", "claude", "renew"} },
			stdin: func(b build) string { return afterToolPayload(b.proj, viewsSession(n), "Bash", "") }})
	}
	if err := readViews(builds); err != nil {
		return err
	}
	// Floors: what any Go program, and any linking the design card's
	// command-line libraries, costs to start, to read the rows against.
	for _, f := range strings.Split(floors, ",") {
		if f != "" {
			ops = append(ops, compareOp{name: "floor: " + filepath.Base(f), floor: true, cmd: func(build) []string { return []string{f} }})
		}
	}
	// The edited file is taken once before timing: the timed hook is the
	// next edit of a file the session holds (no registry write). No
	// session-start hook runs: it would record this process as the
	// agent's, and the lock calls, which name their session, would then
	// be refused for naming another.
	for _, b := range builds {
		if err := b.run(claudePayload(b.proj, "PreToolUse", edited(b)), b.bin, "hook", "claude", "pre-edit"); err != nil {
			return fmt.Errorf("%s: %w", b.name, err)
		}
	}

	// ratios[op][build], runs[op][build] and flocks[op][build]: one
	// entry a round.
	ratios := make([][][]float64, len(ops))
	runs := make([][][]usage, len(ops))
	flocks := make([][][]usage, len(ops))
	for i := range ops {
		ratios[i] = make([][]float64, len(builds))
		runs[i] = make([][]usage, len(builds))
		flocks[i] = make([][]usage, len(builds))
	}
	type pair struct{ op, build int }
	var order []pair
	for i, op := range ops {
		for j := range builds {
			if !op.floor || j == 0 {
				order = append(order, pair{i, j})
			}
		}
	}
	shuffle := rand.New(rand.NewPCG(1, 2))
	baseline := []string{flockBin, filepath.Join(dir, "baseline.lock"), "true"}
	fmt.Fprintf(os.Stderr, "oneshot: %d rounds of %d pairs...\n", n, len(order))
	for round := range n {
		shuffle.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		for _, p := range order {
			op, b := ops[p.op], builds[p.build]
			if op.setup != nil {
				for _, s := range op.setup(b) {
					if err := b.run("", s...); err != nil {
						return fmt.Errorf("%s, %s: setup: %w", op.name, b.name, err)
					}
				}
			}
			stdin := ""
			if op.stdin != nil {
				stdin = op.stdin(b)
			}
			var t, f usage
			var err error
			if round%2 == 0 {
				if f, err = b.timed("", baseline); err == nil {
					t, err = b.timed(stdin, op.cmd(b))
				}
			} else {
				if t, err = b.timed(stdin, op.cmd(b)); err == nil {
					f, err = b.timed("", baseline)
				}
			}
			if err != nil {
				return fmt.Errorf("%s, %s (round %d): %w", op.name, b.name, round, err)
			}
			ratios[p.op][p.build] = append(ratios[p.op][p.build], float64(t.wall)/float64(f.wall))
			runs[p.op][p.build] = append(runs[p.op][p.build], t)
			flocks[p.op][p.build] = append(flocks[p.op][p.build], f)
		}
	}

	fmt.Printf("%-22s %-16s %9s %9s %13s %10s %9s %7s\n", "operation", "build", "flock(1)", "median", "ratio median", "ratio p90", "cpu", "faults")
	for i, op := range ops {
		for j, b := range builds {
			r, u := ratios[i][j], runs[i][j]
			if op.floor {
				if j > 0 {
					continue
				}
				b.name = "-"
			}
			fmt.Printf("%-22s %-16s %9s %9s %12.2fx %9.2fx %9s %7d\n", op.name, b.name, ms(median(wallOf(flocks[i][j]))), ms(median(wallOf(u))),
				pct(r, 50), pct(r, 90), ms(median(cpuOf(u))), int64(pct(faultsOf(u), 50)))
		}
	}
	fmt.Printf("(%d interleaved rounds; each run paired with a flock(1) run beside it; ratios of the pairs' wall times;\n"+
		" cpu and faults: the median process's user+system time and minor page faults; flock(1): %s cpu, %d faults)\n\n",
		n, ms(median(cpuOf(flocks[0][0]))), int64(pct(faultsOf(flocks[0][0]), 50)))
	return compareInit(builds, n)
}

// viewCounts are the numbers of files read by the sessions of the
// after-tool rows, each file of viewSize bytes.
var viewCounts = []int{1, 50, 200}

const viewSize = 64 << 10

// viewsSession is the Claude session of the after-tool row of n files.
func viewsSession(n int) string { return fmt.Sprintf("7f3a9c2e-views%d", n) }

// readViews writes, in each build's project, the files of the after-tool
// rows and has each row's session read them (Claude's Read, through the
// build's own after-tool hook). The files are written first and read once
// they are older than two seconds: a session's steady state, in which a
// build that records a file's status with its read version can trust it
// (filedigest.RacyMargin).
func readViews(builds []build) error {
	data := make([]byte, viewSize)
	for i := range data {
		data[i] = byte('a' + i%26)
	}
	file := func(b build, n, i int) string {
		return filepath.Join(b.proj, "src", fmt.Sprintf("views%d", n), fmt.Sprintf("f%03d.go", i))
	}
	for _, b := range builds {
		for _, n := range viewCounts {
			for i := range n {
				if err := os.MkdirAll(filepath.Dir(file(b, n, i)), 0o755); err != nil {
					return err
				}
				if err := os.WriteFile(file(b, n, i), data, 0o644); err != nil {
					return err
				}
			}
		}
	}
	time.Sleep(filedigest.RacyMargin + 100*time.Millisecond)
	for _, b := range builds {
		for _, n := range viewCounts {
			for i := range n {
				if err := b.run(afterToolPayload(b.proj, viewsSession(n), "Read", file(b, n, i)), b.bin, "hook", "claude", "renew"); err != nil {
					return fmt.Errorf("%s: %w", b.name, err)
				}
			}
		}
	}
	return nil
}

// afterToolPayload is Claude Code's PostToolUse hook input of tool (on
// file, when not "") for session.
func afterToolPayload(proj, session, tool, file string) string {
	input := `{"command":"ls"}`
	if file != "" {
		input = fmt.Sprintf(`{"file_path":%q}`, file)
	}
	return fmt.Sprintf(`{"session_id":%q,"cwd":%q,"hook_event_name":"PostToolUse","tool_name":%q,"tool_input":%s,"tool_response":{"type":"text"}}`,
		session, proj, tool, input)
}

// prepare gives the build its own folder: a home, a PATH on which
// `agentlock` is this build (the hooks init writes look it up there), and
// a git checkout set up by its own init --agent claude.
func (b *build) prepare(dir string) error {
	home, bin := filepath.Join(dir, "home"), filepath.Join(dir, "bin")
	b.proj = filepath.Join(dir, "proj")
	for _, d := range []string{home, bin, filepath.Join(b.proj, ".git"), filepath.Join(b.proj, "src")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := os.Symlink(b.bin, filepath.Join(bin, "agentlock")); err != nil {
		return err
	}
	// Only what a process needs: nothing of this machine's own agent
	// session (its variables would name the session) leaks in.
	b.env = []string{"PATH=" + bin + string(os.PathListSeparator) + "/usr/bin:/bin", "HOME=" + home, "TMPDIR=" + os.TempDir()}
	return b.run("", b.bin, "init", "--agent", "claude")
}

// claudePayload is Claude Code's hook input for event on file.
func claudePayload(proj, event, file string) string {
	return fmt.Sprintf(`{"session_id":%q,"cwd":%q,"hook_event_name":%q,"tool_name":"Edit","tool_input":{"file_path":%q}}`,
		claudeSession, proj, event, file)
}

// command returns argv in the build's project, with its environment.
func (b build) command(stdin string, argv []string) *exec.Cmd {
	c := exec.Command(argv[0], argv[1:]...)
	c.Env, c.Dir, c.Stdin = b.env, b.proj, strings.NewReader(stdin)
	return c
}

// run runs argv untimed and fails on a non-zero exit.
func (b build) run(stdin string, argv ...string) error {
	if out, err := b.command(stdin, argv).CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, out)
	}
	return nil
}

// usage is what one process cost: wall time from start to exit, its
// processor time (user and system) and its minor page faults. The last two
// depend less on the machine's load than the first.
type usage struct {
	wall, cpu time.Duration
	faults    int64
}

// timed runs argv once and returns what the process cost; a non-zero exit
// is an error.
func (b build) timed(stdin string, argv []string) (usage, error) {
	c := b.command(stdin, argv)
	var stderr bytes.Buffer
	c.Stderr = &stderr
	start := time.Now()
	err := c.Run()
	elapsed := time.Since(start)
	if err != nil {
		return usage{}, fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, stderr.String())
	}
	u := usage{wall: elapsed, cpu: c.ProcessState.UserTime() + c.ProcessState.SystemTime()}
	if ru, ok := c.ProcessState.SysUsage().(*syscall.Rusage); ok {
		u.faults = ru.Minflt
	}
	return u, nil
}

// initTrace is one process's GODEBUG=inittrace=1 report: each package's
// initialisation time (the clock column) and the bytes it allocated.
type initTrace struct {
	clock map[string]float64 // milliseconds
	total float64
	bytes int64
}

// traceInit runs `agentlock version` with GODEBUG=inittrace=1 and parses
// its report: lines of the form
// "init <package> @<t> ms, <clock> ms clock, <bytes> bytes, <allocs> allocs".
func (b build) traceInit() (initTrace, error) {
	c := b.command("", []string{b.bin, "version"})
	c.Env = append(slices.Clone(b.env), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	c.Stderr = &stderr
	if err := c.Run(); err != nil {
		return initTrace{}, fmt.Errorf("%s version: %w: %s", b.bin, err, stderr.String())
	}
	t := initTrace{clock: map[string]float64{}}
	for _, line := range strings.Split(stderr.String(), "\n") {
		f := strings.Fields(line)
		if len(f) < 9 || f[0] != "init" || f[6] != "clock," {
			continue
		}
		clock, err1 := strconv.ParseFloat(f[4], 64)
		size, err2 := strconv.ParseInt(f[7], 10, 64)
		if err := errors.Join(err1, err2); err != nil {
			return initTrace{}, fmt.Errorf("inittrace line %q: %w", line, err)
		}
		t.clock[f[1]] += clock
		t.total += clock
		t.bytes += size
	}
	if len(t.clock) == 0 {
		return initTrace{}, fmt.Errorf("%s version: no inittrace lines on stderr", b.bin)
	}
	return t, nil
}

// compareInit prints each build's size and package initialisation: the
// median over n runs (interleaved across builds) of the total, and the
// packages with the largest median.
func compareInit(builds []build, n int) error {
	traces := make([][]initTrace, len(builds))
	for range n {
		for j, b := range builds {
			t, err := b.traceInit()
			if err != nil {
				return err
			}
			traces[j] = append(traces[j], t)
		}
	}
	fmt.Printf("%-16s %10s %8s %12s %10s  %s\n", "build", "size", "packages", "init median", "init p90", "largest package inits (median ms)")
	for j, b := range builds {
		st, err := os.Stat(b.bin)
		if err != nil {
			return err
		}
		var totals []float64
		var bytesAlloc []float64
		perPkg := map[string][]float64{}
		for _, t := range traces[j] {
			totals = append(totals, t.total)
			bytesAlloc = append(bytesAlloc, float64(t.bytes))
			for p, c := range t.clock {
				perPkg[p] = append(perPkg[p], c)
			}
		}
		type pkgTime struct {
			name string
			ms   float64
		}
		var pkgs []pkgTime
		for p, cs := range perPkg {
			for len(cs) < len(traces[j]) {
				cs = append(cs, 0)
			}
			pkgs = append(pkgs, pkgTime{p, pct(cs, 50)})
		}
		slices.SortFunc(pkgs, func(a, b pkgTime) int {
			if a.ms != b.ms {
				if a.ms > b.ms {
					return -1
				}
				return 1
			}
			return strings.Compare(a.name, b.name)
		})
		var top []string
		for _, p := range pkgs[:min(8, len(pkgs))] {
			top = append(top, fmt.Sprintf("%s %.3f", p.name, p.ms))
		}
		fmt.Printf("%-16s %8.2fMB %8d %10.3fms %8.3fms  %s\n", b.name, float64(st.Size())/1e6, len(perPkg),
			pct(totals, 50), pct(totals, 90), strings.Join(top, ", "))
		fmt.Printf("%-16s %10s %8s %12s %10s  allocated at init: %.0f KB (median)\n", "", "", "", "", "", pct(bytesAlloc, 50)/1024)
	}
	fmt.Printf("(GODEBUG=inittrace=1 agentlock version, %d runs each; size in 10^6 bytes)\n", n)
	return nil
}

func wallOf(u []usage) []time.Duration {
	return mapUsage(u, func(x usage) time.Duration { return x.wall })
}
func cpuOf(u []usage) []time.Duration {
	return mapUsage(u, func(x usage) time.Duration { return x.cpu })
}
func faultsOf(u []usage) []float64 {
	return mapUsage(u, func(x usage) float64 { return float64(x.faults) })
}

func mapUsage[T any](u []usage, f func(usage) T) []T {
	out := make([]T, len(u))
	for i, x := range u {
		out[i] = f(x)
	}
	return out
}
