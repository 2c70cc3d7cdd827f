// Command worktrees times agentlock's pre-edit hook as whole processes in a
// repository without linked worktrees and in repositories with four
// worktrees (issue 26: within 2x), interleaved, and prints the medians.
// It makes its repositories in a temporary folder with the git binary.
//
// Usage: go run ./bench/worktrees -agentlock /path/to/agentlock [-n 40]
// (bench/worktrees.sh builds agentlock as installed and runs it).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// bench is one case: a worktree to run the hook in, and extra settings.
type bench struct {
	name string
	dir  string
	env  []string
	bin  string // empty for -agentlock
	took []time.Duration
}

func main() {
	bin := flag.String("agentlock", "", "the agentlock binary to time")
	n := flag.Int("n", 40, "runs of each case")
	baseline := flag.String("baseline", "", "another agentlock binary (the one before issue 26, say) to time in the lone checkout too")
	flag.Parse()
	if *bin == "" {
		log.Fatal("-agentlock is required")
	}
	root, err := os.MkdirTemp("", "agentlock-wt-bench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(root)
	root, _ = filepath.EvalSymlinks(root)
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(root, "home"), "TMPDIR=" + root, "LANG=C",
		"GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=b", "GIT_AUTHOR_EMAIL=b@b", "GIT_COMMITTER_NAME=b", "GIT_COMMITTER_EMAIL=b@b"}
	must(os.MkdirAll(filepath.Join(root, "home"), 0o700))
	alone := makeRepo(root, "alone", *bin, env, 0, "")
	four := makeRepo(root, "four", *bin, env, 3, "")
	shared := makeRepo(root, "shared", *bin, env, 3, "repository")
	cases := []*bench{
		{name: "1 worktree (no linked worktree)", dir: alone},
		{name: "4 worktrees, cached changes (default)", dir: four},
		{name: "4 worktrees, no cache (AGENTLOCK_CONFLICT_CACHE=0)", dir: four, env: []string{"AGENTLOCK_CONFLICT_CACHE=0"}},
		{name: "4 worktrees, repository scope, cached", dir: shared},
	}
	if *baseline != "" {
		cases = append(cases, &bench{name: "1 worktree, -baseline binary", dir: alone, bin: *baseline})
	}
	for i := 0; i < *n; i++ {
		for _, c := range cases {
			b := *bin
			if c.bin != "" {
				b = c.bin
			}
			c.took = append(c.took, hook(b, c.dir, append(env, c.env...)))
		}
	}
	base := median(cases[0].took)
	fmt.Printf("pre-edit hook (claude), whole process, median of %d interleaved runs\n", *n)
	for _, c := range cases {
		m := median(c.took)
		fmt.Printf("  %-52s %8.2f ms  %.2fx\n", c.name, float64(m.Microseconds())/1000, float64(m)/float64(base))
	}
}

// makeRepo makes a repository with linked worktrees, each with an
// uncommitted change and a commit, set up for agentlock; it returns the
// main worktree.
func makeRepo(root, name, bin string, env []string, linked int, scope string) string {
	main := filepath.Join(root, name)
	must(os.MkdirAll(filepath.Join(main, "src"), 0o755))
	for i := 0; i < 200; i++ {
		must(os.WriteFile(filepath.Join(main, "src", fmt.Sprintf("f%03d.go", i)), []byte("package src\n"), 0o644))
	}
	run(env, main, "git", "init", "-q", "-b", "main")
	args := []string{"init"}
	if scope != "" {
		args = append(args, "--scope", scope)
	}
	run(env, main, bin, args...)
	run(env, main, "git", "add", ".")
	run(env, main, "git", "commit", "-q", "-m", "init")
	for i := 1; i <= linked; i++ {
		wt := filepath.Join(root, fmt.Sprintf("%s-wt%d", name, i))
		run(env, main, "git", "worktree", "add", "-q", wt, "-b", fmt.Sprintf("feat-%d", i))
		if scope == "" {
			run(env, wt, bin, "init")
		}
		must(os.WriteFile(filepath.Join(wt, "src", "f001.go"), []byte("package src // changed\n"), 0o644))
		must(os.WriteFile(filepath.Join(wt, "src", "f002.go"), []byte("package src // committed\n"), 0o644))
		run(env, wt, "git", "commit", "-q", "-am", "change")
		must(os.WriteFile(filepath.Join(wt, "src", "f001.go"), []byte("package src // changed\n"), 0o644))
		must(os.WriteFile(filepath.Join(wt, "src", "f003.go"), []byte("package src // uncommitted\n"), 0o644))
	}
	return main
}

// hook runs one pre-edit hook in dir and returns its wall time.
func hook(bin, dir string, env []string) time.Duration {
	payload, _ := json.Marshal(map[string]any{"session_id": "bench", "cwd": dir, "hook_event_name": "PreToolUse",
		"tool_name": "Edit", "tool_input": map[string]string{"file_path": filepath.Join(dir, "src", "f003.go")}})
	cmd := exec.Command(bin, "hook", "claude", "pre-edit")
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader(string(payload))
	start := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(start)
	if err != nil || strings.Contains(string(out), "deny") {
		log.Fatalf("hook in %s: %v: %s", dir, err, out)
	}
	return took
}

func run(env []string, dir, prog string, args ...string) {
	cmd := exec.Command(prog, args...)
	cmd.Dir, cmd.Env = dir, env
	if out, err := cmd.CombinedOutput(); err != nil {
		log.Fatalf("%s %v: %v: %s", prog, args, err, out)
	}
}

func median(d []time.Duration) time.Duration {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[len(s)/2]
}

func must(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
