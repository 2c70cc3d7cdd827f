// Package fakeagent is a stand-in for an agent harness (Claude Code, Codex,
// Gemini CLI, Kimi) in tests: one long-lived process, not a shell, that runs
// hook commands and the model's shell commands as its own children, the way
// the real harnesses do. agentlock finds an agent's session by walking up
// its process ancestry to the harness process that the session-start hook
// recorded, so a test of that needs a harness process that outlives each
// command and can be killed on its own.
//
// Main reads steps from stdin, one JSON object per line, runs each in turn
// and writes one JSON result per step on stdout:
//
//	{"hook": "<command>", "payload": {...}}  runs sh -c <command> with the payload on stdin
//	{"shell": "<command>"}                   runs bash -c <command> (sh -c without bash)
//	{"sleep": "30s"}                         waits, doing nothing
//
// A step's "env" (a list of NAME=value) is added to that step's child
// environment only: Codex, say, exports CODEX_THREAD_ID to the model's shell
// but not to its hooks. A step's stdout and stderr are collected through
// files, not pipes, so that a background job started by a shell step (a
// renewal loop) does not hold the step open. Main exits 0 at the end of its
// input; a test kills it to simulate a crashed agent.
package fakeagent

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"time"
)

// Step is one line of a fake agent's input.
type Step struct {
	Hook    string          `json:"hook,omitempty"`
	Payload json.RawMessage `json:"payload,omitempty"`
	Shell   string          `json:"shell,omitempty"`
	Sleep   string          `json:"sleep,omitempty"`
	Env     []string        `json:"env,omitempty"`
}

// Result is one line of a fake agent's output: what a step's child did.
type Result struct {
	Step   Step   `json:"step"`
	Code   int    `json:"exit"`
	Stdout string `json:"stdout"`
	Stderr string `json:"stderr"`
	Error  string `json:"error,omitempty"` // the step could not run
}

// Main runs the steps of stdin and returns the process's exit code: 0, or
// 2 when the input is not a list of steps.
func Main() int {
	if err := Run(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "fakeagent: %v\n", err)
		return 2
	}
	return 0
}

// Run runs the steps read from in, writing one Result per step to out.
func Run(in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	enc := json.NewEncoder(out)
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var s Step
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return fmt.Errorf("step %q: %w", sc.Text(), err)
		}
		r, err := runStep(s)
		if err != nil {
			r.Error = err.Error()
		}
		if err := enc.Encode(r); err != nil {
			return fmt.Errorf("write the result: %w", err)
		}
	}
	return sc.Err()
}

func runStep(s Step) (Result, error) {
	r := Result{Step: s, Code: -1}
	var cmd *exec.Cmd
	switch {
	case s.Sleep != "":
		d, err := time.ParseDuration(s.Sleep)
		if err != nil {
			return r, fmt.Errorf("sleep: %w", err)
		}
		time.Sleep(d)
		r.Code = 0
		return r, nil
	case s.Hook != "":
		cmd = exec.Command("sh", "-c", s.Hook)
	case s.Shell != "":
		shell := "bash"
		if _, err := exec.LookPath(shell); err != nil {
			shell = "sh"
		}
		cmd = exec.Command(shell, "-c", s.Shell)
	default:
		return r, errors.New("a step needs hook, shell or sleep")
	}
	cmd.Env = append(os.Environ(), s.Env...)
	stdin, err := os.CreateTemp("", "fakeagent-in-*")
	if err != nil {
		return r, err
	}
	defer os.Remove(stdin.Name())
	defer stdin.Close()
	if _, err := stdin.Write(s.Payload); err != nil {
		return r, err
	}
	if _, err := stdin.Seek(0, io.SeekStart); err != nil {
		return r, err
	}
	stdout, err := os.CreateTemp("", "fakeagent-out-*")
	if err != nil {
		return r, err
	}
	defer os.Remove(stdout.Name())
	defer stdout.Close()
	stderr, err := os.CreateTemp("", "fakeagent-err-*")
	if err != nil {
		return r, err
	}
	defer os.Remove(stderr.Name())
	defer stderr.Close()
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.Code = exit.ExitCode()
	case err != nil:
		return r, err
	default:
		r.Code = 0
	}
	o, err := os.ReadFile(stdout.Name())
	if err != nil {
		return r, err
	}
	e, err := os.ReadFile(stderr.Name())
	if err != nil {
		return r, err
	}
	r.Stdout, r.Stderr = string(o), string(e)
	return r, nil
}
