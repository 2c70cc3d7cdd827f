package workspace

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/agentlock/agentlock/core"
)

// Which program runs a command: the default build does not link the etcd
// client, which would slow down the start of every command (every hook
// runs agentlock; docs/speed.md). When an etcd store is configured for a
// command, the default build hands the whole command line over to
// EtcdProgram, the build with the etcd store: this package decides
// (NeedsEtcdBuild, EtcdProgramFor); the command line, which alone ends or
// replaces its process, hands over. agentlock mcp and agentlock serve are
// handed over the same way, to MCPProgram (MCPProgramFor): no other
// program links the MCP Go SDK or an HTTP server.
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
	// MCPProgram serves agentlock mcp and agentlock serve, found like
	// EtcdProgram: the one program that links the MCP Go SDK and the
	// dashboard's HTTP server, whose package initialisation every start of
	// a program linking them pays (docs/speed.md), so that no lock call or
	// hook does. agentlock mcp and agentlock serve hand their command line
	// over to it (MCPProgramFor).
	MCPProgram = "agentlock-mcp"
)

// SelfProgram is the program that hooks should find on PATH: this one
// (self: os.Executable), or, in the etcd build, the one that handed the
// command line over to it (FrontVar in env, os.Environ).
func SelfProgram(env []string, self func() (string, error)) (string, error) {
	if front := getenv(env, FrontVar); EtcdBuild && front != "" {
		return front, nil
	}
	program, err := self()
	if err != nil {
		return "", fmt.Errorf("find this program's file: %w", err)
	}
	return program, nil
}

// Process is the process whose command line may be handed over, as its
// caller read it: the command line's arguments (without the program), its
// environment (os.Environ: StoreVar is read there, and it is passed on)
// and its working directory.
type Process struct {
	Args []string
	Env  []string
	Dir  string
}

// getenv returns the value of the variable name in env ("" when unset).
func getenv(env []string, name string) string {
	v := ""
	for _, kv := range env {
		if k, val, ok := strings.Cut(kv, "="); ok && k == name {
			v = val // the last one wins, as in the process
		}
	}
	return v
}

// StoreConfigured reports whether a store other than the lock files is
// configured for p, cheaply: StoreVar in its environment, or the store
// file of the project of its working directory or of a path among its
// arguments, a few stat calls per project met. A path's project decides
// its store, wherever the command runs.
func StoreConfigured(p Process) bool {
	if getenv(p.Env, StoreVar) != "" {
		return true
	}
	seen := map[string]bool{}
	// The walks up from the arguments stop where one already went: only
	// the folders walked are kept (the other facts' maps would cost this
	// check, which every process makes, more than the stats they save).
	known := &facts{dirs: map[projectKey]string{}}
	hasStore := func(path string) bool {
		project := known.walkProject(path, "", "")
		if project == "" || seen[project] {
			return false
		}
		seen[project] = true
		_, err := os.Stat(filepath.Join(project, HomeDirName, StoreFile))
		return err == nil
	}
	if p.Dir == "" {
		return false
	}
	if hasStore(p.Dir) {
		return true
	}
	for _, a := range p.Args {
		// A path longer than any agentlock locks is refused by the command
		// itself; walking up its thousands of parents here would cost
		// seconds first.
		if a == "" || a[0] == '-' || len(a) > core.MaxPathLen {
			continue
		}
		if !filepath.IsAbs(a) {
			a = filepath.Join(p.Dir, a)
		}
		if hasStore(a) {
			return true
		}
	}
	return false
}

// NeedsEtcdBuild reports whether p must be handed over to EtcdProgram
// before it runs: a store other than the lock files is configured for it
// (StoreConfigured) and this build lacks the etcd store. The front end
// hands it over (it alone replaces the process); when there is no
// EtcdProgram, the command runs here and fails where it opens that store,
// naming what to install (a hook denies the edit).
func NeedsEtcdBuild(p Process) bool { return !EtcdBuild && StoreConfigured(p) }

// NeedsEtcdBuild reports whether a workspace of this invocation needed
// the etcd store, which this build lacks (a path of a checkout on etcd,
// edited from outside it): a hook's denial then comes from the front end
// handing its payload over to EtcdProgram.
func (b *Backends) NeedsEtcdBuild() bool { return !EtcdBuild && b.Missing("etcd") }

// EtcdProgramFor returns where the build with the etcd store is for p:
// EtcdProgram beside this program, else on the PATH of p's environment;
// "" when there is none.
func EtcdProgramFor(p Process) string { return programFor(EtcdProgram, p) }

// HaveEtcdBuild reports whether this is the etcd build or a hand-over would
// find EtcdProgram, on the PATH of env.
func HaveEtcdBuild(env []string) bool {
	return EtcdBuild || programFor(EtcdProgram, Process{Env: env}) != ""
}

// MCPProgramFor returns where the MCP server is for p (MCPProgram beside
// this program, else on the PATH of p's environment), to which agentlock
// mcp hands its command line over; "" when there is none.
func MCPProgramFor(p Process) string { return programFor(MCPProgram, p) }

// programFor returns where agentlock's program name is for p: beside this
// program (os.Executable), else on the PATH of p's environment; "" when
// there is none.
func programFor(name string, p Process) string {
	self, err := os.Executable()
	if err != nil {
		self = ""
	}
	return findProgram(name, self, getenv(p.Env, "PATH"))
}

// findProgram returns the executable file name beside the program self
// (when self is not ""), else in a folder of the search path path; "" when
// there is none. agentlock's programs are installed together (release
// archives, npm, Homebrew, go install ./cmd/...), so the one beside is the
// same release, whatever PATH says.
func findProgram(name, self, path string) string {
	dirs := filepath.SplitList(path)
	if self != "" {
		dirs = append([]string{filepath.Dir(self)}, dirs...)
	}
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
		bin := filepath.Join(dir, name)
		if info, err := os.Stat(bin); err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0 {
			return bin
		}
	}
	return ""
}

// MCPInstall says how to install MCPProgram for agentlock of version (a
// release's v1.2.3, else a build from source): the fix named wherever it
// is missing (agentlock mcp, doctor).
func MCPInstall(version string) string {
	at := "latest"
	if strings.HasPrefix(version, "v") {
		at = version
	}
	return "install it beside agentlock: CGO_ENABLED=0 go install ./cmd/... in agentlock's source tree, or CGO_ENABLED=0 go install github.com/agentlock/agentlock/cmd/...@" +
		at + " (both programs; the release archives, npm and Homebrew install both)"
}
