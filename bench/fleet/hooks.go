package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sync"
	"time"
)

// hook is one command hook of a CLI's settings: the matcher of its group,
// its command line exactly as init wrote it, and its timeout.
type hook struct {
	matcher *regexp.Regexp // nil: every target
	command string
	timeout time.Duration
}

// hookConfig is every command hook of a CLI's settings, by event name.
type hookConfig map[string][]hook

// defaultHookTimeout is the timeout of a hook whose settings name none
// (Claude Code and Gemini CLI both default to 60 s).
const defaultHookTimeout = 60 * time.Second

// loadHooks reads the hooks of c from the settings file init wrote in dir:
// {"hooks": {Event: [{"matcher": …, "hooks": [{"type": "command",
// "command": …, "timeout": …}]}]}}, the one shape of the three CLIs. A
// missing file is no hooks.
func loadHooks(c *cli, dir string) (hookConfig, error) {
	path := filepath.Join(dir, c.settings)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return hookConfig{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read %s's hooks: %w", c.name, err)
	}
	var file struct {
		Hooks map[string][]struct {
			Matcher string `json:"matcher"`
			Hooks   []struct {
				Type    string   `json:"type"`
				Command string   `json:"command"`
				Timeout *float64 `json:"timeout"`
			} `json:"hooks"`
		} `json:"hooks"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("read %s's hooks in %s (comments are not supported here): %w", c.name, path, err)
	}
	cfg := hookConfig{}
	for event, groups := range file.Hooks {
		for _, g := range groups {
			m, err := compileMatcher(g.Matcher)
			if err != nil {
				return nil, fmt.Errorf("%s: %s matcher %q: %w", path, event, g.Matcher, err)
			}
			for _, h := range g.Hooks {
				if h.Type != "command" {
					continue
				}
				timeout := defaultHookTimeout
				if h.Timeout != nil && *h.Timeout > 0 {
					timeout = time.Duration(*h.Timeout * float64(c.timeoutUnit))
				}
				cfg[event] = append(cfg[event], hook{matcher: m, command: h.Command, timeout: timeout})
			}
		}
	}
	return cfg, nil
}

// compileMatcher is a group's matcher as the CLIs test it: empty or "*"
// matches everything; otherwise a regular expression over the whole
// target ("Edit|Write" matches Write, not WriteFile).
func compileMatcher(m string) (*regexp.Regexp, error) {
	if m == "" || m == "*" {
		return nil, nil
	}
	return regexp.Compile("^(?:" + m + ")$")
}

// matching returns the hooks of event whose matcher accepts target. An
// event without a target (a turn's end) runs all its hooks.
func (cfg hookConfig) matching(event, target string) []hook {
	var out []hook
	for _, h := range cfg[event] {
		if h.matcher == nil || target == "" || h.matcher.MatchString(target) {
			out = append(out, h)
		}
	}
	return out
}

// hookRun is one hook process: what it printed, how it exited and how long
// it took, start to exit.
type hookRun struct {
	stdout, stderr string
	exit           int
	timedOut       bool
	took           time.Duration
}

// runHook runs one hook command line as the CLI does: its shell with -c
// and the line, the payload on stdin, cwd the session's folder, the CLI's
// environment, killed at its timeout (which lets the call through in
// every CLI).
func runHook(ctx context.Context, c *cli, h hook, dir string, env []string, stdin []byte) (hookRun, error) {
	ctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	args := append(append([]string{}, c.hookShell[1:]...), h.command)
	cmd := exec.CommandContext(ctx, c.hookShell[0], args...)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, bytes.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.WaitDelay = time.Second
	start := time.Now()
	err := cmd.Run()
	r := hookRun{stdout: out.String(), stderr: errb.String(), took: time.Since(start)}
	var exit *exec.ExitError
	switch {
	case ctx.Err() == context.DeadlineExceeded:
		r.timedOut, r.exit = true, -1
	case errors.As(err, &exit):
		r.exit = exit.ExitCode()
	case err != nil:
		return r, fmt.Errorf("run %s hook %q: %w", c.name, h.command, err)
	}
	return r, nil
}

// runHooks runs the hooks of one event that match it, at the same time as
// the CLIs do, and combines their answers.
func runHooks(ctx context.Context, s *session, c call) (answer, []hookRun, error) {
	hooks := s.hooks.matching(c.event, c.target(s))
	if len(hooks) == 0 {
		return answer{}, nil, nil
	}
	stdin, err := payloadJSON(s.cli.payload(s, c))
	if err != nil {
		return answer{}, nil, err
	}
	env := append(append([]string{}, s.env...), s.cli.hookEnv(s)...)
	runs := make([]hookRun, len(hooks))
	errs := make([]error, len(hooks))
	var wg sync.WaitGroup
	for i, h := range hooks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			runs[i], errs[i] = runHook(ctx, s.cli, h, s.dir, env, stdin)
		}()
	}
	wg.Wait()
	var a answer
	for i := range hooks {
		if errs[i] != nil {
			return answer{}, runs, errs[i]
		}
		a = mergeAnswer(a, s.cli.answer(c, runs[i]))
	}
	return a, runs, nil
}
