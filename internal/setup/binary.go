package setup

import (
	"debug/buildinfo"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
)

// BinaryState is what CheckBinary found about the command on PATH.
type BinaryState int

const (
	// BinarySame: the command on PATH is this build (the same file, or a
	// build of the same version).
	BinarySame BinaryState = iota
	// BinaryMissing: no executable of that name on PATH. Every generated
	// hook then lets every edit through, unchecked.
	BinaryMissing
	// BinaryOther: the command on PATH is another build or another
	// program: hooks and agents run it, not this one.
	BinaryOther
	// BinaryTemporary: the command on PATH is npx's copy in npm's cache,
	// on PATH only while npx runs: hooks run later will not find it.
	BinaryTemporary
)

// Binary is the result of CheckBinary.
type Binary struct {
	State BinaryState
	// Name is the command looked for ("agentlock").
	Name string
	// Found is the executable PATH gives for Name; "" when missing.
	Found string
	// Self is the running program's file.
	Self string
	// SelfVersion and FoundVersion describe the two builds: the module
	// version, the VCS revision and the link flags they were built with;
	// FoundVersion says when Found is not a Go program.
	SelfVersion, FoundVersion string
	// Launches is the native binary that Found, the npm package's sh
	// launcher (left when npm ran no install script), executes; "" when
	// Found is no launcher.
	Launches string
}

// Detail says, in one line for people, what was found.
func (b Binary) Detail() string {
	switch b.State {
	case BinaryMissing:
		return fmt.Sprintf("%s is not on PATH: the hooks cannot run it, so they check no edit, and agents cannot run it either", b.Name)
	case BinaryOther:
		return fmt.Sprintf("the %s on PATH (%s: %s) is not this one (%s: %s): the hooks and agents run the one on PATH",
			b.Name, b.Found, b.FoundVersion, b.Self, b.SelfVersion)
	case BinaryTemporary:
		return fmt.Sprintf("the %s on PATH (%s) is npx's temporary copy, on PATH only while npx runs: the hooks, run later, will not find it", b.Name, b.Found)
	}
	if b.Launches != "" {
		return fmt.Sprintf("%s on PATH is %s, npm's sh launcher of %s (%s): npm ran no install script, so each hook starts sh first", b.Name, b.Found, b.Launches, b.SelfVersion)
	}
	return fmt.Sprintf("%s on PATH is %s (%s)", b.Name, b.Found, b.SelfVersion)
}

// Problem is, when the command is missing or another build than this one,
// what is wrong and what to do, in one line; "" for BinarySame.
func (b Binary) Problem() string {
	if b.State == BinarySame {
		return ""
	}
	return b.Detail() + "; " + b.Fix()
}

// Fix says what to do about it; "" for BinarySame.
func (b Binary) Fix() string {
	switch b.State {
	case BinaryMissing:
		return "install it where PATH finds it: go install ./cmd/... (in the agentlock repository, with agentlock-mcp) puts it in $(go env GOBIN), " +
			"else $(go env GOPATH)/bin; add that folder to PATH. Without Go: npm install -g " + npmPackage + ", or a release archive (docs/install.md)"
	case BinaryOther:
		return "install this build there (go install ./cmd/..., or the channel you installed it from: docs/install.md), or use the " + b.Name + " on PATH"
	case BinaryTemporary:
		return "install it for good: npm install -g " + npmPackage + " (docs/install.md)"
	}
	return ""
}

// CheckBinary looks name up in the folders of searchPath (a PATH value) as
// a shell does, and compares the executable found with self, the running
// program's file (os.Executable): the same file, or a build of the same
// version — the Go build information's module, module version, VCS
// revision and modified flag, and link flags — is BinarySame. It only
// reads. Init and doctor both use it, so that they judge alike.
func CheckBinary(name, searchPath, self string) Binary {
	b := Binary{Name: name, Self: self, SelfVersion: describeBuild(self)}
	b.Found = lookPath(name, searchPath)
	if b.Found == "" {
		b.State = BinaryMissing
		return b
	}
	if isNpxCache(b.Found) {
		b.State = BinaryTemporary
		return b
	}
	target := b.Found
	if t := launcherTarget(b.Found); t != "" {
		b.Launches, target = t, t
	}
	b.FoundVersion = describeBuild(target)
	if sameFile(target, self) {
		return b
	}
	mine, errMine := buildinfo.ReadFile(self)
	theirs, errTheirs := buildinfo.ReadFile(target)
	if errMine != nil || errTheirs != nil || buildKey(mine) != buildKey(theirs) {
		b.State = BinaryOther
	}
	return b
}

