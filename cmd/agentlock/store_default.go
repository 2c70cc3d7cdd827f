//go:build !etcd

package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"

	"github.com/agentlock/agentlock/core"
	"github.com/agentlock/agentlock/workspace"
)

// etcdBuild is true in the build that links the etcd store.
const etcdBuild = false

// etcdBinary is the build with the etcd store that this one hands over to.
const etcdBinary = "agentlock-etcd"

// delegate hands the whole command line over to agentlock-etcd (beside this
// program, else on PATH) when an etcd store is configured for it:
// AGENTLOCK_STORE, or the store file of the project of the working
// directory or of a path among the arguments — a path's project decides
// its store, wherever the command runs. The default build does not link
// the etcd client, which would slow down every start (every hook runs
// agentlock; docs/speed.md). When there is no agentlock-etcd, the command
// goes on and fails where it opens that store, naming what to install (a
// hook denies the edit).
func delegate(args []string) {
	if storeConfigured(args) {
		handOver(args, nil)
	}
}

// handOver runs agentlock-etcd in place of this process with args and, when
// stdin is not nil, those bytes as its standard input (a hook's payload,
// already read). It returns only when there is no agentlock-etcd.
func handOver(args []string, stdin []byte) {
	bin := etcdProgram()
	if bin == "" {
		return
	}
	if stdin != nil {
		if err := replaceStdin(stdin); err != nil {
			fmt.Fprintf(os.Stderr, "agentlock: hand over to %s: %v\n", bin, err)
			os.Exit(exitEnvError)
		}
	}
	self, _ := os.Executable()
	env := append(os.Environ(), frontVar+"="+self)
	err := syscall.Exec(bin, append([]string{bin}, args...), env)
	fmt.Fprintf(os.Stderr, "agentlock: run %s: %v\n", bin, err)
	os.Exit(exitEnvError)
}

// replaceStdin makes data this process's standard input: an unlinked
// temporary file holding it, so that the program exec'd next reads it.
func replaceStdin(data []byte) error {
	f, err := os.CreateTemp("", "agentlock-payload-")
	if err != nil {
		return err
	}
	defer f.Close()
	if err := os.Remove(f.Name()); err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	if _, err := f.Seek(0, 0); err != nil {
		return err
	}
	return dupStdin(f)
}

// etcdProgram returns agentlock-etcd beside this program, else on PATH;
// "" when there is none.
func etcdProgram() string {
	if self, err := os.Executable(); err == nil {
		bin := filepath.Join(filepath.Dir(self), etcdBinary)
		if info, err := os.Stat(bin); err == nil && !info.IsDir() {
			return bin
		}
	}
	bin, _ := exec.LookPath(etcdBinary)
	return bin
}

// storeConfigured reports whether a distributed store is configured for
// the working directory or a path among args, cheaply: a variable, or a
// few stat calls per project met.
func storeConfigured(args []string) bool {
	if os.Getenv(storeVar) != "" {
		return true
	}
	wd, err := os.Getwd()
	if err != nil {
		return false
	}
	seen := map[string]bool{}
	hasStore := func(path string) bool {
		project := workspace.FindProject(path)
		if project == "" || seen[project] {
			return false
		}
		seen[project] = true
		_, err := os.Stat(filepath.Join(project, workspace.HomeDirName, workspace.StoreFile))
		return err == nil
	}
	if hasStore(wd) {
		return true
	}
	for _, a := range args {
		// A path longer than any agentlock locks is refused by the command
		// itself; walking up its thousands of parents here would cost
		// seconds first.
		if a == "" || a[0] == '-' || len(a) > core.MaxPathLen {
			continue
		}
		if !filepath.IsAbs(a) {
			a = filepath.Join(wd, a)
		}
		if hasStore(a) {
			return true
		}
	}
	return false
}

// hookHandOver runs the hook again in agentlock-etcd, with the payload it
// read, when it needed the etcd store (a path of a checkout on etcd,
// edited from outside it) and agentlock-etcd is installed. It returns only
// when it did not hand over.
func hookHandOver(c *config, args []string, payload []byte) {
	if c.Settings.Backends.Missing("etcd") {
		handOver(args, payload)
	}
}

// haveEtcdBuild reports whether delegate would find agentlock-etcd.
func haveEtcdBuild() bool { return etcdProgram() != "" }
