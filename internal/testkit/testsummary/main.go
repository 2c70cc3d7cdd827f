// Command testsummary reads the events of go test -json on its standard
// input and prints what a person reads in CI: each package's result line,
// the whole output of every test that failed, and at the end the list of
// tests that were skipped, with their reasons. Its exit status is 1 when a
// test failed, or, with -strict, when one was skipped: .ci/run uses it so
// that a run with skipped tests can never pass unnoticed.
//
//	go test -json ./... | go run ./internal/testkit/testsummary -step 'go test' -strict
//
// Lines that are not test events (a build failure's text) are printed as
// they are.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is one line of go test -json (cmd/test2json).
type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

// skip is a skipped test and why.
type skip struct {
	pkg, test, reason string
}

// summary is what the events said so far.
type summary struct {
	out     io.Writer
	pending map[string][]string // output of a running test, by package and test
	skips   []skip
	failed  int
	passed  int
}

func main() {
	step := flag.String("step", "go test", "the name of the step, for the summary")
	strict := flag.Bool("strict", false, "exit 1 when any test was skipped")
	flag.Parse()
	s := &summary{out: os.Stdout, pending: map[string][]string{}}
	if err := s.read(os.Stdin); err != nil {
		fmt.Fprintf(os.Stderr, "testsummary: %v\n", err)
		os.Exit(2)
	}
	os.Exit(s.report(*step, *strict))
}

// read handles every line of r.
func (s *summary) read(r io.Reader) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		var e event
		if !strings.HasPrefix(line, "{") || json.Unmarshal([]byte(line), &e) != nil {
			fmt.Fprintln(s.out, line)
			continue
		}
		s.handle(e)
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read the test events: %w", err)
	}
	return nil
}

// handle takes one event: a package's own output is printed at once, a
// test's is kept until the test ends and printed only when it failed.
func (s *summary) handle(e event) {
	key := e.Package + " " + e.Test
	switch {
	case e.Test == "" && (e.Action == "output" || e.Action == "build-output"):
		// As go test prints without -json: not the test binary's own
		// PASS and coverage lines, which the package's result line repeats.
		if t := strings.TrimSpace(e.Output); t != "PASS" && !strings.HasPrefix(t, "coverage: ") {
			fmt.Fprint(s.out, e.Output)
		}
	case e.Test == "" && e.Action == "fail":
		s.failed++
	case e.Action == "output":
		s.pending[key] = append(s.pending[key], e.Output)
	case e.Action == "fail":
		s.failed++
		fmt.Fprint(s.out, strings.Join(s.pending[key], ""))
		delete(s.pending, key)
	case e.Test == "" && e.Action == "skip":
		// A package whose test files this build excludes (the etcd tests
		// without -tags etcd): no test was skipped; its tests run in the
		// step that builds them.
		delete(s.pending, key)
	case e.Action == "skip":
		s.skips = append(s.skips, skip{pkg: e.Package, test: e.Test, reason: skipReason(s.pending[key])})
		delete(s.pending, key)
	case e.Action == "pass":
		s.passed++
		delete(s.pending, key)
	}
}

// skipReason is what a skipped test said (its t.Skip message), without
// the lines go test adds ("=== RUN", "--- SKIP").
func skipReason(lines []string) string {
	var reason []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "=== ") || strings.HasPrefix(t, "--- SKIP") {
			continue
		}
		reason = append(reason, t)
	}
	if len(reason) == 0 {
		return "(no reason given)"
	}
	return strings.Join(reason, " ")
}

// report prints the summary and returns the exit status.
func (s *summary) report(step string, strict bool) int {
	fmt.Fprintf(s.out, "== %s: %d test(s) passed, %d failed, %d skipped\n", step, s.passed, s.failed, len(s.skips))
	sort.Slice(s.skips, func(a, b int) bool {
		return s.skips[a].pkg+" "+s.skips[a].test < s.skips[b].pkg+" "+s.skips[b].test
	})
	for _, k := range s.skips {
		fmt.Fprintf(s.out, "SKIPPED %s %s: %s\n", k.pkg, k.test, k.reason)
	}
	switch {
	case s.failed > 0:
		return 1
	case strict && len(s.skips) > 0:
		fmt.Fprintf(s.out, "== %s: FAIL: %d test(s) skipped; in CI every test runs (see proctest.Unavailable)\n", step, len(s.skips))
		return 1
	}
	return 0
}
