//go:build unix

// Command oneshot times whole one-shot processes side by side: agentlock
// commands against flock(1) running true, the cheapest process that takes a
// file lock. Runs are interleaved so that every command sees the same
// machine load, and the report gives medians and their ratio to flock(1),
// one row per line of issue 13's table. With -compare it times several
// builds side by side instead (issue 33: bench/run.sh compare).
//
//	go run ./bench/oneshot -agentlock ./agentlock -n 40
//	go run ./bench/oneshot -compare new=./agentlock,old=/tmp/agentlock-3c11506 -n 40
package main

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// scenario is one command timed per round. setup runs untimed before it.
type scenario struct {
	name  string
	goal  string // issue 13's goal for the row, printed beside it
	setup [][]string
	cmd   []string
	env   []string // added to the environment of setup and cmd
	stdin string   // fed to cmd (a hook's payload)
	// mayFail accepts a non-zero exit (check of a held path answers 1).
	mayFail bool
}

func main() {
	bin := flag.String("agentlock", "agentlock", "agentlock binary to time")
	n := flag.Int("n", 40, "interleaved rounds (pairs with flock(1)) per row")
	many := flag.Int("locks", 10000, "lock files in the folder of the status, finish and renew rows")
	contend := flag.Duration("contend", 3*time.Second, "how long 16 processes contend for one path")
	only := flag.String("only", "", "run only this part: table, wait, contention, etcd or stale (read versions: the pre-edit hook with the check against without)")
	floors := flag.String("floors", "", "comma-separated programs timed as floors: a Go hello-world, one linking agentlock's libraries")
	scanFloor := flag.String("scanfloor", "", "program timed as the floor of the status row: it reads every lock file of the folder it is given (bench/floor/scan)")
	etcdBin := flag.String("etcd-agentlock", "", "with -only etcd: the etcd build (agentlock-etcd), beside -agentlock")
	etcdURL := flag.String("etcd-url", "", "with -only etcd: the store URL of a running etcd (bench/etcdserver)")
	compare := flag.String("compare", "", "name=binary,name=binary...: time these builds side by side instead (version, acquire, release, pre-edit hook, init time)")
	flag.Parse()
	if *compare != "" {
		if err := runCompare(*compare, *floors, *n); err != nil {
			fmt.Fprintln(os.Stderr, "oneshot:", err)
			os.Exit(1)
		}
		return
	}
	if *only == "stale" {
		if err := runStale(*bin, *n); err != nil {
			fmt.Fprintln(os.Stderr, "oneshot:", err)
			os.Exit(1)
		}
		return
	}
	if *only == "etcd" {
		if err := runEtcd(*bin, *etcdBin, *etcdURL, *n); err != nil {
			fmt.Fprintln(os.Stderr, "oneshot:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*bin, *n, *many, *contend, *only, *floors, *scanFloor); err != nil {
		fmt.Fprintln(os.Stderr, "oneshot:", err)
		os.Exit(1)
	}
}

// bench holds the folders and the binaries of one run.
type bench struct {
	bin, flock, dir string
}

func run(bin string, n, many int, contend time.Duration, only, floors, scanFloor string) error {
	flockBin, err := exec.LookPath("flock")
	if err != nil {
		return fmt.Errorf("flock(1) is the baseline and is not on PATH: %w", err)
	}
	if bin, err = filepath.Abs(bin); err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "agentlock-bench-")
	if err != nil {
		return err
	}
	if os.Getenv("ONESHOT_KEEP") == "" {
		defer os.RemoveAll(dir)
	}
	b := &bench{bin: bin, flock: flockBin, dir: dir}
	small := b.home("small")
	big := b.home("big")
	// Every variable a session could be resolved from is cleared, so that
	// the machine's own agent does not leak into the runs.
	for _, v := range []string{"AGENTLOCK_SESSION", "AGENT_REGISTRY_HOME", "CLAUDE_SESSION_ID", "CODEX_SESSION_ID"} {
		os.Unsetenv(v)
	}

	if only == "wait" || only == "contention" {
		return b.waitAndContend(small, n, contend, only)
	}
	fmt.Fprintln(os.Stderr, "oneshot: registering 200 sessions...")
	for i := range 200 {
		id := fmt.Sprintf("session-%03d", i)
		if err := b.do(small, "", bin, "register", id, "vendor", "model-1", "working on "+id, "src/a,src/b", "task one,task two"); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "oneshot: writing %d lock files...\n", many)
	bigSession := "big-session"
	owned := []string{filepath.Join(dir, "big", "src", "own1.go"), filepath.Join(dir, "big", "src", "own2.go"), filepath.Join(dir, "big", "src", "own3.go")}
	if err := writeLocks(filepath.Join(dir, "big", "locks"), filepath.Join(dir, "big", "src"), many); err != nil {
		return err
	}
	if err := b.do(big, "", bin, "register", bigSession, "vendor", "model-1", "owning a few of many locks"); err != nil {
		return err
	}
	installed, err := installedHook(bin, filepath.Join(dir, "proj"))
	if err != nil {
		return err
	}

	target := filepath.Join(dir, "small", "src", "file.go")
	edited := filepath.Join(dir, "small", "src", "edited.go")
	regTarget := filepath.Join(dir, "small", "src", "registered.go")
	payload := func(session, event, file string) string {
		return fmt.Sprintf(`{"session_id":%q,"cwd":%q,"hook_event_name":%q,"tool_name":"Edit","tool_input":{"file_path":%q}}`, session, dir, event, file)
	}
	// The installed hook finds agentlock on PATH, by that name.
	binDir := filepath.Join(dir, "bin")
	if err := os.Mkdir(binDir, 0o755); err != nil {
		return err
	}
	if err := os.Symlink(bin, filepath.Join(binDir, "agentlock")); err != nil {
		return err
	}
	path := "PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH")
	// The unregistered session's id appears nowhere in the registry, as an
	// agent's generated id would not ("bench" would: every path here
	// holds it, and the registry lists paths).
	const solo = "solo-7f3a"
	acquireOwned := append([]string{bin, "acquire", "--session", bigSession}, owned...)
	scenarios := []scenario{
		{name: "flock(1) true", cmd: []string{flockBin, filepath.Join(dir, "baseline.lock"), "true"}},
		{name: "acquire", goal: "<= 1.5x", env: small, setup: [][]string{{bin, "release", target, solo}}, cmd: []string{bin, "acquire", target, solo}},
		{name: "release", goal: "<= 1.5x", env: small, setup: [][]string{{bin, "acquire", target, solo}}, cmd: []string{bin, "release", target, solo}},
		{name: "check", goal: "<= 1.5x", env: small, cmd: []string{bin, "check", target}, mayFail: true},
		{name: "heartbeat", goal: "<= 1.5x", env: small, setup: [][]string{{bin, "acquire", target, solo}}, cmd: []string{bin, "heartbeat", target, solo}},
		// A registered session's lock is mirrored in its do_not_touch: the
		// first acquire of a path writes the registry, the next ones (the
		// same file edited again) find it there.
		{name: "acquire (registered)", goal: "<= 2x", env: small, cmd: []string{bin, "acquire", regTarget, "session-010"}},
		{name: "hook pre-edit (registered)", goal: "<= 2x", env: small, cmd: []string{bin, "hook", "claude", "pre-edit"},
			stdin: payload("session-011", "PreToolUse", regTarget+".b")},
		{name: "hook pre-edit as installed", goal: "<= 2.2x", env: append(slices.Clone(small), path), cmd: []string{"sh", "-c", installed},
			stdin: payload("session-012", "PreToolUse", regTarget+".c")},
		{name: "hook pre-edit (unregistered)", env: small, setup: [][]string{{bin, "release", edited, "claude-bench"}}, cmd: []string{bin, "hook", "claude", "pre-edit"},
			stdin: payload("claude-bench", "PreToolUse", edited)},
		{name: "register (200 reg.)", goal: "<= 2x", env: small, cmd: []string{bin, "register", "session-000", "vendor", "model-2", "again"}},
		{name: "update (200 reg.)", goal: "<= 2x", env: small, cmd: []string{bin, "update", "session-001", "--todo-present", "task three"}},
		{name: fmt.Sprintf("status (%d locks)", many), goal: "<= 50ms", env: big, cmd: []string{bin, "status"}},
		{name: fmt.Sprintf("finish (%d locks, owns 3)", many), goal: "O(own)", env: big, setup: [][]string{acquireOwned}, cmd: []string{bin, "finish", bigSession}},
		{name: fmt.Sprintf("hook renew (%d locks, owns 3)", many), goal: "O(own)", env: big, setup: [][]string{acquireOwned}, cmd: []string{bin, "hook", "claude", "renew"},
			stdin: payload(bigSession, "PostToolUse", owned[0])},
		{name: fmt.Sprintf("heartbeat --all (%d, owns 3)", many), env: big, setup: [][]string{acquireOwned}, cmd: []string{bin, "heartbeat", "--all", "--session", bigSession}},
		// Floors, to read the ratios against: the same binary doing no
		// work, and one process making one durable copy of the registry
		// (write + fsync), which every registry write must do.
		{name: "floor: agentlock -h", cmd: []string{bin, "-h"}},
		{name: "floor: dd fsync", cmd: []string{"dd", "if=" + filepath.Join(dir, "small", "registry.md"), "of=" + filepath.Join(dir, "copy.md"), "conv=fsync", "status=none"}},
	}
	// Programs that do nothing, to read a row's start-up against: a Go
	// hello-world, and one that links the third-party libraries every
	// agentlock process links (cobra, the YAML and TOML libraries) without
	// using them.
	for _, f := range strings.Split(floors, ",") {
		if f != "" {
			scenarios = append(scenarios, scenario{name: "floor: " + filepath.Base(f), cmd: []string{f}})
		}
	}
	// What any consistent scan of the status row's folder costs: per
	// file a status, open, shared flock, read and close, nothing else.
	if scanFloor != "" {
		scenarios = append(scenarios, scenario{name: fmt.Sprintf("floor: scan (%d locks)", many), cmd: []string{scanFloor, filepath.Join(dir, "big", "locks")}})
	}
	// The registered rows time the renewal of a path already mirrored:
	// take it once before timing.
	for _, sc := range scenarios[5:8] {
		c := b.command(sc.env, sc.cmd)
		c.Stdin = strings.NewReader(sc.stdin)
		if out, err := c.CombinedOutput(); err != nil {
			return fmt.Errorf("%s: first run: %w: %s", sc.name, err, out)
		}
	}
	times, err := b.rounds(scenarios, n)
	if err != nil {
		return err
	}
	base := median(times[0])
	fmt.Printf("%-34s %9s %9s %9s %8s  %s\n", "process", "median", "p10", "p90", "ratio", "goal")
	for i, sc := range scenarios {
		m := median(times[i])
		fmt.Printf("%-34s %9s %9s %9s %7.2fx  %s\n", sc.name, ms(m), ms(pct(times[i], 10)), ms(pct(times[i], 90)),
			float64(m)/float64(base), sc.goal)
	}
	fmt.Printf("(median of %d interleaved rounds; ratios to flock(1) true)\n\n", n)
	if only == "table" {
		return nil
	}
	return b.waitAndContend(small, n, contend, "")
}

