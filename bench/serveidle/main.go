// Command serveidle measures the CPU that an `agentlock serve` process
// spends while one page is open and 200 working sessions renew their locks
// (issue 27: under 2% of a core). It sets up a project in a temporary
// folder, registers the sessions with a lock each, starts the server, opens
// one page — its event stream, and a fetch of /view on every "change" as
// the page's script does (a "renew" moves ages in the page: no fetch) — and
// runs real `agentlock heartbeat --all` processes so that every session
// renews every -every. The server's user+system time, read from
// /proc/PID/stat, over the wall time of the run is the result; the
// renewing processes' own time is not counted (they are the agents).
//
//	go run ./bench/serveidle -agentlock /tmp/agentlock [-sessions 200] [-every 30s] [-for 60s]
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	bin := flag.String("agentlock", "", "the agentlock binary to measure (required)")
	sessions := flag.Int("sessions", 200, "working sessions, one lock each")
	every := flag.Duration("every", 30*time.Second, "how often each session renews")
	run := flag.Duration("for", 60*time.Second, "how long to measure")
	flag.Parse()
	if *bin == "" {
		fmt.Fprintln(os.Stderr, "serveidle: -agentlock is required")
		os.Exit(2)
	}
	if err := measure(*bin, *sessions, *every, *run); err != nil {
		fmt.Fprintln(os.Stderr, "serveidle:", err)
		os.Exit(1)
	}
}

func measure(bin string, sessions int, every, run time.Duration) error {
	root, err := os.MkdirTemp("", "serveidle")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	dir := filepath.Join(root, "repo")
	if err := os.MkdirAll(filepath.Join(dir, ".git"), 0o755); err != nil {
		return err
	}
	env := []string{"HOME=" + root, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8"}
	agentlock := func(args ...string) error {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("agentlock %s: %w: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	if err := agentlock("init"); err != nil {
		return err
	}
	for i := range sessions {
		id := fmt.Sprintf("agent-%03d", i)
		if err := agentlock("register", "--session", id, "--working-on", "package "+id); err != nil {
			return err
		}
		if err := agentlock("acquire", "--session", id, fmt.Sprintf("pkg%03d/file.go", i)); err != nil {
			return err
		}
	}
	serve := exec.Command(bin, "serve", "--addr", "127.0.0.1:0", "--read-only")
	serve.Dir, serve.Env = dir, env
	stderr, err := serve.StderrPipe()
	if err != nil {
		return err
	}
	if err := serve.Start(); err != nil {
		return err
	}
	defer func() {
		_ = serve.Process.Signal(syscall.SIGTERM)
		_ = serve.Wait()
	}()
	link := ""
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if link = regexp.MustCompile(`http://127\.0\.0\.1:\d+/`).FindString(sc.Text()); link != "" {
			break
		}
	}
	if link == "" {
		return fmt.Errorf("the server printed no address")
	}
	go func() { _, _ = io.Copy(io.Discard, stderr) }()

	// The page: its first fetches, then its event stream.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	fetches, changes, renewals := 0, 0, 0
	get := func(path string) error {
		resp, err := http.Get(link + path)
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		_, err = io.Copy(io.Discard, resp.Body)
		return err
	}
	for _, p := range []string{"", "assets/app.js", "assets/style.css", "view"} {
		if err := get(p); err != nil {
			return err
		}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, link+"api/events", nil)
	if err != nil {
		return err
	}
	stream, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer stream.Body.Close()
	pageDone := make(chan struct{})
	go func() {
		defer close(pageDone)
		sc := bufio.NewScanner(stream.Body)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			switch sc.Text() {
			case "event: change", "event: resync":
				changes++
				if get("view") == nil {
					fetches++
				}
			case "event: renew":
				renewals++
			}
		}
	}()
	time.Sleep(time.Second) // the server settles after the page's first reads

	before, err := cpuTicks(serve.Process.Pid)
	if err != nil {
		return err
	}
	start := time.Now()
	// Every session renews once per `every`, spread evenly.
	gap := every / time.Duration(sessions)
	renewed := 0
	for i := 0; time.Since(start) < run; i++ {
		next := start.Add(time.Duration(i) * gap)
		time.Sleep(time.Until(next))
		if err := agentlock("heartbeat", "--all", "--session", fmt.Sprintf("agent-%03d", i%sessions)); err != nil {
			return err
		}
		renewed++
	}
	wall := time.Since(start)
	after, err := cpuTicks(serve.Process.Pid)
	if err != nil {
		return err
	}
	cancel()
	<-pageDone
	cpu := time.Duration(after-before) * time.Second / time.Duration(clockTicks)
	fmt.Printf("machine: %d sessions renewing every %s (%d heartbeats in %s), one page open\n", sessions, every, renewed, wall.Round(time.Millisecond))
	fmt.Printf("server CPU: %s in %s = %.2f%% of a core (target < 2%%)\n", cpu, wall.Round(time.Millisecond), 100*cpu.Seconds()/wall.Seconds())
	fmt.Printf("page: %d renew events, %d change events, %d fetches of /view\n", renewals, changes, fetches)
	return nil
}

// clockTicks is USER_HZ, the unit of /proc/PID/stat's times: 100 on Linux.
const clockTicks = 100

// cpuTicks returns a process's user+system time, in clock ticks.
func cpuTicks(pid int) (int64, error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("read the server's CPU time: %w", err)
	}
	// The fields after the command name, which is in parentheses.
	fields := strings.Fields(string(data[strings.LastIndexByte(string(data), ')')+2:]))
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("parse /proc/%d/stat", pid)
	}
	return utime + stime, nil
}
