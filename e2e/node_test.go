//go:build linux

package e2e

import (
	"os/exec"
	"path/filepath"
	"testing"
)

func TestParseVersion(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want [3]int
		ok   bool
	}{
		{"v22.23.3", [3]int{22, 23, 3}, true},
		{"20.20.2", [3]int{20, 20, 2}, true},
		{"v22.19", [3]int{}, false},
		{"v22.x.1", [3]int{}, false},
	} {
		got, err := parseVersion(tc.in)
		if (err == nil) != tc.ok || (tc.ok && got != tc.want) {
			t.Errorf("parseVersion(%q) = %v, %v; want %v (ok %v)", tc.in, got, err, tc.want, tc.ok)
		}
	}
	for _, tc := range []struct {
		a, b [3]int
		less bool
	}{
		{[3]int{20, 20, 2}, nodeMin, true},
		{[3]int{22, 18, 9}, nodeMin, true},
		{[3]int{22, 19, 0}, nodeMin, false},
		{[3]int{22, 23, 3}, nodeMin, false},
		{[3]int{23, 0, 0}, nodeMin, false},
	} {
		if got := versionLess(tc.a, tc.b); got != tc.less {
			t.Errorf("versionLess(%v, %v) = %v", tc.a, tc.b, got)
		}
	}
}

// node22's folder, first in PATH, gives "#!/usr/bin/env node" programs a
// node >= 22.19 whatever the system's is.
func TestNode22(t *testing.T) {
	dir := node22(t)
	v, err := nodeVersion(filepath.Join(dir, "node"))
	if err != nil {
		t.Fatal(err)
	}
	if versionLess(v, nodeMin) {
		t.Fatalf("node22's node is %v, older than %v", v, nodeMin)
	}
	cmd := exec.Command("/usr/bin/env", "node", "-e", "process.stdout.write(process.version)")
	cmd.Env = []string{"PATH=" + dir + ":" + systemPath}
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("env node with %s first in PATH: %v", dir, err)
	}
	if got, err := parseVersion(string(out)); err != nil || got != v {
		t.Fatalf("env node ran node %q, want %v (%v)", out, v, err)
	}
}