// runEtcd prints the etcd rows: acquire and release on a loopback etcd,
// one-shot, beside flock(1) and the same commands on lock files, and the
// start-up cost of the etcd build (agentlock version in both builds) and of
// the hand-over (the default build exec'ing the etcd build).
func runEtcd(bin, etcdBin, url string, n int) error {
	flockBin, err := exec.LookPath("flock")
	if err != nil {
		return fmt.Errorf("flock(1) is the baseline and is not on PATH: %w", err)
	}
	if etcdBin == "" || url == "" {
		return errors.New("-only etcd needs -etcd-agentlock and -etcd-url")
	}
	dir, err := os.MkdirTemp("", "agentlock-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	// The bench folder is the checkout the etcd rows lock files of.
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		return err
	}
	b := &bench{bin: bin, flock: flockBin, dir: dir}
	for _, v := range []string{"AGENTLOCK_SESSION", "AGENT_REGISTRY_HOME", "AGENTLOCK_STORE"} {
		os.Unsetenv(v)
	}
	files := b.home("small")
	etcd := []string{"AGENTLOCK_STORE=" + url + "?repo=bench"}
	target := filepath.Join(dir, "src", "file.go")
	const solo = "solo-7f3a"
	scenarios := []scenario{
		{name: "flock(1) true", cmd: []string{flockBin, filepath.Join(dir, "baseline.lock"), "true"}},
		{name: "files: acquire", env: files, setup: [][]string{{bin, "release", target, solo}}, cmd: []string{bin, "acquire", target, solo}},
		{name: "files: release", env: files, setup: [][]string{{bin, "acquire", target, solo}}, cmd: []string{bin, "release", target, solo}},
		// One binary that links etcd and dials it only for a project on
		// etcd (issue 23): the same lock-file calls, run by the etcd build.
		{name: "files: acquire, etcd linked", env: files, setup: [][]string{{etcdBin, "release", target, solo}}, cmd: []string{etcdBin, "acquire", target, solo}},
		{name: "files: release, etcd linked", env: files, setup: [][]string{{etcdBin, "acquire", target, solo}}, cmd: []string{etcdBin, "release", target, solo}},
		{name: "etcd: acquire", env: etcd, setup: [][]string{{etcdBin, "release", target, solo}}, cmd: []string{etcdBin, "acquire", target, solo}},
		{name: "etcd: release", env: etcd, setup: [][]string{{etcdBin, "acquire", target, solo}}, cmd: []string{etcdBin, "release", target, solo}},
		{name: "etcd: acquire via agentlock", env: etcd, setup: [][]string{{etcdBin, "release", target, solo}}, cmd: []string{bin, "acquire", target, solo}},
		{name: "start-up: agentlock version", cmd: []string{bin, "version"}},
		{name: "start-up: agentlock-etcd version", cmd: []string{etcdBin, "version"}},
	}
	times, err := b.rounds(scenarios, n)
	if err != nil {
		return err
	}
	base := median(times[0])
	fmt.Printf("%-34s %9s %9s %9s %8s %8s\n", "process", "median", "p10", "p90", "/flock", "/files")
	for i, sc := range scenarios {
		m := median(times[i])
		files := ""
		switch {
		case strings.Contains(sc.name, "acquire") && i > 2:
			files = fmt.Sprintf("%7.2fx", float64(m)/float64(median(times[1])))
		case strings.Contains(sc.name, "release") && i > 2:
			files = fmt.Sprintf("%7.2fx", float64(m)/float64(median(times[2])))
		}
		fmt.Printf("%-34s %9s %9s %9s %7.2fx %8s\n", sc.name, ms(m), ms(pct(times[i], 10)), ms(pct(times[i], 90)),
			float64(m)/float64(base), files)
	}
	fmt.Printf("(median of %d interleaved rounds; etcd: one member on loopback)\n", n)
	return nil
}

