// Command child runs one program for the compatibility tests with a
// deadline and with an environment that the test built, never the one
// child was started with. proctest.RaceProgram starts every racing process
// with the test process's own environment and waits for it without a
// deadline; the racers of package compattest go through child instead.
//
// Usage: child TIMEOUT DELAY N KEY=VALUE... PROGRAM [ARG...]
//
// child waits DELAY, then runs PROGRAM; N is the number of KEY=VALUE
// entries, the whole environment of PROGRAM. It exits with PROGRAM's exit
// code, or 124 when TIMEOUT passed and PROGRAM was killed. TIMEOUT and
// DELAY are Go durations. The delay lets a fast program start later than
// its racers, so that it meets a slow one (python3, whose start-up takes
// tens of milliseconds) at the file they contend for.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"time"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) < 4 {
		return fail("usage: child TIMEOUT DELAY N KEY=VALUE... PROGRAM [ARG...]")
	}
	timeout, err := time.ParseDuration(args[0])
	if err != nil {
		return fail("timeout: %v", err)
	}
	delay, err := time.ParseDuration(args[1])
	if err != nil {
		return fail("delay: %v", err)
	}
	n, err := strconv.Atoi(args[2])
	if err != nil || n < 0 || len(args) < 4+n {
		return fail("bad environment count %q", args[2])
	}
	env, prog := args[3:3+n], args[3+n:]
	time.Sleep(delay)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, prog[0], prog[1:]...)
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.WaitDelay = time.Second
	err = cmd.Run()
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		fmt.Fprintf(os.Stderr, "compattest child: %s: no exit after %s: killed\n", prog[0], timeout)
		return 124
	case errors.As(err, &exit):
		return exit.ExitCode()
	case err != nil:
		return fail("%s: %v", prog[0], err)
	}
	return 0
}

// fail reports a problem of child itself, with exit code 125.
func fail(format string, args ...any) int {
	fmt.Fprintf(os.Stderr, "compattest child: "+format+"\n", args...)
	return 125
}
