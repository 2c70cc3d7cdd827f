package main_test

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/proctest"
)

// syncBuffer is a bytes.Buffer safe to read while a process writes to it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// background is an agentlock process that the test keeps running while it
// acts, such as a heartbeat loop or an acquire that waits.
type background struct {
	cmd            *exec.Cmd
	args           []string
	stdout, stderr *syncBuffer
	done           chan error
}

// start starts agentlock from the project folder without waiting for it.
// It is killed when the test ends.
func (s *sandbox) start(args ...string) *background {
	s.t.Helper()
	b := &background{args: args, stdout: &syncBuffer{}, stderr: &syncBuffer{}, done: make(chan error, 1)}
	b.cmd = exec.Command(harness.Bin, args...)
	b.cmd.Env = append(os.Environ(), s.env...)
	b.cmd.Dir = s.project
	b.cmd.Stdout, b.cmd.Stderr = b.stdout, b.stderr
	require.NoError(s.t, b.cmd.Start())
	go func() { b.done <- b.cmd.Wait() }()
	s.t.Cleanup(func() {
		b.cmd.Process.Kill()
		<-b.done
	})
	return b
}

// waitExit waits at most limit for b to exit and returns what it did.
func waitExit(t *testing.T, b *background, limit time.Duration) proctest.Result {
	t.Helper()
	select {
	case err := <-b.done:
		b.done <- err // for the cleanup
		r := proctest.Result{Cmd: proctest.Cmd{Args: b.args}, Stdout: b.stdout.String(), Stderr: b.stderr.String()}
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			r.Code = exit.ExitCode()
		} else {
			require.NoError(t, err)
		}
		return r
	case <-time.After(limit):
		t.Fatalf("%v still running after %s; stderr: %s", b.args, limit, b.stderr.String())
		return proctest.Result{}
	}
}

// waitStderr waits at most limit for b to print text on stderr.
func waitStderr(t *testing.T, b *background, text string, limit time.Duration) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !strings.Contains(b.stderr.String(), text) {
		if time.Now().After(deadline) {
			t.Fatalf("%v did not print %q within %s; stderr: %s", b.args, text, limit, b.stderr.String())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// startHelper starts another program (a process for agentlock to watch) and
// kills it when the test ends.
func startHelper(t *testing.T, name string, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(name, args...)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	return cmd
}
