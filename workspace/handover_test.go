//go:build unix && !etcd

package workspace

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
