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

// agentlock's other programs are looked for beside this one first (the
// same install), then on PATH; a file that cannot run is none.
func TestFindProgram(t *testing.T) {
	self, onPath, other := t.TempDir(), t.TempDir(), t.TempDir()
	write := func(dir string, mode os.FileMode) string {
		bin := filepath.Join(dir, MCPProgram)
		require.NoError(t, os.WriteFile(bin, []byte("#!/bin/sh\n"), mode))
		return bin
	}
	path := other + string(os.PathListSeparator) + onPath
	require.Empty(t, findProgram(MCPProgram, filepath.Join(self, "agentlock"), path))
	require.Equal(t, write(onPath, 0o755), findProgram(MCPProgram, filepath.Join(self, "agentlock"), path))
	write(other, 0o644)
	require.Equal(t, filepath.Join(onPath, MCPProgram), findProgram(MCPProgram, filepath.Join(self, "agentlock"), path), "not executable: skipped")
	require.Equal(t, write(self, 0o755), findProgram(MCPProgram, filepath.Join(self, "agentlock"), path), "beside first")
	require.Equal(t, filepath.Join(onPath, MCPProgram), findProgram(MCPProgram, "", path), "no self: PATH alone")
}

// The install command names the release of a stamped build, else the latest.
func TestMCPInstall(t *testing.T) {
	require.Contains(t, MCPInstall("v1.2.3"), "go install github.com/agentlock/agentlock/cmd/...@v1.2.3 ")
	require.Contains(t, MCPInstall("devel"), "go install github.com/agentlock/agentlock/cmd/...@latest ")
	require.Contains(t, MCPInstall(""), "go install ./cmd/... in agentlock's source tree")
}
