//go:build unix

// Package proctest runs a command-line program as real, separate processes
// for tests, the way agents run it: each invocation starts, acts and exits
// before anything is asserted. Races start many processes behind a shared
// barrier so that they collide on the same files.
//
// Every child is hermetic and bounded: it gets exactly the environment the
// test builds (start from Env, never from the developer's os.Environ), and
// it is killed when it outlives its deadline, failing the test with the
// command that hung.
//
// Typical use: in TestMain, install the program on PATH (testscript.Main
// installs the test binary under the program's name), find it with
// Installed, then call Run, Start and Race from the tests.
package proctest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentlock/agentlock/internal/testkit/syncbuf"
)

// Timeout bounds every child process; a child of a test whose own deadline
// comes sooner is bounded by that deadline instead.
const Timeout = 60 * time.Second

// deadlineMargin is kept between a child's deadline and the test's, so that
// the test still has time to report which command hung.
const deadlineMargin = 5 * time.Second

// waitDelay is how long Wait waits, after the child exits or is killed, for
// grandchildren holding its output pipes (a shell's background job).
const waitDelay = 5 * time.Second

// Harness runs a program under test as separate processes.
type Harness struct {
	// Bin is the program under test.
	Bin string
}

// Installed returns a Harness for program, looked up on PATH, where the
// test's TestMain installed it.
func Installed(program string) (*Harness, error) {
	bin, err := exec.LookPath(program)
	if err != nil {
		return nil, fmt.Errorf("program under test: %w", err)
	}
	return &Harness{Bin: bin}, nil
}

// Env returns the whole environment of a child: PATH (the test's own,
// which TestMain isolates: see Isolate), HOME=home, TMPDIR=tmp, LANG=C,
// GIT_CONFIG_NOSYSTEM=1 (git reads the configuration of that HOME, never
// the system's), the Go runtime's GORACE and GOCOVERDIR (see CoverDir),
// then extra (KEY=value; a later entry wins). Nothing else of the
// developer's environment reaches a child.
//
// GORACE matters for race-enabled children: without atexit_sleep_ms, each
// one sleeps a second before exiting. The developer's GORACE, when set, is
// kept.
func Env(home, tmp string, extra ...string) []string {
	env := []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "TMPDIR=" + tmp, "LANG=C", "GIT_CONFIG_NOSYSTEM=1", "GORACE=" + GORACE()}
	if dir := CoverDir(); dir != "" {
		env = append(env, "GOCOVERDIR="+dir)
	}
	return append(env, extra...)
}

// CoverEnv names the folder where the children of a coverage run write
// their counters: set, the tests build the program under test with -cover
// (see cmd/agentlock's buildChild) and every child gets it as GOCOVERDIR.
// It is not GOCOVERDIR itself because go test -cover sets that, for the
// test binary, to a folder of its own that only the test binary's own
// counters are read from; .ci/run sets both to one folder (GOCOVERDIR
// through -test.gocoverdir) and reads the total from it.
const CoverEnv = "AGENTLOCK_TEST_COVERDIR"

// CoverDir is where a child writes its coverage counters: $CoverEnv, else
// the test's own GOCOVERDIR; "" when coverage is off.
func CoverDir() string {
	if dir := os.Getenv(CoverEnv); dir != "" {
		return dir
	}
	return os.Getenv("GOCOVERDIR")
}

// GORACE is the race detector setting for children: the developer's, or no
// sleep at exit.
func GORACE() string {
	if v := os.Getenv("GORACE"); v != "" {
		return v
	}
	return "atexit_sleep_ms=0"
}

// Cmd is one invocation of a program.
type Cmd struct {
	// Program is what Race runs; empty for the harness's program. Run and
	// Start take the program as an argument instead.
	Program string
	Args    []string // arguments, without the program name
	// Env is the child's whole environment; build it with Env. A Cmd
	// without one is refused rather than given the test's environment.
	Env []string
	Dir string // working directory; empty for the test's
	// Stdin is fed to the process (a hook's JSON payload, say).
	Stdin string
	// Limit, when set, replaces Timeout as the bound of this child (a
	// server a test keeps up for longer than a minute); the test's own
	// deadline still bounds it.
	Limit time.Duration
}