// rounds runs the scenarios n times, interleaved (each round runs every
// scenario once, its setup untimed), and returns each one's times.
func (b *bench) rounds(scenarios []scenario, n int) ([][]time.Duration, error) {
	times := make([][]time.Duration, len(scenarios))
	for round := range n {
		for i, sc := range scenarios {
			for _, s := range sc.setup {
				if err := b.do(sc.env, "", s...); err != nil {
					return nil, fmt.Errorf("%s: setup: %w", sc.name, err)
				}
			}
			c := b.command(sc.env, sc.cmd)
			c.Stdin = strings.NewReader(sc.stdin)
			var stderr bytes.Buffer
			c.Stderr = &stderr
			start := time.Now()
			err := c.Run()
			elapsed := time.Since(start)
			if err != nil && !sc.mayFail {
				return nil, fmt.Errorf("%s (round %d): %w: %s", sc.name, round, err, stderr.String())
			}
			if strings.Contains(stderr.String(), "not on PATH") {
				return nil, fmt.Errorf("%s: %s", sc.name, stderr.String())
			}
			times[i] = append(times[i], elapsed)
		}
	}
	return times, nil
}

// waitAndContend prints the --wait latency and the contention rows (only
// one of them when only names it).
func (b *bench) waitAndContend(small []string, n int, contend time.Duration, only string) error {
	if only != "contention" {
		lat, err := b.waitLatency(small, n)
		if err != nil {
			return err
		}
		fmt.Printf("acquire --wait, latency after the holder's release: median %s, max %s over %d (goal: median < 20ms)\n",
			ms(median(lat)), ms(slices.Max(lat)), len(lat))
	}
	if only != "wait" {
		al, fl, err := b.contention(small, contend)
		if err != nil {
			return err
		}
		fmt.Printf("one path, 16 contending processes: agentlock %.0f wins/s (acquire --wait + release), flock(1) %.0f wins/s (goal >= 100)\n", al, fl)
	}
	return nil
}

