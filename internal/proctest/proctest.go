// Package proctest runs a command-line program as real, separate processes
// for tests, the way agents run it: each invocation starts, acts and exits
// before anything is asserted. Races start many processes behind a shared
// barrier so that they collide on the same files.
//
// A test package that uses Race must call MaybeChild first thing in its
// TestMain: the test binary re-executes itself as the barrier child.
package proctest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Environment variables by which a re-executed test binary learns that it is
// a barrier child and which program to become.
const (
	envChildExec = "PROCTEST_CHILD_EXEC"
	envChildDir  = "PROCTEST_CHILD_DIR"
)

// The barrier child talks to its parent through two inherited pipes.
const (
	readyFD = 3 // the child writes one byte here once it is waiting
	gunFD   = 4 // the child blocks reading here until the parent closes it
)

// MaybeChild turns this process into a barrier child when Race started it:
// it reports that it is ready, waits for the starting gun shared by all
// children of the race, and replaces itself with the program under test. It
// returns at once in any other process.
func MaybeChild() {
	bin := os.Getenv(envChildExec)
	if bin == "" {
		return
	}
	ready, gun := os.NewFile(readyFD, "ready"), os.NewFile(gunFD, "gun")
	if _, err := ready.Write([]byte{1}); err != nil {
		fail("proctest child: report ready: %v", err)
	}
	ready.Close()
	// Read returns when the parent closes its end: every child wakes at once.
	var b [1]byte
	gun.Read(b[:])
	gun.Close()
	if dir := os.Getenv(envChildDir); dir != "" {
		if err := os.Chdir(dir); err != nil {
			fail("proctest child: %v", err)
		}
	}
	env := make([]string, 0, len(os.Environ()))
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, envChildExec+"=") && !strings.HasPrefix(kv, envChildDir+"=") {
			env = append(env, kv)
		}
	}
	err := syscall.Exec(bin, append([]string{bin}, os.Args[1:]...), env)
	fail("proctest child: exec %s: %v", bin, err)
}

func fail(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(125)
}

// Build compiles the main package pkg (a directory, or a pattern the go
// command accepts) into dir and returns the binary's path. When the test
// binary itself runs under the race detector, so does the program.
func Build(pkg, dir, name string) (string, error) {
	out := filepath.Join(dir, name)
	args := []string{"build", "-o", out}
	if raceEnabled {
		args = append(args, "-race")
	}
	cmd := exec.Command(goTool(), append(args, pkg)...)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build %s: %w", pkg, err)
	}
	return out, nil
}

// goTool finds the go command of the running toolchain.
func goTool() string {
	tool := filepath.Join(runtime.GOROOT(), "bin", "go")
	if _, err := os.Stat(tool); err == nil {
		return tool
	}
	return "go"
}

// Cmd is one invocation of the program under test.
type Cmd struct {
	Args []string // arguments, without the program name
	Env  []string // extra environment (KEY=value), added to the test's own
	Dir  string   // working directory; empty for the test's
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

// Run runs bin once as a separate process and waits for it to exit.
func Run(t testing.TB, bin string, c Cmd) Result {
	t.Helper()
	cmd := exec.Command(bin, c.Args...)
	cmd.Env = append(os.Environ(), c.Env...)
	cmd.Dir = c.Dir
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
	if r.Code == 125 && strings.Contains(r.Stderr, "proctest child") {
		t.Fatalf("barrier child failed: %s", r.Stderr)
	}
	return r
}

// Race starts one process per command, holds every one of them at a shared
// barrier until all have started, then releases them at the same instant and
// waits for all to exit. Each process becomes bin only once released, so the
// programs start and reach the shared files together. The test binary must
// call MaybeChild in its TestMain.
func Race(t testing.TB, bin string, cmds []Cmd) []Result {
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
		cmd := exec.Command(os.Args[0], c.Args...)
		cmd.Env = append(os.Environ(), c.Env...)
		cmd.Env = append(cmd.Env, envChildExec+"="+bin, envChildDir+"="+c.Dir)
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
