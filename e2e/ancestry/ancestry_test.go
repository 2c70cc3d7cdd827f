//go:build linux

package ancestry_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/agentlock/agentlock/e2e/ancestry"
	"github.com/agentlock/agentlock/internal/sys/procs"
	"github.com/agentlock/agentlock/internal/testkit/proctest"
)

var dumpBin string

func TestMain(m *testing.M) {
	ancestry.MainIfDump()
	dir, err := os.MkdirTemp("", "ancestry-bin")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	dumpBin, err = ancestry.Install(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func TestChainStartsAtTheProcessAndClimbs(t *testing.T) {
	chain, err := ancestry.Chain(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if len(chain) < 2 {
		t.Fatalf("chain of the test process has %d processes, want its parent too", len(chain))
	}
	if chain[0].PID != os.Getpid() || chain[1].PID != os.Getppid() || chain[0].PPID != chain[1].PID {
		t.Fatalf("chain starts %d<-%d (ppid %d), want %d<-%d", chain[0].PID, chain[1].PID, chain[0].PPID, os.Getpid(), os.Getppid())
	}
	if chain[0].Start == 0 || len(chain[0].Args) == 0 || chain[0].Args[0] != os.Args[0] {
		t.Fatalf("own process read as %+v", chain[0])
	}
}

func TestHarnessIsIdentitysRule(t *testing.T) {
	harness := ancestry.Proc{Process: procs.Process{PID: 50, PPID: 40, Name: "claude", Start: 7}}
	p := func(pid, ppid int, name string) ancestry.Proc {
		return ancestry.Proc{Process: procs.Process{PID: pid, PPID: ppid, Name: name}}
	}
	for _, tc := range []struct {
		name  string
		chain []ancestry.Proc
		want  bool
	}{
		{"hook through sh", []ancestry.Proc{p(60, 50, "sh"), harness}, true},
		{"two bash levels and env", []ancestry.Proc{p(62, 61, "bash"), p(61, 60, "env"), p(60, 50, "bash"), harness}, true},
		{"agentlock itself is short-lived", []ancestry.Proc{p(61, 60, "agentlock"), p(60, 50, "sh"), harness}, true},
		{"exec'd command: the harness is the parent", []ancestry.Proc{harness}, true},
		{"PID namespace init is not the harness", []ancestry.Proc{p(2, 1, "bash"), p(1, 0, "codex")}, false},
		{"only shells", []ancestry.Proc{p(2, 1, "bash")}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := ancestry.Harness(tc.chain)
			if ok != tc.want || (ok && !ancestry.Same(got, harness)) {
				t.Fatalf("Harness = %+v, %v; want the harness: %v", got, ok, tc.want)
			}
		})
	}
}

// A command run through sh by this test process records sh, then this
// process, whose pid and start time match a direct read: the test is the
// "harness" of the dump, as an agent CLI is of its hooks.
func TestDumpRecordsItsCallerChain(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.jsonl")
	// "; true" keeps sh alive as the dump's parent (no exec of a last command).
	r := proctest.Run(t, "/bin/sh", proctest.Cmd{
		Args:  []string{"-c", dumpBin + ` -stdin "$1" hook; true`, "sh", out},
		Env:   proctest.Env(dir, dir, "CLAUDE_CODE_SESSION_ID=s1", "GEMINI_API_KEY=secret", "UNRELATED=x"),
		Stdin: `{"session_id":"s1"}`,
	})
	if r.Code != 0 {
		t.Fatalf("dump through sh failed: %v", r)
	}
	recs, err := ancestry.ReadRecords(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1", len(recs))
	}
	rec := recs[0]
	if rec.Label != "hook" || rec.Stdin != `{"session_id":"s1"}` {
		t.Fatalf("record label %q stdin %q", rec.Label, rec.Stdin)
	}
	if rec.Env["CLAUDE_CODE_SESSION_ID"] != "s1" || rec.Env["GEMINI_API_KEY"] != "(set)" {
		t.Fatalf("env kept %v, want the session id and the key's name only", rec.Env)
	}
	if _, ok := rec.Env["UNRELATED"]; ok {
		t.Fatalf("env kept an unrelated variable: %v", rec.Env)
	}
	if len(rec.Chain) < 2 || !ancestry.IsShell(rec.Chain[0]) {
		t.Fatalf("chain does not start with the shell: %+v", rec.Chain)
	}
	self, err := ancestry.Read(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	h, ok := ancestry.Harness(rec.Chain)
	if !ok || !ancestry.Same(h, self) {
		t.Fatalf("nearest non-shell ancestor %+v (found %v), want this test process %+v", h, ok, self)
	}
}