// home returns the environment of a workspace named name under the bench
// folder: its lock folder and its registry.
func (b *bench) home(name string) []string {
	return []string{
		"AGENT_REGISTRY_LOCK_DIR=" + filepath.Join(b.dir, name, "locks"),
		"AGENT_REGISTRY_PATH=" + filepath.Join(b.dir, name, "registry.md"),
	}
}

// command returns argv ready to run with env added, in the bench folder.
func (b *bench) command(env, argv []string) *exec.Cmd {
	c := exec.Command(argv[0], argv[1:]...)
	c.Env = append(os.Environ(), env...)
	c.Dir = b.dir
	return c
}

// do runs argv with env and stdin, untimed, and fails on a non-zero exit.
func (b *bench) do(env []string, stdin string, argv ...string) error {
	c := b.command(env, argv)
	c.Stdin = strings.NewReader(stdin)
	if out, err := c.CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %w: %s", strings.Join(argv, " "), err, out)
	}
	return nil
}

// writeLocks fills the lock folder dir with count lock files, as
// agent-registry 0.2 names and writes them, each held by one of 100 other
// sessions with a fresh stamp, for paths under src.
func writeLocks(dir, src string, count int) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	stamp := strconv.FormatFloat(float64(time.Now().UnixMicro())/1e6, 'f', 6, 64)
	for i := range count {
		p := filepath.Join(src, fmt.Sprintf("pkg%03d", i/100), fmt.Sprintf("file%05d.go", i))
		sum := sha256.Sum256([]byte(p))
		rec := fmt.Sprintf("other-%02d|%s|%s", i%100, stamp, p)
		if err := os.WriteFile(filepath.Join(dir, hex.EncodeToString(sum[:])[:16]+".lock"), []byte(rec), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// installedHook returns the command line of Claude Code's pre-edit hook as
// `agentlock init --agent claude` writes it into .claude/settings.json.
func installedHook(bin, proj string) (string, error) {
	if err := os.MkdirAll(filepath.Join(proj, ".git"), 0o755); err != nil {
		return "", err
	}
	c := exec.Command(bin, "init", "--agent", "claude")
	c.Dir = proj
	if out, err := c.CombinedOutput(); err != nil {
		return "", fmt.Errorf("agentlock init --agent claude: %w: %s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(proj, ".claude", "settings.json"))
	if err != nil {
		return "", err
	}
	var settings struct {
		Hooks map[string][]struct {
			Hooks []struct{ Command string }
		}
	}
	if err := json.Unmarshal(data, &settings); err != nil {
		return "", fmt.Errorf(".claude/settings.json: %w", err)
	}
	for _, m := range settings.Hooks["PreToolUse"] {
		for _, h := range m.Hooks {
			if strings.Contains(h.Command, "pre-edit") {
				// Claude Code runs the command through a shell.
				return h.Command, nil
			}
		}
	}
	return "", errors.New(".claude/settings.json: no pre-edit hook")
}

// waitLatency measures, rounds times, how long `acquire --wait` takes to
// return after another session's release process has exited.
func (b *bench) waitLatency(env []string, rounds int) ([]time.Duration, error) {
	p := filepath.Join(b.dir, "small", "src", "waited.go")
	var lat []time.Duration
	for range rounds {
		if err := b.do(env, "", b.bin, "acquire", p, "holder"); err != nil {
			return nil, err
		}
		w := b.command(env, []string{b.bin, "acquire", "--wait", "20s", p, "waiter"})
		if err := w.Start(); err != nil {
			return nil, err
		}
		// Long enough for the waiter to be refused and to watch the folder.
		time.Sleep(150 * time.Millisecond)
		if err := b.do(env, "", b.bin, "release", p, "holder"); err != nil {
			return nil, err
		}
		released := time.Now()
		if err := w.Wait(); err != nil {
			return nil, fmt.Errorf("acquire --wait: %w", err)
		}
		lat = append(lat, time.Since(released))
		if err := b.do(env, "", b.bin, "release", p, "waiter"); err != nil {
			return nil, err
		}
	}
	return lat, nil
}

// contention runs 16 processes at once for d, each taking one path in a
// loop (acquire --wait, then release), and returns the wins per second;
// then the same with flock(1) running true.
func (b *bench) contention(env []string, d time.Duration) (agentlock, flock float64, err error) {
	p := filepath.Join(b.dir, "small", "src", "contended.go")
	loop := func(argv func(i int) [][]string) (float64, error) {
		cpu0 := childrenCPU()
		ctx, cancel := context.WithTimeout(context.Background(), d)
		defer cancel()
		var wins atomic.Int64
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		start := time.Now()
		for i := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for ctx.Err() == nil {
					for _, a := range argv(i) {
						if out, err := b.command(env, a).CombinedOutput(); err != nil {
							errs <- fmt.Errorf("%s: %w: %s", strings.Join(a, " "), err, out)
							return
						}
					}
					wins.Add(1)
				}
			}()
		}
		wg.Wait()
		elapsed := time.Since(start)
		close(errs)
		if err := <-errs; err != nil {
			return 0, err
		}
		// The processor time of every process of the loop, per win: what
		// a win costs the machine, which the rate alone does not tell on
		// a loaded one.
		fmt.Fprintf(os.Stderr, "oneshot: %s: %d wins, %.1f ms of processor time per win\n",
			filepath.Base(argv(0)[0][0]), wins.Load(), float64(childrenCPU()-cpu0)/float64(time.Millisecond)/float64(max(wins.Load(), 1)))
		return float64(wins.Load()) / elapsed.Seconds(), nil
	}
	agentlock, err = loop(func(i int) [][]string {
		sid := fmt.Sprintf("contender-%02d", i)
		return [][]string{{b.bin, "acquire", "--wait", "30s", p, sid}, {b.bin, "release", p, sid}}
	})
	if err != nil {
		return 0, 0, err
	}
	flock, err = loop(func(int) [][]string { return [][]string{{b.flock, filepath.Join(b.dir, "contended.lock"), "true"}} })
	return agentlock, flock, err
}

// childrenCPU is the user and system time of the waited-for children of
// this process so far.
func childrenCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_CHILDREN, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func median(d []time.Duration) time.Duration { return pct(d, 50) }

// pct is the p-th percentile of v (nearest rank below).
func pct[T cmp.Ordered](v []T, p int) T {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[(len(s)-1)*p/100]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }
