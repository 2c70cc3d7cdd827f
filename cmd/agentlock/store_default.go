//go:build !etcd

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/agentlock/agentlock/workspace"
)

// etcdBuild is true in the build that links the etcd store.
const etcdBuild = false

// newRemote returns nil: this build has no distributed store.
func newRemote() workspace.Remote { return nil }

// etcdBinary is the build with the etcd store that this one hands over to.
const etcdBinary = "agentlock-etcd"

// delegate hands the whole command line over to agentlock-etcd (beside this
// program, else on PATH) when an etcd store is configured here:
// AGENTLOCK_STORE, or the store file of the working directory's project.
// The default build does not link the etcd client, which would slow down
// every start (every hook runs agentlock). When there is no
// agentlock-etcd, the command goes on and fails where it opens the
// workspace, naming what to install (a hook denies the edit).
func delegate(args []string) {
	if !storeConfigured() {
		return
	}
	self, err := os.Executable()
	if err != nil {
		return
	}
	bin := filepath.Join(filepath.Dir(self), etcdBinary)
	if info, err := os.Stat(bin); err != nil || info.IsDir() {
		if bin, err = exec.LookPath(etcdBinary); err != nil {
			return
		}
	}
	env := append(os.Environ(), frontVar+"="+self)
	err = syscall.Exec(bin, append([]string{bin}, args...), env)
	fmt.Fprintf(os.Stderr, "agentlock: run %s: %v\n", bin, err)
	os.Exit(exitEnvError)
}

// storeConfigured reports whether a distributed store is configured for
// the working directory, cheaply: a variable, or a few stat calls.
func storeConfigured() bool {
	if os.Getenv(storeVar) != "" {
		return true
	}
	wd, err := os.Getwd()
	if err != nil {
		return false
	}
	project := workspace.FindProject(wd)
	if project == "" {
		return false
	}
	_, err = os.Stat(filepath.Join(project, workspace.HomeDirName, workspace.StoreFile))
	return err == nil
}

// haveEtcdBuild reports whether delegate would find agentlock-etcd.
func haveEtcdBuild() bool {
	if self, err := os.Executable(); err == nil {
		if info, err := os.Stat(filepath.Join(filepath.Dir(self), etcdBinary)); err == nil && !info.IsDir() {
			return true
		}
	}
	_, err := exec.LookPath(etcdBinary)
	return err == nil
}
