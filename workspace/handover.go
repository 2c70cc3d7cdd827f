package workspace

import (
	"os"
	"os/exec"
	"path/filepath"

	"github.com/agentlock/agentlock/core"
)

// Which program runs a command: the default build does not link the etcd
// client, which would slow down the start of every command (every hook
// runs agentlock; docs/speed.md). When an etcd store is configured for a
// command, the default build hands the whole command line over to
// EtcdProgram, the build with the etcd store (HandOver).
const (
	// EtcdProgram is the build with the etcd store, found beside this
	// program, else on PATH.
	EtcdProgram = "agentlock-etcd"
	// StoreVar names a store for every project, overriding the project's
	// own (.agent-registry/store).
	StoreVar = "AGENTLOCK_STORE"
	// FrontVar tells the etcd build which program handed the command line
	// over to it, so that the checks of the agentlock on PATH compare that
	// one, the program hooks run.
	FrontVar = "AGENTLOCK_FRONT"
)

// StoreConfigured reports whether a store other than the lock files is
// configured for the working directory or a path among args, cheaply:
// StoreVar, or a few stat calls per project met. A path's project decides
// its store, wherever the command runs.
func StoreConfigured(args []string) bool {
	if os.Getenv(StoreVar) != "" {
		return true
	}
	wd, err := os.Getwd()
	if err != nil {
		return false
	}
	seen := map[string]bool{}
	hasStore := func(path string) bool {
		project := FindProject(path)
		if project == "" || seen[project] {
			return false
		}
		seen[project] = true
		_, err := os.Stat(filepath.Join(project, HomeDirName, StoreFile))
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

// Delegate hands the command line args over to EtcdProgram (HandOver) when
// a store is configured for it (StoreConfigured). It returns nil when it
// did not hand over: this is the etcd build, the store is the lock files,
// or there is no EtcdProgram (the command then fails where it opens that
// store, naming what to install; a hook denies the edit). An error is a
// hand-over that failed.
func Delegate(args []string) error {
	if EtcdBuild || !StoreConfigured(args) {
		return nil
	}
	return HandOver(args, nil)
}

// HandOverIfMissing hands the command line over to EtcdProgram, with stdin
// as its standard input (a hook's payload, already read), when a workspace
// of this invocation needed the etcd store, which this build lacks (a path
// of a checkout on etcd, edited from outside it). It returns like
// Delegate.
func (b *Backends) HandOverIfMissing(args []string, stdin []byte) error {
	if EtcdBuild || !b.Missing("etcd") {
		return nil
	}
	return HandOver(args, stdin)
}

// HaveEtcdBuild reports whether this is the etcd build or HandOver would
// find EtcdProgram.
func HaveEtcdBuild() bool { return EtcdBuild || etcdProgram() != "" }

// etcdProgram returns EtcdProgram beside this program, else on PATH; ""
// when there is none.
func etcdProgram() string {
	if self, err := os.Executable(); err == nil {
		bin := filepath.Join(filepath.Dir(self), EtcdProgram)
		if info, err := os.Stat(bin); err == nil && !info.IsDir() {
			return bin
		}
	}
	bin, _ := exec.LookPath(EtcdProgram)
	return bin
}
