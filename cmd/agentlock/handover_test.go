//go:build unix && !etcd

package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
	"github.com/agentlock/agentlock/workspace"
)

func TestHandOverRunsTheEtcdBuildInPlaceWithThePayload(t *testing.T) {
	bin := t.TempDir()
	script := "#!/bin/sh\necho \"args: $*\"\necho \"front: $" + workspace.FrontVar + "\"\necho \"stdin: $(cat)\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, workspace.EtcdProgram), []byte(script), 0o755))
	probe, err := exec.LookPath(handOverProbe)
	require.NoError(t, err, "testscript puts the test binary's commands on PATH")

	run := func(path string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, probe)
		// proctest.Env: hermetic, with the coverage folder of a -cover
		// run (without it, a -cover binary warns on stderr).
		cmd.Env = proctest.Env(t.TempDir(), t.TempDir(), "PATH="+path)
		cmd.WaitDelay = 10 * time.Second
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	self, err := filepath.EvalSymlinks(probe)
	require.NoError(t, err)
	out := run(bin + ":/usr/bin:/bin")
	assert.Contains(t, out, "args: hook claude pre-edit")
	assert.Contains(t, out, "front: "+self, "the etcd build learns which program hooks run")
	assert.Contains(t, out, `stdin: {"tool":"Edit"}`, "the payload already read is the etcd build's input")
	assert.False(t, strings.Contains(out, "not handed over"))

	assert.Equal(t, "not handed over\n", run(t.TempDir()), "without agentlock-etcd the command goes on")
}