// Result is what one process did.
type Result struct {
	Cmd    Cmd
	Code   int // exit code; -1 when killed by a signal
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

// Run runs bin once as a separate process and waits, bounded, for it to exit.
func Run(t testing.TB, bin string, c Cmd) Result {
	t.Helper()
	return Start(t, bin, c).Wait(t)
}

// Proc is a child process started by Start, which the test may keep running
// while it acts (a heartbeat loop, an acquire that waits, a wrapper script).
type Proc struct {
	cmd            *exec.Cmd
	c              Cmd
	display        string // the command line, for messages
	limit          time.Duration
	killed         atomic.Bool // killed at its deadline
	stdout, stderr syncbuf.Buffer
	done           chan struct{} // closed when the process has exited
	err            error         // Wait's error, set before done is closed
}

// Start starts bin as a separate process without waiting for it. The
// process is killed at its deadline (Timeout, or sooner with the test's),
// and at the latest when the test ends.
func Start(t testing.TB, bin string, c Cmd) *Proc {
	t.Helper()
	p := newProc(t, bin, c, bin)
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", p.name(), err)
	}
	go p.wait()
	return p
}

// newProc prepares a process running bin with args then c.Args, bounded
// as Start describes; display names it in messages.
func newProc(t testing.TB, display string, c Cmd, bin string, args ...string) *Proc {
	t.Helper()
	display = strings.Join(append([]string{display}, c.Args...), " ")
	if c.Env == nil {
		t.Fatalf("%s: no environment (build one with proctest.Env)", display)
	}
	limit := childLimit(t, c.Limit)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	t.Cleanup(cancel)
	p := &Proc{c: c, display: display, limit: limit, done: make(chan struct{})}
	p.cmd = exec.CommandContext(ctx, bin, append(args, c.Args...)...)
	// A child leads a process group of its own, so that killing it takes
	// its children too (a wrapper script's agent, a shell's background job).
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	p.cmd.Cancel = func() error {
		p.killed.Store(true)
		return p.kill()
	}
	p.cmd.Env = append([]string{}, c.Env...)
	p.cmd.Dir = c.Dir
	p.cmd.Stdin = strings.NewReader(c.Stdin)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	p.cmd.WaitDelay = waitDelay
	t.Cleanup(func() {
		if p.cmd.Process == nil {
			return
		}
		select {
		case <-p.done:
			// Exited and reaped: its process id, and with it the group's,
			// may already belong to another process.
		default:
			p.kill()
			<-p.done
		}
	})
	return p
}

// kill kills the process and its process group. It is called only while
// the process has not been reaped, so the group is still its own.
func (p *Proc) kill() error {
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	return p.cmd.Process.Kill()
}

// childLimit is how long a child may run: Timeout (or own, when set), or
// less when the test's deadline comes sooner.
func childLimit(t testing.TB, own time.Duration) time.Duration {
	limit := Timeout
	if own > 0 {
		limit = own
	}
	if d, ok := t.(interface{ Deadline() (time.Time, bool) }); ok {
		if deadline, ok := d.Deadline(); ok {
			limit = min(limit, time.Until(deadline)-deadlineMargin)
		}
	}
	return max(limit, time.Second)
}

func (p *Proc) wait() {
	p.err = p.cmd.Wait()
	close(p.done)
}

// name is the command line, for messages.
func (p *Proc) name() string { return p.display }

// Pid is the process id.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// Signal sends sig to the process.
func (p *Proc) Signal(sig os.Signal) error { return p.cmd.Process.Signal(sig) }

// Exited reports whether the process has exited (and been waited for).
func (p *Proc) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Stderr is what the process has written to stderr so far.
func (p *Proc) Stderr() string { return p.stderr.String() }

// Wait waits for the process to exit and returns what it did. A process
// still running at its deadline is killed and fails the test, naming it.
func (p *Proc) Wait(t testing.TB) Result {
	t.Helper()
	<-p.done
	return p.result(t)
}

