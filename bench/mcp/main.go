// Command mcp times agentlock's MCP front end against the one-shot
// command (issue 28): how long `agentlock mcp` takes to start and answer
// initialize, how long one tools/call of acquire and of release takes on a
// running server, and the same acquire and release as one-shot agentlock
// processes. Rounds are interleaved; medians and 90th percentiles are
// printed. Run it through bench/run.sh mcp [rounds].
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"time"
)

func main() {
	bin := flag.String("agentlock", "agentlock", "agentlock binary to time")
	n := flag.Int("n", 40, "interleaved rounds")
	flag.Parse()
	if err := run(*bin, *n); err != nil {
		fmt.Fprintln(os.Stderr, "bench/mcp:", err)
		os.Exit(1)
	}
}

// server is a running agentlock mcp.
type server struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
	id  int
}

func start(bin, dir string, env []string) (*server, error) {
	cmd := exec.Command(bin, "mcp")
	cmd.Dir, cmd.Env, cmd.Stderr = dir, env, os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start agentlock mcp: %w", err)
	}
	s := &server{cmd: cmd, in: in, out: bufio.NewReader(out)}
	if _, err := s.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "bench", "version": "1"}}); err != nil {
		return nil, err
	}
	if _, err := fmt.Fprintln(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); err != nil {
		return nil, err
	}
	return s, nil
}

// request sends one request and reads lines until its answer.
func (s *server) request(method string, params any) (map[string]any, error) {
	s.id++
	data, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": s.id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	if _, err := s.in.Write(append(data, '\n')); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	for {
		line, err := s.out.ReadBytes('\n')
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		var msg map[string]any
		if err := json.Unmarshal(line, &msg); err != nil {
			return nil, fmt.Errorf("%s: %q: %w", method, line, err)
		}
		if id, ok := msg["id"].(float64); ok && int(id) == s.id {
			if msg["error"] != nil {
				return nil, fmt.Errorf("%s: %v", method, msg["error"])
			}
			return msg, nil
		}
	}
}

// call runs a tool and fails unless it succeeded.
func (s *server) call(tool string, args map[string]any) error {
	msg, err := s.request("tools/call", map[string]any{"name": tool, "arguments": args})
	if err != nil {
		return err
	}
	if res, _ := msg["result"].(map[string]any); res == nil || res["isError"] == true {
		return fmt.Errorf("%s: %v", tool, msg["result"])
	}
	return nil
}

func (s *server) close() error {
	s.in.Close()
	return s.cmd.Wait()
}

func run(bin string, n int) error {
	root, err := os.MkdirTemp("", "agentlock-bench-mcp-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	proj := filepath.Join(root, "project")
	for _, d := range []string{filepath.Join(proj, ".git"), filepath.Join(root, "home")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(proj, "a.go"), []byte("package a\n"), 0o644); err != nil {
		return err
	}
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + filepath.Join(root, "home"), "LANG=C", "AGENTLOCK_SESSION=bench-1"}
	oneShot := func(args ...string) error {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env = proj, env
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("agentlock %v: %w: %s", args, err, out)
		}
		return nil
	}
	if err := oneShot("init", "--agent", "claude", "--no-mcp"); err != nil {
		return err
	}
	var startT, mcpAcq, mcpRel, shAcq, shRel []time.Duration
	srv, err := start(bin, proj, env)
	if err != nil {
		return err
	}
	defer srv.close()
	args := map[string]any{"paths": []string{"a.go"}}
	for range n {
		t0 := time.Now()
		s, err := start(bin, proj, env)
		if err != nil {
			return err
		}
		startT = append(startT, time.Since(t0))
		if err := s.close(); err != nil {
			return fmt.Errorf("agentlock mcp exit: %w", err)
		}

		t0 = time.Now()
		if err := srv.call("acquire", args); err != nil {
			return err
		}
		mcpAcq = append(mcpAcq, time.Since(t0))
		t0 = time.Now()
		if err := srv.call("release", args); err != nil {
			return err
		}
		mcpRel = append(mcpRel, time.Since(t0))

		t0 = time.Now()
		if err := oneShot("acquire", "--json", "a.go"); err != nil {
			return err
		}
		shAcq = append(shAcq, time.Since(t0))
		t0 = time.Now()
		if err := oneShot("release", "--json", "a.go"); err != nil {
			return err
		}
		shRel = append(shRel, time.Since(t0))
	}
	if len(startT) == 0 {
		return errors.New("no rounds")
	}
	fmt.Printf("%-44s %10s %10s\n", fmt.Sprintf("row (%d interleaved rounds)", n), "median", "p90")
	for _, row := range []struct {
		name string
		d    []time.Duration
	}{
		{"agentlock mcp: start + initialize answered", startT},
		{"MCP tools/call acquire (running server)", mcpAcq},
		{"MCP tools/call release (running server)", mcpRel},
		{"one-shot agentlock acquire --json", shAcq},
		{"one-shot agentlock release --json", shRel},
	} {
		fmt.Printf("%-44s %10s %10s\n", row.name, ms(pct(row.d, 50)), ms(pct(row.d, 90)))
	}
	return nil
}

func pct(d []time.Duration, p int) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d)/float64(time.Millisecond)) }
