package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// runner runs fleets: the agentlock binary under test, the binary that
// plays the agents (the simulator itself, or its test binary, re-executed
// with agentSpecEnv set), and where progress goes.
type runner struct {
	agentlock string
	self      string
	// env is added to the environment of every process of a run (a race
	// detector's setting, say).
	env []string
	// keep leaves each run's scratch folder in place, for a look.
	keep     bool
	progress io.Writer
}

// fleetRun is one run in progress: its folders, environment and agents.
type fleetRun struct {
	r       runner
	mode    Mode
	k       Knobs
	root    string
	repo    string
	home    string
	env     []string
	files   []string
	dirs    []string // each agent's working folder
	logs    [][]record
	samples []sample
}

// run runs one fleet in mode with knobs k in a scratch repository and
// measures it.
func (r runner) run(ctx context.Context, mode Mode, k Knobs) (Result, error) {
	if err := k.Validate(); err != nil {
		return Result{}, err
	}
	root, err := os.MkdirTemp("", "agentlock-fleet-")
	if err != nil {
		return Result{}, err
	}
	if !r.keep {
		defer os.RemoveAll(root)
	} else {
		fmt.Fprintf(r.progress, "  scratch folder kept: %s\n", root)
	}
	if root, err = filepath.EvalSymlinks(root); err != nil {
		return Result{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, k.Deadline)
	defer cancel()
	f := &fleetRun{r: r, mode: mode, k: k, root: root}
	if err := f.setUp(ctx); err != nil {
		return Result{}, err
	}
	took, err := f.runAgents(ctx)
	if err != nil {
		return Result{}, err
	}
	var m merge
	if mode.Worktrees {
		if m, err = f.merge(ctx); err != nil {
			return Result{}, err
		}
	}
	if k.InjectOverwrite > 0 {
		if err := injectOverwrite(f.repo, f.files, k.InjectOverwrite); err != nil {
			return Result{}, err
		}
	}
	if r.keep {
		if err := f.saveLogs(); err != nil {
			return Result{}, err
		}
	}
	present, err := tokensIn(f.repo, f.files)
	if err != nil {
		return Result{}, err
	}
	return measure(mode, k, f.logs, present, f.samples, took, m, root)
}

// setUp makes the scratch repository: the files, committed; the hooks of
// the fleet's CLIs when the mode has them; one worktree per agent when it
// has those.
func (f *fleetRun) setUp(ctx context.Context) error {
	f.repo, f.home = filepath.Join(f.root, "repo"), filepath.Join(f.root, "home")
	bin, tmp := filepath.Join(f.root, "bin"), filepath.Join(f.root, "tmp")
	for _, d := range []string{f.repo, f.home, bin, tmp, filepath.Join(f.repo, "src")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	// The hooks find agentlock on PATH, as in a real installation, in a
	// folder that holds nothing else.
	if err := os.Symlink(f.r.agentlock, filepath.Join(bin, "agentlock")); err != nil {
		return err
	}
	f.env = append([]string{"PATH=" + bin + ":/usr/local/bin:/usr/bin:/bin", "HOME=" + f.home, "TMPDIR=" + tmp, "LANG=C", "SHELL=/bin/sh",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=fleet", "GIT_AUTHOR_EMAIL=fleet@example.invalid",
		"GIT_COMMITTER_NAME=fleet", "GIT_COMMITTER_EMAIL=fleet@example.invalid"}, f.r.env...)
	f.env = append(append(f.env, f.mode.Env...), f.mode.hookEnv(f.k)...)
	for i := range f.k.Files {
		rel := filepath.Join("src", fmt.Sprintf("f%02d.txt", i))
		f.files = append(f.files, rel)
		if err := os.WriteFile(filepath.Join(f.repo, rel), startContent(i, f.k.Bytes), 0o644); err != nil {
			return err
		}
	}
	if err := f.git(ctx, f.repo, "init", "-q", "-b", "main"); err != nil {
		return err
	}
	if err := f.commitAll(ctx, f.repo, "start"); err != nil {
		return err
	}
	if f.mode.Hooks {
		if err := f.initHooks(ctx, f.repo); err != nil {
			return err
		}
		if err := f.commitAll(ctx, f.repo, "agentlock init"); err != nil {
			return err
		}
	}
	for i := range f.k.Agents {
		dir := f.repo
		if f.mode.Worktrees {
			dir = filepath.Join(f.root, fmt.Sprintf("wt-%02d", i))
			if err := f.git(ctx, f.repo, "worktree", "add", "-q", dir, "-b", branch(i)); err != nil {
				return err
			}
			if f.mode.Hooks {
				if err := f.initHooks(ctx, dir); err != nil {
					return err
				}
			}
		}
		f.dirs = append(f.dirs, dir)
	}
	return nil
}

// initHooks runs `agentlock init` for every CLI of the fleet in dir.
func (f *fleetRun) initHooks(ctx context.Context, dir string) error {
	args := []string{"init"}
	seen := map[string]bool{}
	for _, c := range f.k.CLIs {
		if !seen[c] {
			seen[c] = true
			args = append(args, "--agent", c)
		}
	}
	_, err := f.command(ctx, dir, f.r.agentlock, append(args, f.mode.InitArgs...)...)
	return err
}

func branch(i int) string { return fmt.Sprintf("agent-%02d", i) }

// startContent is file i at the start: a heading and filler lines up to
// size bytes.
func startContent(i, size int) []byte {
	b := []byte(fmt.Sprintf("# fleet file %02d\n", i))
	for n := 1; len(b) < size; n++ {
		b = append(b, fmt.Sprintf("line %03d of file %02d: nothing to see here, just text of a realistic size\n", n, i)...)
	}
	return b
}

// runAgents starts every agent, waits until each says it is ready, starts
// them all at once (closing their stdin), samples the lock holders
// meanwhile, and waits for them. It returns the fleet's working time.
func (f *fleetRun) runAgents(ctx context.Context) (time.Duration, error) {
	type proc struct {
		cmd    *exec.Cmd
		stdin  io.WriteCloser
		lines  *bufio.Scanner
		stderr bytes.Buffer
	}
	procs := make([]*proc, f.k.Agents)
	var rdv string
	if f.k.Rendezvous {
		rdv = filepath.Join(f.root, "rendezvous")
		if err := os.Mkdir(rdv, 0o755); err != nil {
			return 0, err
		}
	}
	defer func() {
		for _, p := range procs {
			if p != nil && p.cmd.ProcessState == nil {
				_ = p.cmd.Process.Kill()
				_ = p.cmd.Wait()
			}
		}
	}()
	for i := range procs {
		spec := agentSpec{Index: i, CLI: f.k.CLIs[i%len(f.k.CLIs)], Dir: f.dirs[i], Home: f.home, Files: f.files,
			Knobs: f.k, Env: f.env, Hooks: f.mode.Hooks, Commit: f.mode.Worktrees, Rendezvous: rdv}
		data, err := json.Marshal(spec)
		if err != nil {
			return 0, err
		}
		p := &proc{cmd: exec.CommandContext(ctx, f.r.self)}
		// The agent's own environment is the run's (its PATH finds the
		// CLIs' shells), plus its spec.
		p.cmd.Env = append(append([]string{}, f.env...), agentSpecEnv+"="+string(data))
		p.cmd.Stderr = &p.stderr
		// At the deadline an agent is asked to stop, so that it stops its
		// hooks too; killed if it does not within WaitDelay.
		p.cmd.Cancel = func() error { return p.cmd.Process.Signal(os.Interrupt) }
		p.cmd.WaitDelay = 5 * time.Second
		if p.stdin, err = p.cmd.StdinPipe(); err != nil {
			return 0, err
		}
		out, err := p.cmd.StdoutPipe()
		if err != nil {
			return 0, err
		}
		p.lines = bufio.NewScanner(out)
		p.lines.Buffer(make([]byte, 64<<10), 16<<20)
		if err := p.cmd.Start(); err != nil {
			return 0, fmt.Errorf("start agent %d: %w", i, err)
		}
		procs[i] = p
	}
	f.logs = make([][]record, len(procs))
	for i, p := range procs {
		if !p.lines.Scan() || !strings.Contains(p.lines.Text(), `"kind":"ready"`) {
			_ = p.cmd.Process.Kill()
			_ = p.cmd.Wait()
			return 0, fmt.Errorf("agent %d did not start: %s", i, strings.TrimSpace(p.stderr.String()))
		}
	}
	start := time.Now()
	for _, p := range procs {
		_ = p.stdin.Close()
	}
	stop := make(chan struct{})
	sampled := make(chan []sample, 1)
	go func() { sampled <- f.sample(ctx, stop) }()
	var wg sync.WaitGroup
	errs := make([]error, len(procs))
	var end time.Time
	var mu sync.Mutex
	for i, p := range procs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for p.lines.Scan() {
				var rec record
				if err := json.Unmarshal(p.lines.Bytes(), &rec); err != nil {
					errs[i] = fmt.Errorf("agent %d: bad log line %q: %w", i, p.lines.Text(), err)
					continue
				}
				f.logs[i] = append(f.logs[i], rec)
			}
			if err := p.cmd.Wait(); err != nil && errs[i] == nil {
				errs[i] = fmt.Errorf("agent %d: %w: %s", i, err, strings.TrimSpace(p.stderr.String()))
			}
			mu.Lock()
			if t := time.Now(); t.After(end) {
				end = t
			}
			mu.Unlock()
		}()
	}
	wg.Wait()
	close(stop)
	f.samples = <-sampled
	if err := errors.Join(errs...); err != nil {
		return 0, err
	}
	return end.Sub(start), ctx.Err()
}