// WaitStderr waits until the process has printed text on stderr; it fails
// the test, naming the command, when limit passes first or the process
// exits without printing it.
func (p *Proc) WaitStderr(t testing.TB, text string, limit time.Duration) {
	t.Helper()
	deadline := time.After(limit)
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !strings.Contains(p.Stderr(), text) {
		select {
		case <-deadline:
			t.Fatalf("%s did not print %q within %s; stderr: %s", p.name(), text, limit, p.Stderr())
		case <-p.done:
			if !strings.Contains(p.Stderr(), text) {
				t.Fatalf("%s exited without printing %q: %s", p.name(), text, p.result(t))
			}
		case <-tick.C:
		}
	}
}

func (p *Proc) result(t testing.TB) Result {
	t.Helper()
	r := Result{Cmd: p.c, Stdout: p.stdout.String(), Stderr: p.stderr.String()}
	var exit *exec.ExitError
	switch {
	case p.killed.Load():
		t.Fatalf("%s (dir %s) still running after %s: killed\nstdout: %s\nstderr: %s", p.name(), p.c.Dir, p.limit, r.Stdout, r.Stderr)
	case errors.As(p.err, &exit):
		r.Code = exit.ExitCode()
	case p.err != nil:
		t.Fatalf("run %s: %v", p.name(), p.err)
	}
	if r.Code == 125 && strings.Contains(r.Stderr, "proctest barrier") {
		t.Fatalf("barrier child failed: %s", r.Stderr)
	}
	return r
}

// Race starts one process per command, holds every one of them at a shared
// barrier until all have started, then releases them at the same instant and
// waits for all to exit. Each process becomes its program (the harness's, or
// the command's own Program: a Python interpreter, say, so that other
// implementations can join the race) only once released, so the programs
// start and reach the shared files together.
func (h *Harness) Race(t testing.TB, cmds []Cmd) []Result {
	t.Helper()
	gunR, gunW, err := os.Pipe()
	if err != nil {
		t.Fatalf("barrier pipe: %v", err)
	}
	readyR, readyW, err := os.Pipe()
	if err != nil {
		t.Fatalf("barrier pipe: %v", err)
	}
	defer gunW.Close() // fires the barrier, or lets its children go if the test fails first
	procs := make([]*Proc, len(cmds))
	for i, c := range cmds {
		bin := c.Program
		if bin == "" {
			bin = h.Bin
		}
		p := newProc(t, bin, c, "/bin/sh", "-c", barrierScript, "proctest-barrier", bin)
		p.cmd.ExtraFiles = []*os.File{readyW, gunR}
		if err := p.cmd.Start(); err != nil {
			t.Fatalf("start %s: %v", p.name(), err)
		}
		go p.wait()
		procs[i] = p
	}
	readyW.Close()
	gunR.Close()
	waitReady(t, readyR, len(cmds), childLimit(t, 0))
	gunW.Close() // fire
	results := make([]Result, len(cmds))
	for i, p := range procs {
		results[i] = p.Wait(t)
	}
	return results
}

// barrierScript is what each racing process runs first, as a shell (a few
// hundred microseconds to start, against milliseconds for a Go binary, which
// adds up over thousands of racers): it reports ready on fd 3, blocks
// reading fd 4 until the parent closes it, and execs its arguments, the
// program under test, with its (hermetic) environment. All of them wake at
// once, so the programs start together and collide on the same files.
const barrierScript = `[ -x "$1" ] || { echo "proctest barrier: cannot run $1" >&2; exit 125; }
printf . >&3; exec 3>&-
read -r _ <&4; exec 4<&-
exec "$@"`

// waitReady waits, at most limit, until n children report ready on r.
func waitReady(t testing.TB, r *os.File, n int, limit time.Duration) {
	t.Helper()
	defer r.Close()
	r.SetReadDeadline(time.Now().Add(limit))
	buf := make([]byte, n)
	got := 0
	for got < n {
		k, err := r.Read(buf[got:])
		if err != nil {
			t.Fatalf("barrier: %d of %d processes ready after %s: %v", got, n, limit, err)
		}
		got += k
	}
}