// lookPath returns the first regular, executable file called name in the
// folders of searchPath; "" when there is none. An empty entry is the
// working directory, as for a shell; it is skipped here, since hooks run
// from folders nobody chose.
func lookPath(name, searchPath string) string {
	for _, dir := range filepath.SplitList(searchPath) {
		if dir == "" || !filepath.IsAbs(dir) {
			continue
		}
		p := filepath.Join(dir, name)
		info, err := os.Stat(p)
		if err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	return ""
}

func sameFile(a, b string) bool {
	ia, errA := os.Stat(a)
	ib, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(ia, ib)
}

// buildKey is what tells two builds apart: the main module and its
// version, the VCS revision and whether the tree was modified, and the
// link flags (-ldflags -X may stamp a version).
func buildKey(bi *debug.BuildInfo) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s@%s", bi.Main.Path, bi.Main.Version)
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision", "vcs.modified", "-ldflags":
			fmt.Fprintf(&b, " %s=%s", s.Key, s.Value)
		}
	}
	return b.String()
}

// describeBuild is a short description of the program in file: its
// version, revision and link flags, for messages.
func describeBuild(file string) string {
	bi, err := buildinfo.ReadFile(file)
	if err != nil {
		return "not a Go program agentlock can read the version of"
	}
	parts := []string{"version " + strings.Trim(bi.Main.Version, "()")}
	if bi.Main.Version == "" {
		parts[0] = "version unknown"
	}
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision":
			parts = append(parts, "revision "+s.Value[:min(12, len(s.Value))])
		case s.Key == "vcs.modified" && s.Value == "true":
			parts = append(parts, "modified")
		case s.Key == "-ldflags":
			parts = append(parts, "-ldflags "+s.Value)
		}
	}
	return strings.Join(parts, ", ")
}

// isNpxCache reports whether file lies in the cache where npx (npm exec)
// installs the packages it runs: ~/.npm/_npx/<hash>/node_modules.
func isNpxCache(file string) bool {
	return strings.Contains(filepath.ToSlash(file), "/_npx/")
}

// launcherMarker is in the npm package's sh launcher (npm/agentlock/bin).
const launcherMarker = "# agentlock-npm-launcher:"

// npmScope is the npm scope of agentlock's packages (npm/pack.mjs): the
// package npmPackage, and its platform packages npmScope/agentlock-<os>-<cpu>.
// The bare name agentlock on the npm registry is another publisher's
// package: no message may tell anyone to install it.
const (
	npmScope   = "@agentlock"
	npmPackage = npmScope + "/agentlock"
)

// launcherTarget returns the native binary that file, the npm package's
// sh launcher, executes — found as the launcher finds it: the platform
// package (@agentlock/agentlock-<os>-<cpu>) under the package's
// node_modules, or beside the package in its scope folder — or "" when
// file is no launcher or finds none.
func launcherTarget(file string) string {
	f, err := os.Open(file)
	if err != nil {
		return ""
	}
	head := make([]byte, 256)
	n, _ := f.Read(head)
	f.Close()
	if !strings.Contains(string(head[:n]), launcherMarker) {
		return ""
	}
	real, err := filepath.EvalSymlinks(file)
	if err != nil {
		return ""
	}
	cpu := map[string]string{"amd64": "x64", "arm64": "arm64"}[runtime.GOARCH]
	platform := "agentlock-" + runtime.GOOS + "-" + cpu
	pkg := filepath.Dir(filepath.Dir(real)) // node_modules/@agentlock/agentlock
	for _, dir := range []string{filepath.Join(pkg, "node_modules", npmScope, platform), filepath.Join(filepath.Dir(pkg), platform)} {
		p := filepath.Join(dir, "bin", filepath.Base(real))
		if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Mode().Perm()&0o111 != 0 {
			return p
		}
	}
	return ""
}
