// Package proctest runs a command-line program as real, separate processes
// for tests, the way agents run it: each invocation starts, acts and exits
// before anything is asserted. Races start many processes behind a shared
// barrier so that they collide on the same files.
//
// Typical use: build the program once in TestMain with New, then call
// Run and Race from the tests.
package proctest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Harness runs a built program as separate processes.
type Harness struct {
	// Bin is the program under test.
	Bin string
	// barrier is the helper that holds a racing process at the start.
	barrier string
}

// New builds the main package pkg (a directory or import path) into dir
// under name, and the barrier helper beside it.
func New(pkg, dir, name string) (*Harness, error) {
	bin, err := build(pkg, filepath.Join(dir, name))
	if err != nil {
		return nil, err
	}
	barrier, err := build("github.com/agentlock/agentlock/internal/proctest/barrier", filepath.Join(dir, "proctest-barrier"))
	if err != nil {
		return nil, err
	}
	return &Harness{Bin: bin, barrier: barrier}, nil
}

func build(pkg, out string) (string, error) {
	// go test puts its own toolchain first on PATH.
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build %s: %w", pkg, err)
	}
	return out, nil
}

// Cmd is one invocation of the program under test.
type Cmd struct {
	Args []string // arguments, without the program name
	Env  []string // extra environment (KEY=value), added to the test's own
	Dir  string   // working directory; empty for the test's
	// Stdin is fed to the process (a hook's JSON payload, say).
	Stdin string
}

// Result is what one process did.
type Result struct {
	Cmd    Cmd
	Code   int // exit code
	Stdout string
	Stderr string
}

func (r Result) String() string {
	return fmt.Sprintf("%v (dir %s): exit %d\nstdout: %s\nstderr: %s", r.Cmd.Args, r.Cmd.Dir, r.Code, r.Stdout, r.Stderr)
}

// Run runs the program once as a separate process and waits for it to exit.
func (h *Harness) Run(t testing.TB, c Cmd) Result {
	t.Helper()
	return Run(t, h.Bin, c)
}

// Run runs bin once as a separate process and waits for it to exit.
func Run(t testing.TB, bin string, c Cmd) Result {
	t.Helper()
	cmd := exec.Command(bin, c.Args...)
	cmd.Env = append(os.Environ(), c.Env...)
	cmd.Dir = c.Dir
	cmd.Stdin = strings.NewReader(c.Stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	return result(t, c, err, &stdout, &stderr)
}

func result(t testing.TB, c Cmd, err error, stdout, stderr *bytes.Buffer) Result {
	t.Helper()
	r := Result{Cmd: c, Stdout: stdout.String(), Stderr: stderr.String()}
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		r.Code = exit.ExitCode()
	case err != nil:
		t.Fatalf("run %v: %v", c.Args, err)
	}
	if r.Code == 125 && strings.Contains(r.Stderr, "proctest barrier") {
		t.Fatalf("barrier child failed: %s", r.Stderr)
	}
	return r
}

// Race starts one process per command, holds every one of them at a shared
// barrier until all have started, then releases them at the same instant and
// waits for all to exit. Each process becomes the program only once
// released, so the programs start and reach the shared files together.
func (h *Harness) Race(t testing.TB, cmds []Cmd) []Result {
	t.Helper()
	return h.RaceProgram(t, h.Bin, cmds)
}

// RaceProgram is Race for another program, bin (a Python script's
// interpreter, say), so that other implementations can join a race.
func (h *Harness) RaceProgram(t testing.TB, bin string, cmds []Cmd) []Result {
	t.Helper()
	gunR, gunW, err := os.Pipe()
	if err != nil {
		t.Fatalf("barrier pipe: %v", err)
	}
	readyR, readyW, err := os.Pipe()
	if err != nil {
		t.Fatalf("barrier pipe: %v", err)
	}
	procs := make([]*exec.Cmd, len(cmds))
	outs := make([][2]*bytes.Buffer, len(cmds))
	for i, c := range cmds {
		cmd := exec.Command(h.barrier, append([]string{bin}, c.Args...)...)
		cmd.Env = append(os.Environ(), c.Env...)
		cmd.Dir = c.Dir
		cmd.Stdin = strings.NewReader(c.Stdin)
		cmd.ExtraFiles = []*os.File{readyW, gunR}
		outs[i] = [2]*bytes.Buffer{{}, {}}
		cmd.Stdout, cmd.Stderr = outs[i][0], outs[i][1]
		if err := cmd.Start(); err != nil {
			gunW.Close()
			t.Fatalf("start %v: %v", c.Args, err)
		}
		procs[i] = cmd
	}
	readyW.Close()
	gunR.Close()
	// Wait until every child is parked at the barrier.
	buf := make([]byte, len(cmds))
	readyR.SetReadDeadline(time.Now().Add(time.Minute))
	n := 0
	for n < len(cmds) {
		k, err := readyR.Read(buf[n:])
		if err != nil {
			gunW.Close()
			t.Fatalf("barrier: %d of %d processes ready: %v", n, len(cmds), err)
		}
		n += k
	}
	readyR.Close()
	gunW.Close() // fire
	results := make([]Result, len(cmds))
	for i, cmd := range procs {
		results[i] = result(t, cmds[i], cmd.Wait(), outs[i][0], outs[i][1])
	}
	return results
}

// Repeat returns n copies of c, for a race of identical commands.
func Repeat(c Cmd, n int) []Cmd {
	cmds := make([]Cmd, n)
	for i := range cmds {
		cmds[i] = c
	}
	return cmds
}
