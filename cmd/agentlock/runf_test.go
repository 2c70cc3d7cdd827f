package main

// In-process tests of the commands' flags through gh's seam: each
// newCmdX(f, runF) is built with a runF that captures the options it
// would run with, so that flag parsing is tested without a process. The
// harness is in root_runf_test.go, the tests of each command in
// <command>_runf_test.go.

import (
	"bytes"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/report"
	"github.com/agentlock/agentlock/session"
)

// testFactory is a Factory on buffers, whose Config must not be needed.
func testFactory(t *testing.T) *Factory {
	return &Factory{
		IO:  &IOStreams{In: bytes.NewReader(nil), Out: io.Discard, ErrOut: io.Discard},
		Now: time.Now,
		Config: func() (*config, error) {
			t.Fatal("flag parsing needed the configuration")
			return nil, nil
		},
	}
}

// release --all --force x is refused as a usage error before anything is
// released (it used to force-release x: the refusal was a dead branch).
func TestRunFReleaseAllForceIsRefusedBeforeAnything(t *testing.T) {
	opts := &ReleaseOptions{IO: testFactory(t).IO, All: true, Force: true, Args: []string{"x"}, Command: "agentlock release",
		Config: func() (*config, error) { return fakeConfig("", ""), nil }}
	err := releaseRun(t.Context(), opts)
	require.Error(t, err)
	require.Equal(t, report.ExitUsage, report.ExitCode(err), "%v", err)
	require.Contains(t, err.Error(), "--all and --force")
}

// fakeConfig is a configuration whose session is known as id (none for
// ""), from source ("--session", else AGENTLOCK_SESSION), with no agent
// context and no agent records found.
func fakeConfig(id, source string) *config {
	in := session.Inputs{Env: id, Lookup: func(string) session.Recorded { return session.Recorded{} }}
	if source == session.SourceFlag {
		in.Flag = id
	}
	return &config{Identity: in}
}

// who is the session c's service resolves.
func who(t *testing.T, c *config) session.Identity { return c.Service().Identity(t.Context()) }
