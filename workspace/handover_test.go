//go:build unix && !etcd

package workspace

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
)

func TestStoreConfiguredByTheProjectOfAPathOrTheVariable(t *testing.T) {
	plain, _ := newProject(t)
	onEtcd, _ := newProject(t)
	require.NoError(t, os.WriteFile(filepath.Join(onEtcd, HomeDirName, StoreFile), []byte("etcd://127.0.0.1:1\n"), 0o644))
	in := func(dir string, args ...string) Process {
		return Process{Args: args, Env: []string{"HOME=/h"}, Dir: dir}
	}
	assert.False(t, StoreConfigured(in(plain, "a.go", "--session", "s1")))
	assert.True(t, StoreConfigured(in(plain, filepath.Join(onEtcd, "src", "f.py"))), "a path's project decides its store, wherever the command runs")
	assert.False(t, StoreConfigured(in(plain, "-"+filepath.Join(onEtcd, "f.py"))), "a flag is no path")
	assert.True(t, StoreConfigured(in(onEtcd)), "the working directory's project")
	p := in(plain)
	p.Env = append(p.Env, StoreVar+"=etcd://127.0.0.1:1")
	assert.True(t, StoreConfigured(p), "the variable, read in the environment given")
	assert.False(t, StoreConfigured(Process{Env: []string{StoreVar + "=x", StoreVar + "="}, Dir: plain}), "the last setting wins, as in a process")
}

// handOverChild is the variable that makes this test binary a process that
// hands its command line over (TestHandOverRunsTheEtcdBuildInPlace).
const handOverChild = "AGENTLOCK_TEST_HANDOVER_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(handOverChild) == "1" {
		p := Process{Args: []string{"hook", "claude", "pre-edit"}, Env: os.Environ()}
		err := HandOver(p, []byte(`{"tool":"Edit"}`))
		if err != nil {
			os.Stderr.WriteString(err.Error())
			os.Exit(3)
		}
		os.Stdout.WriteString("not handed over\n")
		os.Exit(0)
	}
	// Isolated: the tests' git reads no configuration of the developer's,
	// and PATH holds only the tools they run.
	os.Exit(proctest.Main(m))
}

func TestHandOverRunsTheEtcdBuildInPlaceWithThePayload(t *testing.T) {
	bin := t.TempDir()
	script := "#!/bin/sh\necho \"args: $*\"\necho \"front: $" + FrontVar + "\"\necho \"stdin: $(cat)\"\n"
	require.NoError(t, os.WriteFile(filepath.Join(bin, EtcdProgram), []byte(script), 0o755))
	self, err := os.Executable()
	require.NoError(t, err)

	run := func(path string) string {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, self)
		// proctest.Env: hermetic, with the coverage folder of a -cover
		// run (without it, a -cover binary warns on stderr).
		cmd.Env = proctest.Env(t.TempDir(), t.TempDir(), handOverChild+"=1", "PATH="+path)
		cmd.WaitDelay = 10 * time.Second
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	out := run(bin + ":/usr/bin:/bin")
	assert.Contains(t, out, "args: hook claude pre-edit")
	assert.Contains(t, out, "front: "+self, "the etcd build learns which program hooks run")
	assert.Contains(t, out, `stdin: {"tool":"Edit"}`, "the payload already read is the etcd build's input")
	assert.False(t, strings.Contains(out, "not handed over"))

	assert.Equal(t, "not handed over\n", run(t.TempDir()), "without agentlock-etcd the command goes on")
}