// saveLogs writes each agent's log into the scratch folder (-keep), as
// agent-NN.jsonl.
func (f *fleetRun) saveLogs() error {
	for i, log := range f.logs {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		for _, rec := range log {
			if err := enc.Encode(rec); err != nil {
				return err
			}
		}
		if err := os.WriteFile(filepath.Join(f.root, fmt.Sprintf("agent-%02d.jsonl", i)), b.Bytes(), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// sample is one reading of the lock holders: when, and which session held
// which path.
type sample struct {
	at   time.Time
	held map[string]bool // session + "\x00" + path
}

// sample reads `agentlock status --json` every Sample until stop, in the
// modes with hooks. Reading what the hooks leave behind, whatever the
// lock-lifetime policy, is how hold times are measured without knowing it.
func (f *fleetRun) sample(ctx context.Context, stop <-chan struct{}) []sample {
	if !f.mode.Hooks || f.k.Sample <= 0 {
		return nil
	}
	var out []sample
	tick := time.NewTicker(f.k.Sample)
	defer tick.Stop()
	for {
		before := time.Now()
		cmd := exec.CommandContext(ctx, f.r.agentlock, "status", "--json")
		cmd.Dir, cmd.Env = f.repo, f.env
		data, err := cmd.Output()
		if err == nil {
			s := sample{at: before.Add(time.Since(before) / 2), held: map[string]bool{}}
			for _, line := range bytes.Split(data, []byte("\n")) {
				var rec struct {
					Kind, Path, State string
					SessionID         string `json:"session_id"`
				}
				if json.Unmarshal(line, &rec) != nil || rec.Kind != "lock" || rec.SessionID == "" {
					continue
				}
				// A stale lock (its owner stopped renewing it) is anyone's
				// to take: not held.
				if rec.State == "locked" || rec.State == "locked-by-me" {
					s.held[rec.SessionID+"\x00"+rec.Path] = true
				}
			}
			out = append(out, s)
		}
		select {
		case <-stop:
			return out
		case <-ctx.Done():
			return out
		case <-tick.C:
		}
	}
}

// merge is what merging the agents' branches into main cost and found.
type merge struct {
	took           time.Duration
	merges         int // merges that conflicted
	conflicts      int // conflicted files, summed over the merges
	files          int // distinct files that conflicted
	predictedFiles int // files `agentlock conflicts --predict` said would conflict
	predictedPairs int // pairs of worktrees it named, summed over the files
}

// merge asks `agentlock conflicts --predict` what merging the agents'
// branches will conflict on, then merges each branch into main in turn. A
// conflicted file is resolved as an agent redoing the incoming change on
// main's version would: main's lines, then the branch's new ones.
func (f *fleetRun) merge(ctx context.Context) (merge, error) {
	start := time.Now()
	var m merge
	out, err := f.command(ctx, f.repo, f.r.agentlock, "conflicts", "--predict", "--json")
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		return m, err
	}
	for _, line := range strings.Split(out, "\n") {
		var rec struct {
			Kind      string   `json:"kind"`
			Predicted []string `json:"predicted_conflicts"`
		}
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Kind == "conflict" && len(rec.Predicted) > 0 {
			m.predictedFiles++
			m.predictedPairs += len(rec.Predicted)
		}
	}
	conflicted := map[string]bool{}
	for i := range f.k.Agents {
		if _, err := f.command(ctx, f.repo, "git", "merge", "-q", "--no-edit", branch(i)); err == nil {
			continue
		}
		out, err := f.command(ctx, f.repo, "git", "diff", "--name-only", "--diff-filter=U")
		if err != nil {
			return m, err
		}
		files := strings.Fields(out)
		if len(files) == 0 {
			return m, fmt.Errorf("merge of %s failed with no conflicted file", branch(i))
		}
		m.merges++
		for _, file := range files {
			m.conflicts++
			conflicted[file] = true
			if err := f.resolve(ctx, file); err != nil {
				return m, err
			}
		}
		if err := f.git(ctx, f.repo, "commit", "-q", "--no-edit"); err != nil {
			return m, err
		}
	}
	m.files = len(conflicted)
	m.took = time.Since(start)
	return m, nil
}

// resolve resolves one conflicted file: main's side, then the lines the
// incoming side adds.
func (f *fleetRun) resolve(ctx context.Context, file string) error {
	ours, err := f.command(ctx, f.repo, "git", "show", ":2:"+file)
	if err != nil {
		return err
	}
	theirs, err := f.command(ctx, f.repo, "git", "show", ":3:"+file)
	if err != nil {
		return err
	}
	seen := map[string]bool{}
	var b strings.Builder
	for _, side := range []string{ours, theirs} {
		for _, line := range strings.SplitAfter(side, "\n") {
			if line != "" && !seen[line] {
				seen[line] = true
				b.WriteString(line)
			}
		}
	}
	if err := os.WriteFile(filepath.Join(f.repo, file), []byte(b.String()), 0o644); err != nil {
		return err
	}
	return f.git(ctx, f.repo, "add", file)
}

func (f *fleetRun) git(ctx context.Context, dir string, args ...string) error {
	_, err := f.command(ctx, dir, "git", args...)
	return err
}

func (f *fleetRun) commitAll(ctx context.Context, dir, msg string) error {
	if err := f.git(ctx, dir, "add", "-A"); err != nil {
		return err
	}
	return f.git(ctx, dir, "commit", "-q", "-m", msg)
}

// command runs one set-up or merge command in the run's environment and
// returns its stdout.
func (f *fleetRun) command(ctx context.Context, dir, prog string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Dir, cmd.Env = dir, f.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return out.String(), fmt.Errorf("%s %s: %w: %s", filepath.Base(prog), strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// tokenPrefix starts every line an agent's write adds.
const tokenPrefix = "fleet-token "

// tokensIn returns every token line in the files, by token, with the file
// that holds it.
func tokensIn(dir string, files []string) (map[string]string, error) {
	present := map[string]string{}
	for _, rel := range files {
		data, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			return nil, err
		}
		for _, line := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(line, tokenPrefix) {
				present[line] = rel
			}
		}
	}
	return present, nil
}

// injectOverwrite is the self-test's overwrite: the file with the most
// tokens loses its last n token lines, as if an agent had written back
// what it read before those writes.
func injectOverwrite(dir string, files []string, n int) error {
	best, most := "", -1
	sorted := append([]string{}, files...)
	sort.Strings(sorted)
	for _, rel := range sorted {
		data, err := os.ReadFile(filepath.Join(dir, rel))
		if err != nil {
			return err
		}
		if c := strings.Count(string(data), "\n"+tokenPrefix); c > most {
			best, most = rel, c
		}
	}
	if most < n {
		return fmt.Errorf("inject overwrite: no file has %d token lines (at most %d)", n, most)
	}
	path := filepath.Join(dir, best)
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := strings.SplitAfter(string(data), "\n")
	for i := len(lines) - 1; i >= 0 && n > 0; i-- {
		if strings.HasPrefix(lines[i], tokenPrefix) {
			lines = append(lines[:i], lines[i+1:]...)
			n--
		}
	}
	return os.WriteFile(path, []byte(strings.Join(lines, "")), 0o644)
}
